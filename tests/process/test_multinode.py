"""Scale-out: separate gunicorn masters over one PostgreSQL share everything."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.testing.server import ADMIN, Server

from tests.process.test_crash import crash_and_recover


def pg_env(url: str, **extra: str) -> dict[str, str]:
    return {"MEMORIST_DATABASE__URL": url, "MEMORIST_VECTOR_STORE__PROVIDER": "pgvector", **extra}


@pytest.fixture
def nodes(tmp_path: Path, pg_fresh_url: str) -> Iterator[tuple[Server, Server]]:  # noqa: F811
    # Node A runs no queue workers: whatever it accepts must be processed by node B.
    a = Server(tmp_path / "a", env=pg_env(pg_fresh_url, MEMORIST_QUEUE__WORKERS="0"), workers=2).start()
    b = Server(tmp_path / "b", env=pg_env(pg_fresh_url), workers=2).start()
    yield a, b
    a.stop()
    b.stop()


def test_two_nodes_share_memories_events_and_sessions(nodes: tuple[Server, Server]) -> None:
    a, b = nodes
    key = a.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": "Multi", "project_name": "P", "email": "multi@example.com"},
    ).json()["key"]
    headers = {"Authorization": f"Token {key}"}

    # Synchronous adds through A are searchable and deletable through B.
    added = a.post(
        "/memories",
        headers=ADMIN,
        json={
            "messages": [{"role": "user", "content": "I keep bees on the roof of my bakery.", "name": "Ida"}],
            "user_id": "ida",
        },
    ).json()["results"][0]
    found = b.post("/search", headers=ADMIN, json={"query": "bees on the roof", "user_id": "ida"}).json()["results"]
    assert found and found[0]["id"] == added["id"]
    assert b.request("DELETE", f"/memories/{added['id']}", headers=ADMIN).status_code == 200
    assert a.get(f"/memories/{added['id']}", headers=ADMIN).status_code == 404

    # Events submitted to A (no workers) are processed by B's workers.
    event_ids = [
        a.post(
            "/v3/memories/add/",
            headers=headers,
            json={
                "messages": [{"role": "user", "content": f"I ran {i} kilometres along the river."}],
                "user_id": "runner",
            },
        ).json()["event_id"]
        for i in range(6)
    ]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        statuses = {a.get(f"/v1/event/{e}/", headers=headers).json()["status"] for e in event_ids}
        if statuses == {"SUCCEEDED"}:
            break
        time.sleep(0.2)
    assert statuses == {"SUCCEEDED"}
    listed = b.post("/v3/memories/", headers=headers, json={"filters": {"user_id": "runner"}}).json()
    assert listed["count"] == 6

    # A dashboard session made on one node works on the other (tokens live in the database).
    assert (
        a.post(
            "/auth/users", headers=ADMIN, json={"name": "Ida", "email": "ida@example.com", "password": "ida-password"}
        ).status_code
        == 201
    )
    tokens = a.post("/auth/login", json={"email": "ida@example.com", "password": "ida-password"}).json()
    assert b.get("/auth/me", headers={"Authorization": f"Bearer {tokens['access_token']}"}).status_code == 200
    rotated = b.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]})
    assert rotated.status_code == 200
    assert a.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]}).status_code == 401


def test_kill9_mid_way_loses_nothing_on_postgres(tmp_path: Path, pg_fresh_url: str) -> None:  # noqa: F811
    crash_and_recover(tmp_path, pg_env(pg_fresh_url))
