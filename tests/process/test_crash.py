"""Crash safety: kill -9 every server process in the middle of 200 adds; nothing accepted is lost."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import requests
from memorist.testing.server import ADMIN, Server

ADDS = 200


def submit_all(server: Server, key: str, accepted: dict[str, str], stop: threading.Event) -> None:
    session = requests.Session()
    session.trust_env = False
    for i in range(ADDS):
        if stop.is_set():
            return
        text = f"Crash test fact number {i}: I planted {i} sunflowers in garden bed {i}."
        try:
            resp = session.post(
                f"{server.url}/v3/memories/add/",
                headers={"Authorization": f"Token {key}"},
                json={"messages": [{"role": "user", "content": text}], "user_id": f"crash-{i % 7}"},
                timeout=10,
            )
        except requests.RequestException:
            continue  # not acknowledged: the client would retry; nothing is owed
        if resp.status_code == 200:
            accepted[resp.json()["event_id"]] = text


def crash_and_recover(tmp_path: Path, env: dict[str, str]) -> None:
    env = {"MEMORIST_QUEUE__LEASE_SECONDS": "2", "MEMORIST_QUEUE__WORKERS": "2", **env}
    server = Server(tmp_path / "data", env=env, workers=2).start()
    key = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": "Crash", "project_name": "P", "email": "crash@example.com"},
    ).json()["key"]
    accepted: dict[str, str] = {}
    stop = threading.Event()
    producer = threading.Thread(target=submit_all, args=(server, key, accepted, stop))
    producer.start()
    deadline = time.monotonic() + 60
    while len(accepted) < ADDS // 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    server.kill9()  # master and workers, mid-way through submission and processing
    stop.set()
    producer.join()
    killed_at = len(accepted)
    assert 0 < killed_at < ADDS

    restarted = Server(tmp_path / "data", env=env, workers=2)
    restarted.port, restarted.url = server.port, server.url
    restarted.start()
    try:
        headers = {"Authorization": f"Token {key}"}
        pending = set(accepted)
        deadline = time.monotonic() + 180
        # One list call per poll (at most ADDS events, one page), not one call per pending event: the
        # server's CPU goes to the queue workers, which the test waits for.
        while pending and time.monotonic() < deadline:
            page = restarted.get("/v1/events/", headers=headers, params={"page_size": 200}).json()
            finished = {e["id"] for e in page["results"] if e["status"] in ("SUCCEEDED", "FAILED")}
            pending -= finished
            if pending:
                time.sleep(0.2)
        assert not pending, f"{len(pending)} accepted events never finished"
        # Each accepted event, read once by its own route.
        statuses = {event_id: restarted.get(f"/v1/event/{event_id}/", headers=headers).json() for event_id in accepted}
        assert all(e["status"] == "SUCCEEDED" for e in statuses.values())
        # Every accepted add stored exactly one memory, once.
        memory_ids = [r["id"] for e in statuses.values() for r in e["results"]]
        assert len(memory_ids) == len(accepted) == len(set(memory_ids))
        stored = []
        for user in range(7):
            page = restarted.post(
                "/v3/memories/",
                headers=headers,
                params={"page_size": 200},
                json={"filters": {"user_id": f"crash-{user}"}},
            ).json()
            stored.extend(r["id"] for r in page["results"])
        counts = Counter(stored)
        assert set(memory_ids) <= set(stored)
        assert all(n == 1 for n in counts.values())
        texts = Counter(restarted.get(f"/v1/memories/{m}/", headers=headers).json()["memory"] for m in memory_ids)
        assert all(n == 1 for n in texts.values())
    finally:
        restarted.stop()
    print(f"accepted {killed_at} of {ADDS} before kill -9; all {len(accepted)} SUCCEEDED once")


def test_kill9_mid_way_loses_nothing_on_sqlite(tmp_path: Path) -> None:
    crash_and_recover(tmp_path, {})


def test_a_clean_stop_moves_acknowledged_adds_from_the_journal_into_the_table(tmp_path: Path) -> None:
    """SIGTERM: each worker closes its engine after its last request, so the LanceDB store's
    write-behind journal is drained into the table, not left for the next open to replay
    (the flush delay here is an hour: only the close can have moved the row)."""
    import lancedb

    env = {"MEMORIST_VECTOR_STORE__OPTIONS__FLUSH_DELAY_SECONDS": "3600", "MEMORIST_QUEUE__WORKERS": "1"}
    server = Server(tmp_path / "data", env=env, workers=1).start()
    try:
        added = server.post(
            "/memories",
            headers=ADMIN,
            json={"messages": [{"role": "user", "content": "I moved to Lisbon in May."}], "user_id": "ada"},
        )
        assert added.status_code == 200, added.text
        assert added.json()["results"], added.text
    finally:
        server.stop()
    assert server.process is not None and server.process.returncode == 0, server.output()
    assert "Worker closed its engine" in server.output()
    table = lancedb.connect(str(tmp_path / "data" / "lancedb")).open_table("memories")
    assert table.count_rows() == 1


def test_memorist_worker_processes_the_queue_and_a_clean_stop_drains_its_journal(tmp_path: Path) -> None:
    """``memorist worker`` (the queue without HTTP) takes an event another process queued, and on
    SIGTERM closes its kernel: the stored memory is in the LanceDB table, not left in the journal
    (an hour's flush delay: only the close can have moved it)."""
    import os
    import signal
    import subprocess
    import sys

    import lancedb
    from memorist.db import Database
    from memorist.queue.events import SUCCEEDED, EventStore
    from memorist.testing.server import test_environment

    data = tmp_path / "data"
    env = test_environment(
        data, {"MEMORIST_VECTOR_STORE__OPTIONS__FLUSH_DELAY_SECONDS": "3600", "MEMORIST_QUEUE__POLL_SECONDS": "0.05"}
    )
    data.mkdir(parents=True)
    worker = subprocess.Popen(
        [sys.executable, "-m", "memorist.cli", "worker", "--threads", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().startswith("memorist worker: 1 threads"), "the worker did not start"
        db = Database(f"sqlite:///{(data / 'memorist.db').resolve()}")
        events = EventStore(db, lease_seconds=30.0, max_attempts=3, backoff_seconds=0.0, max_pending=100)
        messages = [{"role": "user", "content": "I moved to Lisbon in May.", "name": "Ada"}]
        event = events.submit("default", "default", {"messages": messages, "user_id": "ada"})
        deadline = time.monotonic() + 60
        while events.get(event.id).status != SUCCEEDED and time.monotonic() < deadline:
            time.sleep(0.1)
        assert events.get(event.id).status == SUCCEEDED
        db.dispose()
    finally:
        os.kill(worker.pid, signal.SIGTERM)
        output = worker.communicate(timeout=60)[0]
    assert worker.returncode == 0, output
    assert lancedb.connect(str(data / "lancedb")).open_table("memories").count_rows() == 1
    assert "memorist worker: stopped" in output
