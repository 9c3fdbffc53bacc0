"""A running read keeps the table version it is on (issue 39, item 9), on real LanceDB files.

Maintenance prunes old versions within seconds, and compaction rewrites the data files,
so pruning deleted files a longer read was still scanning: ``lance error: Not found:
.../data/*.lance`` (reads of 19-42 s during writes answered 500). Here a read is held
open -- its filter evaluation made slow, as an expensive filter would -- while rows are
written and the table is optimized twice past ``keep_versions_seconds``: the read must
answer every row, in this process and from another process on the same directory, and
once no read holds them the old files still go.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import memorist_lancedb.table_reads as table_reads
import pytest
from memorist.filters import evaluate, parse_filter
from memorist.testing.vector_store import make_record, random_vectors

from tests.contracts.test_lancedb_store import DIM, open_store

WRITES, ROWS = 80, 60
KEEP_SECONDS = 1.0
OPTIONS: dict[str, Any] = {"optimize_every": 0, "keep_versions_seconds": KEEP_SECONDS, "prewarm_indexes": False}


def _write(store: Any, first: int, count: int) -> None:
    """``count`` commits of ``ROWS`` rows each: one data file per commit, as a busy store has."""
    for i in range(first, first + count):
        records = [
            make_record(f"m{i}-{j}", f"Erinnerung {i} {j}", user_id="ada", metadata={"topic": "tea"})
            for j in range(ROWS)
        ]
        store.upsert(records, random_vectors(ROWS, DIM, seed=i))


def _data_files(root: Path) -> int:
    return len(list((root / "lancedb" / "memories.lance" / "data").iterdir()))


def _churn(store: Any, first: int) -> None:
    """Writes, then two optimizes (compaction, then a prune of what compaction replaced)
    each past the version lifetime: without a guard the first read's files are gone."""
    _write(store, first, 5)
    time.sleep(KEEP_SECONDS + 0.5)
    store.optimize()
    time.sleep(KEEP_SECONDS + 0.5)
    store.optimize()


def test_a_read_held_open_across_writes_and_pruning_answers_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(tmp_path, **OPTIONS)
    _write(store, 0, WRITES)
    files_before = _data_files(tmp_path)
    inside, release = threading.Event(), threading.Event()
    calls = [0]

    def slow_evaluate(where: Any, record: Any) -> bool:
        calls[0] += 1
        if calls[0] == 1:  # the read has begun scanning: hold it there
            inside.set()
            release.wait(60)
        return evaluate(where, record)

    monkeypatch.setattr(table_reads, "evaluate", slow_evaluate)
    answer: dict[str, Any] = {}

    def read() -> None:
        try:
            answer["rows"] = len(store.list(parse_filter({"metadata.topic": "tea"}), limit=100_000))
        except Exception as exc:  # what the caller of a search would have got as a 500
            answer["error"] = repr(exc)

    reader = threading.Thread(target=read)
    reader.start()
    assert inside.wait(30)
    _churn(store, WRITES)
    release.set()
    reader.join(60)
    assert answer == {"rows": WRITES * ROWS}, answer
    assert calls[0] == WRITES * ROWS  # read once: kept, not retried after losing its files
    monkeypatch.setattr(table_reads, "evaluate", evaluate)
    # Nothing holds the old versions now: the next prune removes the files compaction replaced.
    time.sleep(KEEP_SECONDS + 0.5)
    store.optimize()
    assert _data_files(tmp_path) < files_before / 4, (files_before, _data_files(tmp_path))
    assert store.count() == (WRITES + 5) * ROWS
    published = tmp_path / "lancedb" / "memories.reads"
    assert all(float(f.read_text()) == 0 for f in published.iterdir())  # no read left published
    store.close()
    assert not published.exists()  # a closed store leaves no file behind


