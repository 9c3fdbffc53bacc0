"""An add's duplicate check and writes are atomic (issue 39, items 11 and 15), with real concurrency.

Identical adds racing each other (threads of one engine, two processes on one data
directory, threads over PostgreSQL) store each text once: the duplicate check and
the writes run under the scope's lock (:mod:`memorist.engine.add_guard`). A process
killed with SIGKILL between an add's vector write and its history rows leaves no
memory without history: the next engine to open the store completes the add.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine as Memory
from memorist.testing.server import code_path

from tests.conftest import fast_settings
from tests.plugins import hashing

TEXTS = [f"Fact {i}: the lighthouse keeper paints door {i} a different blue." for i in range(40)]
CLIENTS = 6
ROUNDS = 2


def hammer(memory: Memory, seed: int, errors: list[BaseException], barrier: threading.Barrier) -> None:
    rng = random.Random(seed)
    try:
        barrier.wait()
        for _ in range(ROUNDS):
            order = TEXTS[:]
            rng.shuffle(order)
            for text in order:
                memory.add(text, user_id="race", infer=False)
    except BaseException as exc:  # noqa: BLE001 - reported by the test
        errors.append(exc)


def race(memory: Memory) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(CLIENTS)
    threads = [threading.Thread(target=hammer, args=(memory, i, errors, barrier)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def stored_once(memory: Memory) -> None:
    records = memory.list(user_id="race", page_size=1000).records
    twice = {text: n for text, n in Counter(r.text for r in records).items() if n > 1}
    assert not twice, f"{len(twice)} texts stored more than once: {sorted(twice.items())[:3]}"
    assert sorted(r.text for r in records) == sorted(TEXTS)
    for record in records:  # and each has its one ADD in history
        assert [h["event"] for h in memory.history(record.id)] == ["ADD"]


def test_threads_of_one_engine_store_each_text_once(tmp_path: Path) -> None:
    memory = Memory.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    try:
        race(memory)
        stored_once(memory)
    finally:
        memory.close()


def _process(data_dir: str, seed: int, start: Any, done: Any) -> None:
    from memorist.plugin.manager import load_plugins
    from memorist.python.engine import Engine as Memory
    from memorist.testing import hashing as kit_hashing

    memory = Memory.from_config(
        {"data_dir": data_dir, "embedder": {"provider": "hashing", "options": {"dimension": 64}}},
        plugins=load_plugins({}, extra=[kit_hashing]),
    )
    try:
        errors: list[BaseException] = []
        barrier = threading.Barrier(3)
        threads = [threading.Thread(target=hammer, args=(memory, seed * 10 + i, errors, barrier)) for i in range(3)]
        start.wait()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        done.put(repr(errors[0]) if errors else "")
    finally:
        memory.close()


@pytest.mark.process  # another process under test (docs/testing.md#test-tiers)
def test_two_processes_on_one_data_directory_store_each_text_once(tmp_path: Path) -> None:
    pytest.importorskip("memorist.testing.hashing")
    data = tmp_path / "data"
    first = Memory.from_config(fast_settings(data), plugins=load_plugins({}, extra=[hashing]))
    first.close()  # migrated and created once, before the race
    context = multiprocessing.get_context("spawn")
    start, done = context.Event(), context.Queue()
    workers = [context.Process(target=_process, args=(str(data), seed, start, done)) for seed in range(2)]
    for worker in workers:
        worker.start()
    start.set()
    results = [done.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert results == ["", ""], results
    memory = Memory.from_config(fast_settings(data), plugins=load_plugins({}, extra=[hashing]))
    try:
        stored_once(memory)
    finally:
        memory.close()


def test_threads_over_postgresql_store_each_text_once(tmp_path: Path, pg_fresh_url: str) -> None:
    settings = fast_settings(
        tmp_path, database={"url": pg_fresh_url}, vector_store={"provider": "pgvector", "options": {"table": "race"}}
    )
    memory = Memory.from_config(settings, plugins=load_plugins({}, extra=[hashing]))
    try:
        race(memory)
        stored_once(memory)
    finally:
        memory.close()


# -- kill -9 between the vector write and the history rows (item 15) ---------------------------

CHILD = """
import sys, time
from pathlib import Path
from memorist.python.engine import Engine as Memory
from memorist.plugin.manager import load_plugins
from memorist.testing import hashing

data, signal, mode = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
memory = Memory.from_config(
    {"data_dir": data, "embedder": {"provider": "hashing", "options": {"dimension": 64}}},
    plugins=load_plugins({}, extra=[hashing]),
)
store = memory.components.vector_store
written = store.upsert

def upsert_then_stall(records, vectors):
    written(records, vectors)
    signal.write_text(",".join(r.id for r in records))
    time.sleep(120)  # killed here: the memories are stored, their history rows are not

store.upsert = upsert_then_stall
if mode == "one":
    memory.add("My sister Ana lives in Lisbon and keeps bees.", user_id="crash", infer=False)
else:
    requests = [memory.add_request(f"Crash batch fact {i}: hive {i} faces south.", user_id="crash", infer=False)
                for i in range(5)]
    memory.add_many(requests)
"""


@pytest.mark.process  # another process under test (docs/testing.md#test-tiers)
@pytest.mark.parametrize("mode", ["one", "batch"])
def test_kill9_between_store_and_history_leaves_no_memory_without_history(tmp_path: Path, mode: str) -> None:
    data, marker = tmp_path / "data", tmp_path / "upserted"
    env = {**os.environ, "PYTHONPATH": code_path()}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(data), str(marker), mode], env=env)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() or not marker.read_text():
            assert child.poll() is None, "the child ended before its vector write"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait()
    ids = marker.read_text().split(",")
    memory = Memory.from_config(fast_settings(data), plugins=load_plugins({}, extra=[hashing]))
    try:
        stored = {r.id for r in memory.list(user_id="crash", page_size=100).records}
        assert set(ids) <= stored  # the vector write survived the kill
        for memory_id in stored:
            assert [h["event"] for h in memory.history(memory_id)] == ["ADD"], memory_id
        if mode == "one":  # the client saw no answer and sends it again: found, not stored twice
            assert memory.add("My sister Ana lives in Lisbon and keeps bees.", user_id="crash", infer=False) == []
    finally:
        memory.close()
