"""Add size rules (issue 14, item 1) in process: large adds are queued, oversized adds are refused.

The thresholds are lowered so that the tests send small bodies; the rule is the same at the
defaults (``memorist.queue.admission``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import falcon.testing
import pytest
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.http import create_app
from memorist.plugin.manager import load_plugins
from memorist.tenancy import Tenancy

from tests.conftest import fast_settings
from tests.plugins import hashing

ADMIN_KEY = "admission-admin-key-0123456789abcdef"
ADMIN = {"X-API-Key": ADMIN_KEY}
LIMITS = {"sync_add_chars": 300, "max_add_chars": 3000, "max_add_messages": 20}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[falcon.testing.TestClient, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("admission")
    overrides = fast_settings(
        tmp, limits=LIMITS, queue={"workers": 1, "poll_seconds": 0.05}, auth={"admin_api_key": ADMIN_KEY}
    )
    application = create_app(load_settings(None, overrides), load_plugins({}, extra=[hashing]))
    db = Database(f"sqlite:///{tmp / 'memorist.db'}")
    tenancy = Tenancy(db)
    tenancy.create_org("Acme", org_id="acme")
    tenancy.create_project("acme", "Web", project_id="web")
    user = UserStore(db).create("owner", "owner@acme.test", "a long password 123")
    tenancy.set_member("web", user.id, "OWNER", create=True)
    _, key = ApiKeyStore(db).create(user.id, "test", kind="platform", org_id="acme", project_id="web")
    yield falcon.testing.TestClient(application), {"Authorization": f"Token {key}"}
    db.dispose()


def sentences(count: int, tag: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"My {tag} pet number {i} is a parrot called Kiwi{i}."} for i in range(count)]


def wait(client: falcon.testing.TestClient, path: str, headers: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        resp = client.simulate_get(path, headers=headers)
        assert resp.status_code == 200, resp.text
        if resp.json["status"] in ("SUCCEEDED", "FAILED"):
            return dict(resp.json)
        assert time.monotonic() < deadline, resp.json
        time.sleep(0.05)


def test_a_small_selfhosted_add_is_answered_at_once(app: Any) -> None:
    client, _ = app
    resp = client.simulate_post("/memories", headers=ADMIN, json={"messages": sentences(2, "small"), "user_id": "s"})
    assert resp.status_code == 200 and len(resp.json["results"]) == 2


def test_a_large_selfhosted_add_is_queued_and_stored_once(app: Any) -> None:
    client, _ = app
    messages = sentences(12, "large")  # about 560 characters: over sync_add_chars
    resp = client.simulate_post("/memories", headers=ADMIN, json={"messages": messages, "user_id": "big"})
    assert resp.status_code == 202, resp.text
    assert resp.json["results"] == [] and resp.json["status"] == "PENDING"
    event = wait(client, f"/events/{resp.json['event_id']}", ADMIN)
    assert event["status"] == "SUCCEEDED" and len(event["results"]) == 12
    listed = client.simulate_get("/memories", headers=ADMIN, params={"user_id": "big"}).json
    assert listed["count"] == 12
    assert sorted(r["id"] for r in listed["results"]) == sorted(r["id"] for r in event["results"])


def test_an_invalid_large_add_is_refused_before_queueing(app: Any) -> None:
    client, _ = app
    resp = client.simulate_post(
        "/memories", headers=ADMIN, json={"messages": sentences(12, "bad"), "user_id": "b", "timestamp": "not a date"}
    )
    assert resp.status_code == 400 and "timestamp" in resp.json["detail"]


@pytest.mark.parametrize(
    ("messages", "what"),
    [
        (sentences(21, "many"), "21 messages"),
        ([{"role": "user", "content": "x" * 3001}], "3001 characters"),
    ],
)
def test_an_oversized_add_is_refused_and_nothing_is_stored(app: Any, messages: Any, what: str) -> None:
    client, platform = app
    selfhosted = client.simulate_post("/memories", headers=ADMIN, json={"messages": messages, "user_id": "huge"})
    queued = client.simulate_post("/v3/memories/add/", headers=platform, json={"messages": messages, "user_id": "huge"})
    for resp in (selfhosted, queued):
        assert resp.status_code == 413, resp.text
        assert resp.json["detail"].startswith("messages: ") and what in resp.json["detail"]
    assert client.simulate_get("/memories", headers=ADMIN, params={"user_id": "huge"}).json["count"] == 0


def test_a_large_platform_add_without_inference_is_queued(app: Any) -> None:
    client, platform = app
    small = client.simulate_post(
        "/v3/memories/add/", headers=platform, json={"messages": sentences(1, "p"), "user_id": "p", "infer": False}
    )
    assert small.status_code == 200 and small.json["status"] == "SUCCEEDED"
    large = client.simulate_post(
        "/v3/memories/add/", headers=platform, json={"messages": sentences(12, "q"), "user_id": "q", "infer": False}
    )
    assert large.status_code == 200 and large.json["status"] == "PENDING", large.text
    event = wait(client, f"/v1/event/{large.json['event_id']}/", platform)
    assert event["status"] == "SUCCEEDED" and len(event["results"]) == 12


def test_selfhosted_events_do_not_show_platform_events(app: Any) -> None:
    client, platform = app
    resp = client.simulate_post("/v3/memories/add/", headers=platform, json={"messages": "I like tea", "user_id": "t"})
    assert client.simulate_get(f"/events/{resp.json['event_id']}", headers=ADMIN).status_code == 404