_READER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {root!r})
    import memorist_lancedb.table_reads as table_reads
    from memorist.filters import evaluate, parse_filter
    from tests.contracts.test_lancedb_store import open_store

    root = Path({path!r})
    store = open_store(root, **{options!r})
    calls = [0]

    def slow_evaluate(where, record):
        calls[0] += 1
        if calls[0] == 1:
            (root / "inside").write_text("1")
            deadline = time.monotonic() + 60
            while not (root / "release").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return evaluate(where, record)

    table_reads.evaluate = slow_evaluate
    rows = len(store.list(parse_filter({{"metadata.topic": "tea"}}), limit=100_000))
    print(rows, calls[0])
    """
)


@pytest.mark.process  # another process under test (docs/testing.md#test-tiers)
def test_a_read_in_another_process_survives_this_ones_pruning(tmp_path: Path) -> None:
    """Two server workers on one directory: the reader is one process, the writer that
    compacts and prunes is another."""
    store = open_store(tmp_path, **OPTIONS)
    _write(store, 0, WRITES)
    script = _READER.format(root=str(Path(__file__).resolve().parents[3]), path=str(tmp_path), options=OPTIONS)
    reader = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for: Callable[[], bool] = lambda: (tmp_path / "inside").exists() or reader.poll() is not None  # noqa: E731
    deadline = time.monotonic() + 60
    while not wait_for():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    _churn(store, WRITES)
    (tmp_path / "release").write_text("1")
    out, err = reader.communicate(timeout=120)
    assert reader.returncode == 0, err[-2000:]
    rows, evaluated = out.split()
    assert int(rows) == WRITES * ROWS
    assert int(evaluated) == WRITES * ROWS  # read once: kept by its published start, not retried
    store.close()


def test_a_read_that_loses_a_file_anyway_is_read_again_and_other_errors_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The instant between a prune's plan and the prune is not covered by the guard: a read
    that loses a file there is run again on the current version; any other error is not."""
    store = open_store(tmp_path, **OPTIONS)
    _write(store, 0, 2)
    real = store._list
    failures = [RuntimeError("lance error: Not found: lancedb/memories.lance/data/0101.lance, local.rs:273:40")]

    def flaky(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "_list", flaky)
    assert len(store.list(limit=1000)) == 2 * ROWS
    failures.append(RuntimeError("lance error: Invalid user input: no such column"))
    with pytest.raises(RuntimeError, match="no such column"):
        store.list(limit=1000)
    store.close()


def test_published_reads_of_other_processes_count_only_while_those_processes_live(tmp_path: Path) -> None:
    from memorist_lancedb.read_guard import ReadGuard

    directory = tmp_path / "memories.reads"
    guard = ReadGuard(directory)
    assert guard.oldest() is None
    directory.mkdir()
    started = time.time() - 30
    (directory / str(os.getppid())).write_text(f"{started:24.6f}")  # a live process reading for 30 s
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (directory / gone.stdout.strip()).write_text(f"{time.time() - 60:24.6f}")  # a process that died mid-read
    (directory / "12").write_text(f"{0:24.6f}")  # a process with no read running
    assert guard.oldest() == pytest.approx(started)
    versions = [{"timestamp": started - 100}, {"timestamp": started - 5}, {"timestamp": time.time()}]
    # Kept: the version that was the latest when the 30 s read began, and everything after it.
    assert guard.older_than(versions, 10.0) >= time.time() - (started - 5)
    (directory / str(os.getppid())).write_text(f"{0:24.6f}")  # that read ended
    assert guard.older_than(versions, 10.0) == 10.0
    with guard.reading():
        assert guard.oldest() is not None and float((directory / str(os.getpid())).read_text()) > 0
    assert float((directory / str(os.getpid())).read_text()) == 0
    guard.close()
    assert not (directory / str(os.getpid())).exists()


def test_a_quiet_store_prunes_what_a_long_read_held_once_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No write comes after the read: the idle maintenance itself looks again, so the files
    a read held back do not stay until the store's next write."""
    options = {**OPTIONS, "optimize_every": 10_000, "optimize_idle_seconds": 0.3}
    store = open_store(tmp_path, **options)
    _write(store, 0, 30)
    inside, release = threading.Event(), threading.Event()

    def slow_evaluate(where: Any, record: Any) -> bool:
        if not inside.is_set():
            inside.set()
            release.wait(60)
        return evaluate(where, record)

    monkeypatch.setattr(table_reads, "evaluate", slow_evaluate)
    reader = threading.Thread(target=lambda: store.list(parse_filter({"metadata.topic": "tea"}), limit=100_000))
    reader.start()
    assert inside.wait(30)
    _write(store, 30, 5)  # then quiet: the idle optimize compacts, its prune is held back by the read
    time.sleep(0.3 + 2 * KEEP_SECONDS + 2)
    held = _data_files(tmp_path)
    assert held >= 30  # the read's files are still there
    release.set()
    reader.join(60)
    deadline = time.monotonic() + 3 * KEEP_SECONDS + 5
    while _data_files(tmp_path) >= held / 4 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _data_files(tmp_path) < held / 4, (held, _data_files(tmp_path))
    store.close()
