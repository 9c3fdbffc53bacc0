"""A delete-all of an entity cancels its adds still queued: none brings a memory back after it.

Asynchronous platform adds wait in the durable queue. Before, one accepted just before
``DELETE /v1/memories/?user_id=X`` was processed after it, and X had a memory again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.queue.events import CANCELLED_ERROR
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN


@pytest.fixture
def server(tmp_path: Path) -> Iterator[AppServer]:
    # No queue threads: the adds stay queued until the test starts a worker itself.
    with AppServer(tmp_path / "data", {"MEMORIST_QUEUE__WORKERS": "0", "MEMORIST_QUEUE__POLL_SECONDS": "0.05"}) as srv:
        yield srv


def platform_key(server: AppServer) -> dict[str, str]:
    made = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": "Acme", "project_name": "Web", "email": "o@acme.test", "role": "OWNER"},
    )
    assert made.status_code == 201, made.text
    return {"Authorization": f"Token {made.json()['key']}"}


def queue_add(server: AppServer, key: dict[str, str], user: str, text: str) -> str:
    ack = server.post(
        "/v3/memories/add/", headers=key, json={"messages": [{"role": "user", "content": text}], "user_id": user}
    )
    assert ack.status_code == 200 and ack.json()["status"] == "PENDING", ack.text
    return str(ack.json()["event_id"])


def event(server: AppServer, key: dict[str, str], event_id: str) -> dict:
    return dict(server.get(f"/v1/event/{event_id}/", headers=key).json())


def test_an_add_queued_before_a_delete_all_is_cancelled_and_stores_nothing(server: AppServer) -> None:
    key = platform_key(server)
    doomed = queue_add(server, key, "ana", "I live in Lisbon and I work as a nurse.")
    kept = queue_add(server, key, "ben", "I live in Porto and I play the cello.")

    deleted = server.request("DELETE", "/v1/memories/", headers=key, params={"user_id": "ana"})
    assert deleted.status_code in (200, 204), deleted.text
    cancelled = event(server, key, doomed)
    assert cancelled["status"] == "FAILED" and CANCELLED_ERROR in str(cancelled.get("error") or cancelled), cancelled
    assert event(server, key, kept)["status"] == "PENDING"  # another user's add is untouched

    assert server.kernel is not None
    worker = server.kernel.worker(1)
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while event(server, key, kept)["status"] != "SUCCEEDED":
            assert time.monotonic() < deadline, event(server, key, kept)
            time.sleep(0.05)
    finally:
        worker.stop()
    assert event(server, key, doomed)["status"] == "FAILED"  # never run
    listed = server.get("/v1/memories/", headers=key, params={"user_id": "ana"}).json()
    assert (listed if isinstance(listed, list) else listed.get("results", [])) == []
    ben = server.get("/v1/memories/", headers=key, params={"user_id": "ben"}).json()
    stored = " ".join(item["memory"] for item in (ben if isinstance(ben, list) else ben["results"]))
    assert "Porto" in stored and "cello" in stored, stored  # the other user's add stored whole

    # An add accepted after the delete is an ordinary add.
    later = queue_add(server, key, "ana", "I adopted a cat called Miso.")
    assert event(server, key, later)["status"] == "PENDING"
