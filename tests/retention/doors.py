"""The ways into Memorist the retention suite goes through: the Python API and both HTTP
surfaces in process (``falcon.testing.TestClient`` on ``create_app``)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import falcon.testing
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.db import Database
from memorist.operations.wire import MergedInput, SkippedPart
from memorist.python.engine import Engine
from memorist.tenancy import Tenancy

from .suite import USER, AddAnswer


@dataclass
class PythonDoor:
    memory: Engine
    user_id: str = USER

    def add(self, messages: list[dict[str, Any]]) -> AddAnswer:
        outcome = self.memory.add_outcome(messages, user_id=self.user_id)
        return AddAnswer(
            [{"id": r.id, "memory": r.text} for r in outcome.stored],
            [MergedInput.of(m).wire() for m in outcome.merged],
            [SkippedPart.of(s).wire() for s in outcome.skipped],
        )

    def search(self, query: str, top_k: int) -> list[dict[str, Any]]:
        return [
            {"id": h.record.id, "memory": h.record.text}
            for h in self.memory.search(query, user_id=self.user_id, top_k=top_k)
        ]


@dataclass
class SelfHostedDoor:
    """``POST /memories`` and ``POST /search`` with authentication disabled."""

    client: falcon.testing.TestClient
    user_id: str = USER

    def add(self, messages: list[dict[str, Any]]) -> AddAnswer:
        resp = self.client.simulate_post("/memories", json={"messages": messages, "user_id": self.user_id})
        assert resp.status_code == 200, resp.text
        body = resp.json
        return AddAnswer(body["results"], body.get("merged", []), body.get("skipped", []))

    def search(self, query: str, top_k: int) -> list[dict[str, Any]]:
        resp = self.client.simulate_post("/search", json={"query": query, "user_id": self.user_id, "top_k": top_k})
        assert resp.status_code == 200, resp.text
        return list(resp.json["results"])


def platform_key(data_dir: Path, org_id: str = "acme", project_id: str = "web") -> dict[str, str]:
    """An organization, a project and an owner's platform key, made in the app's database."""
    db = Database(f"sqlite:///{data_dir / 'memorist.db'}")
    try:
        tenancy = Tenancy(db)
        tenancy.create_org("Acme", org_id=org_id)
        tenancy.create_project(org_id, "Web", project_id=project_id)
        user = UserStore(db).create("owner", "owner@acme.test", "a long password 123")
        tenancy.set_member(project_id, user.id, "OWNER", create=True)
        _, full = ApiKeyStore(db).create(user.id, "retention", kind="platform", org_id=org_id, project_id=project_id)
    finally:
        db.dispose()
    return {"Authorization": f"Token {full}"}


@dataclass
class PlatformDoor:
    """``POST /v3/memories/add/`` (queued; the event is polled until it ends) and
    ``POST /v3/memories/search/``, with a platform key."""

    client: falcon.testing.TestClient
    headers: dict[str, str]
    user_id: str = USER
    timeout: float = 60.0

    def add(self, messages: list[dict[str, Any]]) -> AddAnswer:
        resp = self.client.simulate_post(
            "/v3/memories/add/", json={"messages": messages, "user_id": self.user_id}, headers=self.headers
        )
        assert resp.status_code == 200, resp.text
        event_id = resp.json["event_id"]
        deadline = time.monotonic() + self.timeout
        while True:
            event = self.client.simulate_get(f"/v1/event/{event_id}/", headers=self.headers).json
            if event["status"] in ("SUCCEEDED", "FAILED"):
                break
            assert time.monotonic() < deadline, f"event {event_id} still {event['status']}"
            time.sleep(0.005)
        assert event["status"] == "SUCCEEDED", event
        # The event shows the stored memories in ``results``, and what it merged or skipped beside them.
        stored = [{"id": r["id"], "memory": r["data"]["memory"]} for r in event["results"] if r["event"] == "ADD"]
        return AddAnswer(stored, event.get("merged", []), event.get("skipped", []))

    def search(self, query: str, top_k: int) -> list[dict[str, Any]]:
        resp = self.client.simulate_post(
            "/v3/memories/search/",
            json={"query": query, "filters": {"user_id": self.user_id}, "top_k": top_k},
            headers=self.headers,
        )
        assert resp.status_code == 200, resp.text
        return list(resp.json["results"])
