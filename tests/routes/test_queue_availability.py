"""The queue under slow and hostile use (issue 14, items 3-4), through the platform add route in process.

- An add whose processing outlives the lease is processed once: the worker renews its lease
  while it works, so a second worker thread does not take it over and re-run it.
- ``max_attempts`` is enforced when claiming: an event whose every attempt ended with an
  expired lease (the worker died each time) becomes FAILED with a fixed message, not re-claimed.
- Per-organization pending quotas: one organization filling its budget does not refuse another
  organization's adds, however many projects it creates (issue 39, item 5), and no 429 reveals
  how deep the deployment's queue is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

import falcon.testing
import pytest
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.db.schema import events as events_table
from memorist.http import create_app
from memorist.kernel.add_worker import AddWorker
from memorist.plugin.contracts import Extraction, ExtractionRequest, LanguageModel
from memorist.plugin.hookspecs import hookimpl
from memorist.plugin.manager import load_plugins
from memorist.queue.events import EXHAUSTED_ERROR, FAILED, SUCCEEDED, EventStore
from memorist.records import utcnow
from memorist.tenancy import Tenancy
from memorist_heuristic.extractor import HeuristicExtractor
from sqlalchemy import update

from tests.conftest import fast_settings
from tests.plugins import hashing


class SlowModel(HeuristicExtractor):
    """The heuristic extractor, taking ``SlowModel.delay`` seconds per extraction (a slow LLM)."""

    name: ClassVar[str] = "slow"
    delay: ClassVar[float] = 0.0
    calls: ClassVar[int] = 0

    def extract_detailed(self, request: ExtractionRequest) -> Extraction:
        SlowModel.calls += 1
        time.sleep(SlowModel.delay)
        return super().extract_detailed(request)


class SlowPlugin:
    @hookimpl
    def register_language_models(self, register: Callable[[type[LanguageModel]], None]) -> None:
        register(SlowModel)


@dataclass
class Deployment:
    client: falcon.testing.TestClient
    db: Database
    keys: dict[str, dict[str, str]]

    def add(self, project: str, text: str, user_id: str = "alice") -> falcon.testing.Result:
        return self.client.simulate_post(
            "/v3/memories/add/",
            headers=self.keys[project],
            json={"messages": [{"role": "user", "content": text}], "user_id": user_id},
        )

    def event(self, project: str, event_id: str) -> dict[str, Any]:
        resp = self.client.simulate_get(f"/v1/event/{event_id}/", headers=self.keys[project])
        assert resp.status_code == 200, resp.text
        return dict(resp.json)


def _key(db: Database, email: str, org_id: str, project_id: str) -> dict[str, str]:
    user = UserStore(db).create(email.split("@")[0], email, "a long password 123")
    Tenancy(db).set_member(project_id, user.id, "OWNER", create=True)
    _, full = ApiKeyStore(db).create(user.id, "test", kind="platform", org_id=org_id, project_id=project_id)
    return {"Authorization": f"Token {full}"}


def deploy(tmp_path: Path, **settings: Any) -> Iterator[Deployment]:
    overrides = fast_settings(tmp_path, **settings)
    app = create_app(load_settings(None, overrides), load_plugins({}, extra=[hashing, SlowPlugin()]))
    db = Database(f"sqlite:///{tmp_path / 'memorist.db'}")
    tenancy = Tenancy(db)
    keys = {}
    for org, project in (("acme", "web"), ("globex", "api")):
        tenancy.create_org(org.title(), org_id=org)
        tenancy.create_project(org, project.title(), project_id=project)
        keys[project] = _key(db, f"owner@{org}.test", org, project)
    yield Deployment(falcon.testing.TestClient(app), db, keys)
    db.dispose()


@pytest.fixture
def slow_model() -> Iterator[type[SlowModel]]:
    SlowModel.delay, SlowModel.calls = 0.0, 0
    yield SlowModel
    SlowModel.delay, SlowModel.calls = 0.0, 0


def test_an_add_slower_than_its_lease_is_processed_once(tmp_path: Path, slow_model: type[SlowModel]) -> None:
    """Two queue threads, a 0.6 s lease, an extraction of 2.5 s: the lease is renewed, no second run."""
    slow_model.delay = 2.5
    dep = next(
        deploy(
            tmp_path,
            language_model={"provider": "slow"},
            queue={"workers": 2, "lease_seconds": 0.6, "poll_seconds": 0.05, "max_attempts": 5},
        )
    )
    resp = dep.add("web", "I keep seven copper lanterns in the attic.")
    assert resp.status_code == 200, resp.text
    event_id = resp.json["event_id"]
    deadline = time.monotonic() + 30
    while (event := dep.event("web", event_id))["status"] not in (SUCCEEDED, FAILED):
        assert time.monotonic() < deadline, event
        time.sleep(0.1)
    assert event["status"] == SUCCEEDED, event
    assert event["attempts"] == 1 and slow_model.calls == 1
    assert len(event["results"]) == 1 and "copper lanterns" in event["results"][0]["data"]["memory"]


def test_an_event_whose_attempts_all_expired_fails_at_claim(tmp_path: Path) -> None:
    """A worker that dies mid-add every time: after ``max_attempts`` the event is FAILED, not re-run."""
    dep = next(deploy(tmp_path, queue={"workers": 0, "lease_seconds": 0.5, "max_attempts": 3}))
    event_id = dep.add("web", "I collect antique maps of the Baltic.").json["event_id"]
    events = EventStore(dep.db, lease_seconds=0.5, max_attempts=3, backoff_seconds=0.0, max_pending=100)
    for attempt in range(1, 4):  # each claimant "dies": its lease runs out
        claimed = events.claim(f"doomed-{attempt}")
        assert claimed is not None and claimed.attempts == attempt
        time.sleep(0.6)
    assert dep.event("web", event_id)["status"] == "PENDING"  # expired, not yet noticed (RUNNING shows as PENDING)
    assert events.claim("survivor") is None  # the 4th claim is refused ...
    event = dep.event("web", event_id)
    assert event["status"] == FAILED and event["attempts"] == 3  # ... and the event is FAILED
    assert event["error"] == EXHAUSTED_ERROR  # fixed text: no paths, no exception internals
    worker = AddWorker(lambda: None, events, threads=1, poll_seconds=0.01)  # type: ignore[arg-type,return-value]
    assert worker.run_once() is False


def test_one_organization_filling_its_quota_does_not_refuse_another(tmp_path: Path) -> None:
    dep = next(deploy(tmp_path, queue={"workers": 0, "max_pending": 3, "max_pending_per_org": 2}))
    assert [dep.add("web", f"fact number {i}").status_code for i in range(2)] == [200, 200]
    refused = dep.add("web", "one too many")
    assert refused.status_code == 429 and refused.headers.get("Retry-After")
    assert "organization" in refused.json["detail"]
    assert dep.add("api", "the other tenant still gets in").status_code == 200
    full = dep.add("api", "now the deployment budget is used up")
    assert full.status_code == 429
    for answer in (refused, full):  # neither says how many events wait, nor the global limit
        assert not re.search(r"\d", answer.json["detail"]), answer.json["detail"]


def test_new_projects_do_not_multiply_an_organizations_queue_budget(tmp_path: Path) -> None:
    """An OWNER creating projects gets no more queue: a fresh tenant's first add is still accepted.

    With a budget per project, acme's OWNER filled two projects (2 + 2 = the deployment's 4)
    and globex's first add was refused.
    """
    dep = next(deploy(tmp_path, queue={"workers": 0, "max_pending": 4, "max_pending_per_org": 2}))
    assert [dep.add("web", f"fact number {i}").status_code for i in range(2)] == [200, 200]
    made = dep.client.simulate_post(
        "/api/v1/orgs/organizations/acme/projects/", headers=dep.keys["web"], json={"name": "Spare"}
    )
    assert made.status_code == 201, made.text
    spare = made.json["project_id"]
    for i in range(2):
        refused = dep.client.simulate_post(
            "/v3/memories/add/",
            headers=dep.keys["web"],
            json={
                "messages": [{"role": "user", "content": f"spare fact {i}"}],
                "user_id": "alice",
                "project_id": spare,
            },
        )
        assert refused.status_code == 429, refused.text  # the organization's budget, not a fresh one
        assert "organization" in refused.json["detail"] and refused.headers.get("Retry-After")
    assert dep.add("api", "the other tenant's first add").status_code == 200


def test_finished_events_past_their_retention_are_pruned(tmp_path: Path) -> None:
    """Each event keeps a copy of its add's messages: finished ones are deleted after queue.retention_days."""
    dep = next(deploy(tmp_path, queue={"workers": 0}))
    done_id = dep.add("web", "I sail a small wooden boat.").json["event_id"]
    waiting_id = dep.add("web", "I bake rye bread on Sundays.").json["event_id"]
    events = EventStore(dep.db, lease_seconds=30, max_attempts=3, backoff_seconds=0.0, max_pending=100)
    assert events.prune(timedelta(days=30)) == 0  # nothing old enough
    with dep.db.begin() as conn:  # finish it long ago
        conn.execute(
            update(events_table)
            .where(events_table.c.id == done_id)
            .values(status=SUCCEEDED, finished_at=utcnow() - timedelta(days=31))
        )
    assert events.prune(timedelta(days=30)) == 1
    assert dep.client.simulate_get(f"/v1/event/{done_id}/", headers=dep.keys["web"]).status_code == 404
    assert dep.event("web", waiting_id)["status"] == "PENDING"  # unfinished events are never pruned


