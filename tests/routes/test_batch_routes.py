"""Batch adds on both HTTP surfaces (issue 17, bulk import doors), in process.

``POST /memories/batch`` and ``POST /v3/memories/add/batch/``: one answer per item
shaped as a single add's, every item checked before anything is stored (a 4xx
naming the item), 413 past the batch caps, the scope and auth rules per item, and
the queued path polled to SUCCEEDED. Limits are lowered so the bodies stay small;
the rules are the same at the defaults (``memorist.operations.batch``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import falcon.testing
import pytest
from memorist import Engine
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.http import create_app
from memorist.plugin.manager import load_plugins
from memorist.queue.events import PENDING, SUCCEEDED, EventStore, QueueFull
from memorist.tenancy import Tenancy

from tests.conftest import fast_settings
from tests.plugins import hashing, recorder

ADMIN_KEY = "batch-admin-key-0123456789abcdef"
ADMIN = {"X-API-Key": ADMIN_KEY}
LIMITS = {"sync_add_chars": 400, "max_add_chars": 3000, "max_add_messages": 20, "max_batch_items": 8}
LIMITS["max_batch_chars"] = 5000
Client = falcon.testing.TestClient


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, dict[str, dict[str, str]]]]:
    tmp = tmp_path_factory.mktemp("batch")
    overrides = fast_settings(
        tmp, limits=LIMITS, queue={"workers": 1, "poll_seconds": 0.05}, auth={"admin_api_key": ADMIN_KEY}
    )
    application = create_app(load_settings(None, overrides), load_plugins({}, extra=[hashing, recorder]))
    db = Database(f"sqlite:///{tmp / 'memorist.db'}")
    tenancy, users, keys = Tenancy(db), UserStore(db), ApiKeyStore(db)
    tenancy.create_org("Acme", org_id="acme")
    tenancy.create_project("acme", "Web", project_id="web")
    tenancy.create_project("acme", "App", project_id="app")
    owner = users.create("owner", "owner@acme.test", "a long password 123")
    reader = users.create("reader", "reader@acme.test", "a long password 123")
    tenancy.set_member("web", owner.id, "OWNER", create=True)
    tenancy.set_member("app", owner.id, "OWNER", create=True)
    tenancy.set_member("web", reader.id, "READER", create=True)
    tokens = {
        "web": keys.create(owner.id, "web", kind="platform", org_id="acme", project_id="web")[1],
        "app": keys.create(owner.id, "app", kind="platform", org_id="acme", project_id="app")[1],
        "reader": keys.create(reader.id, "r", kind="platform", org_id="acme", project_id="web")[1],
    }
    yield Client(application), {name: {"Authorization": f"Token {key}"} for name, key in tokens.items()}
    db.dispose()


def item(user: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}], "user_id": user, **extra}


def count(client: Client, user: str) -> int:
    return int(client.simulate_get("/memories", headers=ADMIN, params={"user_id": user}).json["count"])


def platform_count(client: Client, headers: dict[str, str], user: str) -> int:
    resp = client.simulate_post("/v3/memories/", headers=headers, json={"filters": {"user_id": user}})
    assert resp.status_code == 200, resp.text
    return int(resp.json["count"])


def wait(client: Client, path: str, headers: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        resp = client.simulate_get(path, headers=headers)
        assert resp.status_code == 200, resp.text
        if resp.json["status"] in ("SUCCEEDED", "FAILED"):
            return dict(resp.json)
        assert time.monotonic() < deadline, resp.json
        time.sleep(0.05)


# -- self-hosted ---------------------------------------------------------------------------
def test_a_small_batch_answers_each_add_as_a_single_add_would(app: Any) -> None:
    client, _ = app
    items = [
        item("sb-1", "I live in Lisbon and work as a carpenter.", infer=False),
        item("sb-2", "My sister plays the cello.", infer=False),
        item("sb-1", "I live in Lisbon and work as a carpenter.", infer=False),  # repeats the first
    ]
    resp = client.simulate_post("/memories/batch", headers=ADMIN, json={"items": items})
    assert resp.status_code == 200, resp.text
    answers = resp.json["items"]
    assert len(answers) == 3
    assert [r["memory"] for r in answers[0]["results"]] == ["I live in Lisbon and work as a carpenter."]
    assert set(answers[0]["results"][0]) == {"id", "memory", "event"}
    assert answers[1]["results"][0]["memory"] == "My sister plays the cello."
    # The third repeats the first in the same scope: merged into it, as a single add would be.
    assert answers[2]["results"] == [] and answers[2]["merged"][0]["memory_id"] == answers[0]["results"][0]["id"]
    single = client.simulate_post(
        "/memories", headers=ADMIN, json=item("sb-2", "My sister plays the cello.", infer=False)
    ).json
    assert set(single) == set(answers[2]) and single["merged"][0]["memory_id"] == answers[1]["results"][0]["id"]
    assert count(client, "sb-1") == 1 and count(client, "sb-2") == 1
    added = {memory_id for kind, memory_id, _ in recorder.EVENTS if kind == "added"}
    assert {answers[0]["results"][0]["id"], answers[1]["results"][0]["id"]} <= added  # plugins hear batch adds


def test_a_bad_item_is_named_and_nothing_is_stored(app: Any) -> None:
    client, _ = app
    good = item("bad-batch", "I keep bees on the roof.", infer=False)
    no_scope = {"messages": [{"role": "user", "content": "Nobody owns this."}]}
    resp = client.simulate_post("/memories/batch", headers=ADMIN, json={"items": [good, good, no_scope]})
    assert resp.status_code == 400 and resp.json["detail"].startswith("items[2].user_id: "), resp.text
    bad_date = item("bad-batch", "I keep wasps too.", timestamp="not a date")
    resp = client.simulate_post("/memories/batch", headers=ADMIN, json={"items": [good, bad_date]})
    assert resp.status_code == 400 and resp.json["detail"].startswith("items[1].timestamp: "), resp.text
    bad_role = {"messages": [{"role": "robot", "content": "beep"}], "user_id": "bad-batch"}
    resp = client.simulate_post("/memories/batch", headers=ADMIN, json={"items": [good, bad_role]})
    assert resp.status_code == 422 and resp.json["detail"].startswith("items.1.messages.0.role"), resp.text
    resp = client.simulate_post("/memories/batch", headers=ADMIN, json={"items": []})
    assert resp.status_code == 422 and resp.json["detail"].startswith("items")
    assert count(client, "bad-batch") == 0


@pytest.mark.parametrize(
    ("items", "start", "what"),
    [
        ([item("cap", f"Fact {i}.") for i in range(9)], "items: ", "limits.max_batch_items"),
        ([item("cap", "x" * 2000) for _ in range(3)], "items: ", "limits.max_batch_chars"),
        ([item("cap", "ok"), item("cap", "y" * 3001)], "items[1].messages: ", "3001 characters"),
    ],
)
def test_a_batch_past_a_cap_is_413_naming_the_limit(app: Any, items: Any, start: str, what: str) -> None:
    client, platform = app
    selfhosted = client.simulate_post("/memories/batch", headers=ADMIN, json={"items": items})
    v3 = client.simulate_post("/v3/memories/add/batch/", headers=platform["web"], json={"items": items})
    for resp in (selfhosted, v3):
        assert resp.status_code == 413, resp.text
        assert resp.json["detail"].startswith(start) and what in resp.json["detail"]
    assert count(client, "cap") == 0 and platform_count(client, platform["web"], "cap") == 0


def test_a_large_batch_is_queued_one_event_per_item(app: Any) -> None:
    client, _ = app
    items = [item(f"q-{i}", f"My {i}th favourite river is the Danube, which I cross by ferry daily.") for i in range(6)]
    resp = client.simulate_post("/memories/batch", headers=ADMIN, json={"items": items})  # ~420 chars > 400
    assert resp.status_code == 202, resp.text
    answers = resp.json["items"]
    assert all(a["results"] == [] and a["status"] == "PENDING" for a in answers)
    assert len({a["event_id"] for a in answers}) == 6
    for i, answer in enumerate(answers):
        event = wait(client, f"/events/{answer['event_id']}", ADMIN)
        assert event["status"] == "SUCCEEDED" and event["results"], event
        assert {r["user_id"] for r in event["results"]} == {f"q-{i}"}
        assert count(client, f"q-{i}") == len(event["results"])


def test_the_batch_route_needs_a_credential(app: Any) -> None:
    client, _ = app
    resp = client.simulate_post("/memories/batch", json={"items": [item("anon", "I like tea.")]})
    assert resp.status_code == 401
    assert count(client, "anon") == 0


# -- platform --------------------------------------------------------------------------------
def test_platform_batch_acknowledges_each_add_with_its_own_event(app: Any) -> None:
    client, platform = app
    items = [
        item("pv-1", "I run a bakery in Porto.", infer=False),
        item("pv-2", "My dog is called Biscuit and loves the beach."),
        item("pv-1", "I bake sourdough every morning.", infer=False),
    ]
    resp = client.simulate_post("/v3/memories/add/batch/", headers=platform["web"], json={"items": items})
    assert resp.status_code == 200, resp.text
    first, second, third = resp.json["items"]
    for done in (first, third):  # infer=false: stored at once, a born-finished event
        assert done["status"] == "SUCCEEDED" and done["results"][0]["user_id"] == "pv-1"
        event = client.simulate_get(f"/v1/event/{done['event_id']}/", headers=platform["web"]).json
        assert event["status"] == "SUCCEEDED" and event["results"][0]["id"] == done["results"][0]["id"]
    assert second["status"] == "PENDING" and "results" not in second  # infer=true: queued, as the v3 add
    event = wait(client, f"/v1/event/{second['event_id']}/", platform["web"])
    assert event["status"] == "SUCCEEDED" and event["results"][0]["user_id"] == "pv-2"
    listed = client.simulate_get("/v1/events/", headers=platform["web"]).json["results"]
    assert {first["event_id"], second["event_id"], third["event_id"]} <= {e["id"] for e in listed}
    assert platform_count(client, platform["web"], "pv-1") == 2


def test_platform_batch_items_land_in_the_keys_project_only(app: Any) -> None:
    client, platform = app
    sneaky = item("scoped", "I collect stamps.", infer=False, org_id="other", project_id="app")
    resp = client.simulate_post("/v3/memories/add/batch/", headers=platform["web"], json={"items": [sneaky]})
    assert resp.status_code == 200, resp.text
    assert platform_count(client, platform["web"], "scoped") == 1
    assert platform_count(client, platform["app"], "scoped") == 0
    assert count(client, "scoped") == 0  # not in the self-hosted (default) project either


def test_platform_batch_refuses_readers_and_names_bad_items(app: Any) -> None:
    client, platform = app
    good = item("pbad", "I sail on weekends.", infer=False)
    resp = client.simulate_post("/v3/memories/add/batch/", headers=platform["reader"], json={"items": [good]})
    assert resp.status_code == 403, resp.text
    no_scope = {"messages": [{"role": "user", "content": "Whose?"}], "infer": False}
    resp = client.simulate_post("/v3/memories/add/batch/", headers=platform["web"], json={"items": [good, no_scope]})
    assert resp.status_code == 400 and resp.json["detail"].startswith("items[1].user_id: "), resp.text
    bad_filter = {**good, "user_id": None, "filters": {"user_id": 7}}
    resp = client.simulate_post("/v3/memories/add/batch/", headers=platform["web"], json={"items": [bad_filter]})
    assert resp.status_code == 400 and resp.json["detail"].startswith("items[0].filters.user_id: "), resp.text
    before = client.simulate_get("/v1/events/", headers=platform["web"]).json["count"]
    queued_then_bad = [item("pbad", "I sail to Madeira."), no_scope]  # the infer=true item is not queued either
    resp = client.simulate_post("/v3/memories/add/batch/", headers=platform["web"], json={"items": queued_then_bad})
    assert resp.status_code == 400
    assert client.simulate_get("/v1/events/", headers=platform["web"]).json["count"] == before
    assert platform_count(client, platform["web"], "pbad") == 0


def test_a_queued_batch_fits_the_queue_whole_or_is_refused_whole(tmp_path_factory: pytest.TempPathFactory) -> None:
    engine = Engine.from_config(
        fast_settings(tmp_path_factory.mktemp("budget")), plugins=load_plugins({}, extra=[hashing])
    )
    events = EventStore(
        engine.db, lease_seconds=30, max_attempts=3, backoff_seconds=0, max_pending=100, max_pending_per_org=3
    )
    try:
        payloads = [{"messages": "x", "user_id": f"u{i}"} for i in range(4)]
        with pytest.raises(QueueFull, match="batch of 4 adds does not fit"):
            events.submit_many("acme", "web", payloads)
        assert events.backlog("acme", "web") == 0  # nothing of the refused batch was queued
        queued = events.submit_many("acme", "web", payloads[:3])
        assert [e.status for e in queued] == [PENDING] * 3 and events.backlog("acme", "web") == 3
        assert [events.get(e.id).payload["user_id"] for e in queued] == ["u0", "u1", "u2"]
        claimed = [events.claim("w") for _ in queued]  # workers take a batch in its order
        assert [e.payload["user_id"] for e in claimed if e is not None] == ["u0", "u1", "u2"]
        done = events.record_many("acme", "app", [(payloads[0], [{"id": "m1"}])])
        assert events.get(done[0].id).status == SUCCEEDED and events.get(done[0].id).results == [{"id": "m1"}]
    finally:
        engine.close()
