"""Platform API version semantics through HTTP in process: event states, the ``infer=false``
acknowledgement, ``timestamp`` as ``created_at``, and the v1/v2 memory routes older clients call."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.db import Database
from memorist.events import EventStore
from memorist.http import create_app
from memorist.plugins import load_plugins
from memorist.settings import load_settings
from memorist.tenancy import Tenancy

from .conftest import fast_settings
from .plugins import hashing
from .test_platform_extras import _key


class Site:
    def __init__(self, tmp_path: Path, workers: int) -> None:
        overrides = fast_settings(tmp_path, queue={"workers": workers, "poll_seconds": 0.05})
        self.app = create_app(load_settings(None, overrides), load_plugins({}, extra=[hashing]))
        self.db = Database(f"sqlite:///{tmp_path / 'memorist.db'}")
        tenancy = Tenancy(self.db)
        tenancy.create_org("Acme", org_id="acme")
        tenancy.create_project("acme", "Web", project_id="web")
        self.client = falcon.testing.TestClient(self.app)
        self.owner = _key(self.db, "owner@acme.test", "acme", "web", "OWNER")

    def post(self, path: str, body: Any = None, **kw: Any) -> falcon.testing.Result:
        return self.client.simulate_post(path, headers=self.owner, json=body, **kw)

    def get(self, path: str, **kw: Any) -> falcon.testing.Result:
        return self.client.simulate_get(path, headers=self.owner, **kw)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """No queue workers: events stay where the test puts them."""
    s = Site(tmp_path_factory.mktemp("versions"), workers=0)
    yield s
    s.db.dispose()


def verbatim(site: Site, text: str, user_id: str, **extra: Any) -> dict[str, Any]:
    body = {"messages": [{"role": "user", "content": text}], "user_id": user_id, "infer": False, **extra}
    resp = site.post("/v3/memories/add/", body)
    assert resp.status_code == 200, resp.text
    return dict(resp.json)


# -- event states ------------------------------------------------------------------------
def test_a_claimed_event_shows_pending_never_running(site: Site) -> None:
    ack = site.post("/v3/memories/add/", {"messages": [{"role": "user", "content": "I like tea"}], "user_id": "ev1"})
    assert ack.status_code == 200 and ack.json["status"] == "PENDING"
    store = EventStore(site.db, lease_seconds=60, max_attempts=3, backoff_seconds=0, max_pending=100)
    claimed = store.claim("test-worker")
    assert claimed is not None and claimed.id == ack.json["event_id"] and claimed.status == "RUNNING"
    shown = site.get(f"/v1/event/{claimed.id}/")
    assert shown.status_code == 200 and shown.json["status"] == "PENDING"
    listed = site.get("/v1/events/")
    assert {e["status"] for e in listed.json["results"]} <= {"PENDING", "SUCCEEDED", "FAILED"}
    assert store.fail(claimed, "test-worker", "transient") == "PENDING"  # a retry stays PENDING as well
    assert site.get(f"/v1/event/{claimed.id}/").json["status"] == "PENDING"


def test_polling_while_pending_exits_only_when_memories_are_listable(tmp_path: Path) -> None:
    s = Site(tmp_path, workers=1)
    try:
        for round_ in range(3):
            user = f"poller{round_}"
            ack = s.post(
                "/v3/memories/add/",
                {"messages": [{"role": "user", "content": "My favourite colour is green."}], "user_id": user},
            )
            event_id, status, seen = ack.json["event_id"], ack.json["status"], set()
            deadline = time.monotonic() + 30
            while status == "PENDING" and time.monotonic() < deadline:  # the README's loop, polling fast
                status = s.get(f"/v1/event/{event_id}/").json["status"]
                seen.add(status)
            assert status == "SUCCEEDED" and seen <= {"PENDING", "SUCCEEDED"}
            listed = s.post("/v3/memories/", {"filters": {"user_id": user}})
            assert listed.json["count"] >= 1, "the loop exited before the memories were listable"
    finally:
        s.db.dispose()


# -- infer=false acknowledgement -------------------------------------------------------------
def test_infer_false_answers_with_a_succeeded_event(site: Site) -> None:
    ack = verbatim(site, "Bob plays chess on Sundays.", "bob-ack")
    assert ack["status"] == "SUCCEEDED" and ack["event_id"]
    assert ack["results"][0]["memory"] == "Bob plays chess on Sundays."
    event = site.get(f"/v1/event/{ack['event_id']}/")
    assert event.status_code == 200, event.text
    assert event.json["status"] == "SUCCEEDED"
    assert [r["id"] for r in event.json["results"]] == [ack["results"][0]["id"]]


# -- timestamp -------------------------------------------------------------------------------
def test_timestamp_becomes_created_at_and_observation_time_is_returned(site: Site) -> None:
    ack = verbatim(site, "Carol moved to Lisbon.", "carol-ts", timestamp=1_600_000_000)
    assert ack["results"][0]["created_at"].startswith("2020-09-13T12:26:40")
    assert ack["results"][0]["observed_at"].startswith("2020-09-13T12:26:40")
    memory = site.get(f"/v1/memories/{ack['results'][0]['id']}/").json
    assert memory["created_at"].startswith("2020-09-13T12:26:40")
    assert memory["observed_at"].startswith("2020-09-13T12:26:40")
    assert memory["updated_at"] > memory["created_at"]  # the write itself is now
    iso = verbatim(site, "Carol adopted a cat.", "carol-ts", timestamp="2021-03-04T05:06:07Z")
    assert iso["results"][0]["created_at"].startswith("2021-03-04T05:06:07")
    plain = verbatim(site, "Carol likes jazz.", "carol-ts")
    assert plain["results"][0]["created_at"] >= plain["results"][0]["observed_at"] > "2025"
