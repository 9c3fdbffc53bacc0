"""The durable add queue: acknowledgement after commit, leases, retries, idempotency, back-pressure."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist import Engine as Memory
from memorist.kernel.add_worker import AddWorker
from memorist.plugin.manager import load_plugins
from memorist.queue.events import FAILED, PENDING, SUCCEEDED, EventStore, QueueFull

from tests.conftest import fast_settings
from tests.plugins import hashing


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    mem = Memory.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield mem
    mem.close()


def store(memory: Memory, **kwargs: float) -> EventStore:
    options = {"lease_seconds": 30.0, "max_attempts": 3, "backoff_seconds": 0.0, "max_pending": 1000, **kwargs}
    return EventStore(memory.db, **options)  # type: ignore[arg-type]


def payload(text: str, user: str = "u1") -> dict:
    return {
        "messages": [{"role": "user", "content": text, "name": "Ana"}],
        "user_id": user,
        "timestamp": "2024-01-10T00:00:00Z",
    }


def test_an_event_is_processed_once_and_reports_its_memories(memory: Memory) -> None:
    events = store(memory)
    event = events.submit("default", "default", payload("I adopted a beagle named Rex."))
    assert events.get(event.id).status == PENDING
    worker = AddWorker(lambda: memory, events, threads=1, poll_seconds=0.01)
    assert worker.run_once() is True
    assert worker.run_once() is False  # nothing left
    done = events.get(event.id)
    assert done.status == SUCCEEDED and done.attempts == 1 and done.latency_ms is not None
    assert [r["data"]["memory"] for r in done.results] == ["Ana adopted a beagle named Rex."]
    assert memory.get(done.results[0]["id"]).text == "Ana adopted a beagle named Rex."


def test_failures_retry_then_fail_with_the_error(memory: Memory) -> None:
    events = store(memory, max_attempts=2)
    event = events.submit("default", "default", {"messages": [{"role": "user", "content": "x"}]})  # no identifier
    worker = AddWorker(lambda: memory, events, threads=1, poll_seconds=0.01)
    assert worker.run_once() and events.get(event.id).status == PENDING
    assert worker.run_once() and events.get(event.id).status == FAILED
    failed = events.get(event.id)
    assert failed.attempts == 2 and "user_id" in (failed.error or "")


def test_backoff_delays_the_retry(memory: Memory) -> None:
    events = store(memory, max_attempts=3, backoff_seconds=30.0)
    events.submit("default", "default", {"messages": [{"role": "user", "content": "x"}]})
    worker = AddWorker(lambda: memory, events, threads=1, poll_seconds=0.01)
    assert worker.run_once() is True
    assert worker.run_once() is False  # waiting out its backoff


def test_a_worker_dying_between_writes_leaves_no_duplicate(memory: Memory) -> None:
    """kill -9 after the vectors were written, before the commit: the next worker redoes it once."""
    events = store(memory, lease_seconds=0.5)
    event = events.submit("default", "default", payload("I climbed Mount Fuji with my brother."))
    claimed = events.claim("doomed-worker")
    assert claimed is not None
    request = memory.add_request(**{**claimed.payload, "id_seed": claimed.id})
    prepared = memory.adder.prepare(request)
    records, vectors = prepared.records, prepared.vectors
    assert events.plan(claimed, "doomed-worker", [r.id for r in records])
    memory.components.vector_store.upsert(records, vectors)  # ... and the process dies here
    time.sleep(0.6)  # the lease expires
    worker = AddWorker(lambda: memory, events, threads=1, poll_seconds=0.01)
    assert worker.run_once() is True
    done = events.get(event.id)
    assert done.status == SUCCEEDED and done.attempts == 2
    assert memory.list(user_id="u1").total == 1
    assert [h["event"] for h in memory.history(done.results[0]["id"])] == ["ADD"]


def test_concurrent_workers_claim_each_event_once(memory: Memory) -> None:
    events = store(memory)
    ids = [
        events.submit("default", "default", payload(f"I visited city number {i}.", user=f"u{i}")).id for i in range(24)
    ]
    claims: list[str] = []
    lock = threading.Lock()

    def claimer(name: str) -> None:
        while (event := events.claim(name)) is not None:
            with lock:
                claims.append(event.id)

    threads = [threading.Thread(target=claimer, args=(f"w{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claims) == sorted(ids)


def test_worker_threads_drain_the_queue(memory: Memory) -> None:
    events = store(memory)
    ids = [
        events.submit("default", "default", payload(f"I planted {i} tomato plants.", user=f"p{i}")).id
        for i in range(10)
    ]
    worker = AddWorker(lambda: memory, events, threads=3, poll_seconds=0.01)
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(events.get(i).status != SUCCEEDED for i in ids):
            time.sleep(0.05)
    finally:
        worker.stop()
    assert all(events.get(i).status == SUCCEEDED for i in ids)
    assert sum(memory.list(user_id=f"p{i}").total for i in range(10)) == 10


def test_back_pressure_refuses_past_the_bound(memory: Memory) -> None:
    events = store(memory, max_pending=2)
    events.submit("default", "default", payload("one"))
    events.submit("default", "default", payload("two"))
    with pytest.raises(QueueFull) as err:
        events.submit("default", "default", payload("three"))
    assert err.value.status == 429 and err.value.retry_after > 0


def test_a_late_write_by_a_worker_that_lost_its_lease_is_adopted_once(memory: Memory, monkeypatch) -> None:
    """A's lease expires after it planned; B deletes the (not yet written) planned ids, then A's
    vectors land. B must treat that record as this event's own write, not as a duplicate."""
    events = store(memory, lease_seconds=0.5)
    event = events.submit("default", "default", payload("I keep seven copper lanterns in the attic."))
    claimed = events.claim("slow-worker")
    request = memory.add_request(**{**claimed.payload, "id_seed": claimed.id})
    prepared = memory.adder.prepare(request)
    records, vectors = prepared.records, prepared.vectors
    assert events.plan(claimed, "slow-worker", [r.id for r in records])
    time.sleep(0.6)
    taken = events.claim("fast-worker")
    assert taken is not None and taken.id == event.id
    store_ = memory.components.vector_store
    store_.delete(taken.planned_ids or [])  # B's cleanup happens first ...
    store_.upsert(records, vectors)  # ... then A's stalled write lands
    monkeypatch.setattr(store_, "delete", lambda ids: 0)  # B already did its cleanup above
    AddWorker(lambda: memory, events, threads=1, poll_seconds=0.01).process(taken, "fast-worker")
    done = events.get(event.id)
    assert done.status == SUCCEEDED and len(done.results) == 1
    assert memory.list(user_id="u1").total == 1
    assert [h["event"] for h in memory.history(done.results[0]["id"])] == ["ADD"]