def test_projects_take_turns_at_the_workers(tmp_path: Path) -> None:
    """A project with a backlog gets one worker while another project's add waits, not all of them."""
    dep = next(deploy(tmp_path, queue={"workers": 0}))
    backlog = [dep.add("web", f"Backlog fact number {i}.").json["event_id"] for i in range(5)]
    newcomer = dep.add("api", "A fact from the other tenant.").json["event_id"]
    events = EventStore(dep.db, lease_seconds=30, max_attempts=3, backoff_seconds=0.0, max_pending=100)
    first, second, third = (events.claim(f"w{i}") for i in range(3))
    assert first is not None and first.id == backlog[0]
    assert second is not None and second.id == newcomer  # not backlog[1], although older
    assert third is not None and third.id == backlog[1]  # nobody else waits: the backlog goes on


def test_claims_on_postgresql_take_turns_and_fail_exhausted_events(pg_fresh_url: str) -> None:
    """The same claim rules on PostgreSQL (FOR UPDATE SKIP LOCKED), where the scale-out deployment queues."""
    db = Database(pg_fresh_url)
    db.upgrade()
    try:
        events = EventStore(db, lease_seconds=0.5, max_attempts=2, backoff_seconds=0.0, max_pending=100)
        busy = [events.submit("acme", "web", {"messages": "a"}).id for _ in range(3)]
        other = events.submit("globex", "api", {"messages": "b"}).id
        first, second = events.claim("w1"), events.claim("w2")
        assert first is not None and second is not None
        assert (first.id, second.id) == (busy[0], other)
        time.sleep(0.6)  # both leases expire: attempt 1 of 2 used
        assert {e.id for e in (events.claim("w3"), events.claim("w4")) if e} == {busy[0], other}
        time.sleep(0.6)  # expired again, attempts used up: FAILED at the next claim, never re-run
        nxt = events.claim("w5")
        assert nxt is not None and nxt.id == busy[1]
        for event_id in (busy[0], other):
            failed = events.get(event_id)
            assert failed.status == FAILED and failed.error == EXHAUSTED_ERROR and failed.attempts == 2
    finally:
        db.dispose()
