"""A delete-all of an entity stops its adds already running: none brings a memory back after it.

Queued adds were cancelled before (``test_delete_cancels_queued``), but one a worker had
already claimed finished after ``DELETE /v1/memories/?user_id=X`` and X had a memory
again. The worker is held inside a real add here -- while extracting (nothing written
yet) or just after its vectors were written (nothing committed yet) -- while the delete
arrives, then let go.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.engine.memory import MemoryEngine
from memorist.kernel.add_worker import AddWorker
from memorist.queue.events import CANCELLED_RUNNING_ERROR, RUNNING, EventStore
from memorist.testing.inprocess import AppServer

from tests.unit.queue.test_delete_cancels_queued import event, platform_key

Key = dict[str, str]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[AppServer]:
    # No queue threads: each test starts the worker it holds.
    with AppServer(tmp_path / "data", {"MEMORIST_QUEUE__WORKERS": "0", "MEMORIST_QUEUE__POLL_SECONDS": "0.05"}) as srv:
        yield srv


class Hold:
    """Stops each queue worker thread that reaches it until released; other threads pass.

    Only worker threads: the test's own requests (a search embeds, a list reads the
    store) run the same providers and must not wait.
    """

    def __init__(self) -> None:
        self._arrived = threading.Semaphore(0)
        self._release = threading.Event()

    def __call__(self) -> None:
        if threading.current_thread().name.startswith("memorist-worker"):
            self._arrived.release()
            assert self._release.wait(30), "the test never released the worker"

    def wait_for(self, threads: int) -> None:
        for _ in range(threads):
            assert self._arrived.acquire(timeout=30), "no worker reached the hold"

    def release(self) -> None:
        self._release.set()


def hold_while_extracting(memory: MemoryEngine, monkeypatch: pytest.MonkeyPatch) -> Hold:
    """Holds the worker in extraction: claimed and RUNNING, nothing noted or written yet."""
    hold, model = Hold(), memory.components.language_model
    extract = model.extract_detailed

    def held(request: Any) -> Any:
        hold()
        return extract(request)

    monkeypatch.setattr(model, "extract_detailed", held)
    return hold


def hold_after_writing_vectors(memory: MemoryEngine, monkeypatch: pytest.MonkeyPatch) -> Hold:
    """Holds the worker after its vectors are in the store, before its relational rows commit."""
    hold, store = Hold(), memory.components.vector_store
    upsert = store.upsert

    def held(records: Any, vectors: Any) -> Any:
        written = upsert(records, vectors)
        hold()
        return written

    monkeypatch.setattr(store, "upsert", held)
    return hold


HOLDS: dict[str, Callable[[MemoryEngine, pytest.MonkeyPatch], Hold]] = {
    "while_extracting": hold_while_extracting,
    "after_writing_vectors": hold_after_writing_vectors,
}


def parts(server: AppServer) -> tuple[MemoryEngine, EventStore]:
    assert server.kernel is not None
    return server.kernel.runtime.memory, server.kernel.events


def start_worker(server: AppServer, threads: int = 1) -> AddWorker:
    assert server.kernel is not None
    worker = server.kernel.worker(threads)
    worker.start()
    return worker


def settle(server: AppServer, key: Key, event_ids: list[str]) -> None:
    """Wait until every event is SUCCEEDED or FAILED, as a polling client would."""
    deadline = time.monotonic() + 30
    while any(event(server, key, i)["status"] == "PENDING" for i in event_ids):
        assert time.monotonic() < deadline, [event(server, key, i) for i in event_ids]
        time.sleep(0.05)


def stored(server: AppServer, key: Key, user: str) -> list[str]:
    """The ids of the memories the platform lists for ``user``, sorted."""
    listed = server.get("/v1/memories/", headers=key, params={"user_id": user}).json()
    return sorted(m["id"] for m in (listed if isinstance(listed, list) else listed["results"]))


def found(server: AppServer, key: Key, user: str, query: str) -> list[str]:
    hits = server.post("/v3/memories/search/", headers=key, json={"query": query, "filters": {"user_id": user}})
    assert hits.status_code == 200, hits.text
    return [h["memory"] for h in hits.json()["results"]]


def entities(server: AppServer, key: Key) -> dict[tuple[str, str], int]:
    rows = server.get("/v1/entities/", headers=key).json()["results"]
    return {(r["type"], r["id"]): r["total_memories"] for r in rows}


def queue(server: AppServer, key: Key, text: str, **ids: str) -> str:
    """Queue an add for the entities ``ids`` names; its event id."""
    ack = server.post("/v3/memories/add/", headers=key, json={"messages": [{"role": "user", "content": text}], **ids})
    assert ack.status_code == 200 and ack.json()["status"] == "PENDING", ack.text
    return str(ack.json()["event_id"])


def added(server: AppServer, key: Key, text: str, **ids: str) -> str:
    """Queue an add and let a worker store it (the state before the test's delete)."""
    event_id = queue(server, key, text, **ids)
    worker = start_worker(server)
    try:
        settle(server, key, [event_id])
    finally:
        worker.stop()
    assert event(server, key, event_id)["status"] == "SUCCEEDED"
    return event_id


def delete_user(server: AppServer, key: Key, user: str) -> None:
    deleted = server.request("DELETE", "/v1/memories/", headers=key, params={"user_id": user})
    assert deleted.status_code in (200, 204), deleted.text


@pytest.mark.parametrize("where", sorted(HOLDS))
def test_an_add_running_when_its_user_is_deleted_leaves_nothing(
    server: AppServer, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    key = platform_key(server)
    memory, events = parts(server)
    added(server, key, "I live in Lisbon and I work as a nurse.", user_id="ana")
    assert ("user", "ana") in entities(server, key) and found(server, key, "ana", "Lisbon")

    hold = HOLDS[where](memory, monkeypatch)
    doomed = queue(server, key, "I adopted a cat called Miso and I play the cello.", user_id="ana")
    worker = start_worker(server)
    try:
        hold.wait_for(1)
        assert events.get(doomed).status == RUNNING  # claimed: a queued-only cancel cannot reach it
        delete_user(server, key, "ana")
        hold.release()
        settle(server, key, [doomed])
    finally:
        worker.stop()

    shown = event(server, key, doomed)
    assert shown["status"] == "FAILED" and shown["error"] == CANCELLED_RUNNING_ERROR, shown
    assert "while it was being processed" in shown["error"]
    assert stored(server, key, "ana") == []
    assert found(server, key, "ana", "Miso the cat") == []
    assert found(server, key, "ana", "Lisbon") == []
    assert ("user", "ana") not in entities(server, key)
    planned = events.get(doomed).planned_ids or []
    assert bool(planned) == (where == "after_writing_vectors")  # held while extracting: refused before noting
    assert memory.components.vector_store.get(planned) == []  # no vector left behind, visible or not


def test_another_users_add_running_at_the_delete_is_not_cancelled(
    server: AppServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = platform_key(server)
    memory, _ = parts(server)
    added(server, key, "I live in Lisbon and I work as a nurse.", user_id="ana")

    hold = hold_after_writing_vectors(memory, monkeypatch)
    doomed = queue(server, key, "I adopted a cat called Miso.", user_id="ana")
    kept = queue(server, key, "I live in Porto and I play the cello.", user_id="ben")
    worker = start_worker(server, threads=2)
    try:
        hold.wait_for(2)  # both adds running, both with their vectors written
        delete_user(server, key, "ana")
        hold.release()
        settle(server, key, [doomed, kept])
    finally:
        worker.stop()

    assert event(server, key, doomed)["status"] == "FAILED"
    landed = event(server, key, kept)
    assert landed["status"] == "SUCCEEDED" and landed["error"] is None, landed
    assert stored(server, key, "ana") == []
    assert stored(server, key, "ben") == sorted(r["id"] for r in landed["results"]) != []
    assert any("Porto" in text for text in found(server, key, "ben", "Porto")), found(server, key, "ben", "Porto")
    assert entities(server, key).get(("user", "ben")) == len(landed["results"])


def test_an_add_accepted_after_the_delete_lands(server: AppServer, monkeypatch: pytest.MonkeyPatch) -> None:
    key = platform_key(server)
    memory, _ = parts(server)
    hold = hold_while_extracting(memory, monkeypatch)
    doomed = queue(server, key, "I adopted a cat called Miso.", user_id="ana")
    worker = start_worker(server)
    try:
        hold.wait_for(1)
        delete_user(server, key, "ana")
        later = queue(server, key, "I live in Porto and I play the cello.", user_id="ana")
        hold.release()
        settle(server, key, [doomed, later])
    finally:
        worker.stop()

    assert event(server, key, doomed)["status"] == "FAILED"
    landed = event(server, key, later)
    assert landed["status"] == "SUCCEEDED" and landed["results"], landed
    assert stored(server, key, "ana") == sorted(r["id"] for r in landed["results"])
    assert [text for text in found(server, key, "ana", "Miso the cat") if "Miso" in text] == []  # the doomed add's fact
    assert entities(server, key).get(("user", "ana")) == len(landed["results"])


def test_a_cancelled_add_takes_nothing_off_its_other_entities_counts(
    server: AppServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The delete of user ana sees the vectors of ana's running add (agent "coach" too) before
    they are committed; it must not count them off coach, which never counted them."""
    key = platform_key(server)
    memory, _ = parts(server)
    added(server, key, "I run ten kilometres every Sunday.", agent_id="coach")
    before = entities(server, key)[("agent", "coach")]

    hold = hold_after_writing_vectors(memory, monkeypatch)
    doomed = queue(server, key, "I adopted a cat called Miso.", user_id="ana", agent_id="coach")
    worker = start_worker(server)
    try:
        hold.wait_for(1)
        delete_user(server, key, "ana")
        hold.release()
        settle(server, key, [doomed])
    finally:
        worker.stop()

    assert event(server, key, doomed)["status"] == "FAILED"
    listed = server.get("/v1/memories/", headers=key, params={"agent_id": "coach"}).json()
    assert len(listed if isinstance(listed, list) else listed["results"]) == before
    assert entities(server, key).get(("agent", "coach")) == before


def test_a_stopped_add_whose_worker_died_is_ended_by_the_next_worker_without_running_it(
    server: AppServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its first worker noted its ids, was stopped by the delete, and its stalled vector write
    landed after the delete; then it died. The next worker removes those vectors and ends the
    event, without extracting again."""
    key = platform_key(server)
    memory, _ = parts(server)
    doomed = queue(server, key, "I adopted a cat called Miso.", user_id="ana")
    short = EventStore(memory.db, lease_seconds=0.5, max_attempts=3, backoff_seconds=0.0, max_pending=1000)
    claimed = short.claim("dying-worker")
    assert claimed is not None and claimed.id == doomed
    prepared = memory.adder.prepare(memory.add_request(**{**claimed.payload, "id_seed": claimed.id}))
    planned = [r.id for r in prepared.records]
    assert planned and short.plan(claimed, "dying-worker", planned)

    delete_user(server, key, "ana")
    memory.components.vector_store.upsert(prepared.records, prepared.vectors)  # the late write
    assert stored(server, key, "ana") == sorted(planned)  # visible, uncommitted, until a worker cleans up
    time.sleep(0.6)  # the dying worker's lease runs out

    extractions: list[str] = []
    model = memory.components.language_model
    extract = model.extract_detailed

    def counted(request: Any) -> Any:
        extractions.append(threading.current_thread().name)
        return extract(request)

    monkeypatch.setattr(model, "extract_detailed", counted)
    worker = start_worker(server)
    try:
        settle(server, key, [doomed])
    finally:
        worker.stop()

    shown = event(server, key, doomed)
    assert shown["status"] == "FAILED" and shown["error"] == CANCELLED_RUNNING_ERROR, shown
    assert stored(server, key, "ana") == [] and memory.components.vector_store.get(planned) == []
    assert ("user", "ana") not in entities(server, key)
    assert extractions == []
