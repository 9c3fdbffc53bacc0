"""Platform API version semantics through HTTP in process: event states, the ``infer=false``
acknowledgement, ``timestamp`` as ``created_at``, and the v1/v2 memory routes older clients call."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.http import create_app
from memorist.plugin.manager import load_plugins
from memorist.queue.events import EventStore
from memorist.tenancy import Tenancy

from tests.conftest import fast_settings
from tests.plugins import hashing
from tests.routes.test_platform_extras import _key


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


# -- v1/v2 routes ----------------------------------------------------------------------------
def v1_add(site: Site, text: str, user_id: str, **extra: Any) -> Any:
    body = {"messages": [{"role": "user", "content": text}], "user_id": user_id, "infer": False, **extra}
    resp = site.post("/v1/memories/", body)
    assert resp.status_code == 200, resp.text
    return resp.json


def test_v1_add_is_synchronous_and_listable_at_once(site: Site) -> None:
    answer = v1_add(site, "Dave sails on Lake Geneva.", "dave-v1", output_format="v1.1", async_mode=True)
    assert "event_id" not in answer and answer["results"][0]["memory"] == "Dave sails on Lake Geneva."
    old = v1_add(site, "Dave owns a red boat.", "dave-v1", output_format="v1.0")
    assert isinstance(old, list) and old[0]["event"] == "ADD"
    listed = site.get("/v1/memories/", params={"user_id": "dave-v1", "org_id": "acme", "project_id": "web"})
    assert listed.status_code == 200, listed.text
    assert isinstance(listed.json, list)  # v1 list: a bare array, not the envelope
    assert {m["memory"] for m in listed.json} == {"Dave sails on Lake Geneva.", "Dave owns a red boat."}
    assert site.get("/v1/memories/", params={"user_id": "nobody-v1"}).json == []


def test_v2_list_takes_filters_or_top_level_ids_and_answers_an_array(site: Site) -> None:
    v1_add(site, "Erin grows tomatoes.", "erin-v2")
    v1_add(site, "Frank grows peppers.", "frank-v2")
    by_filter = site.post("/v2/memories/", {"filters": {"AND": [{"user_id": "erin-v2"}]}})
    assert by_filter.status_code == 200, by_filter.text
    assert [m["memory"] for m in by_filter.json] == ["Erin grows tomatoes."]
    top = site.post("/v2/memories/", {"user_id": "frank-v2", "org_id": "acme", "project_id": "web"})
    assert [m["memory"] for m in top.json] == ["Frank grows peppers."]
    paged = site.post("/v2/memories/", {"filters": {"user_id": "erin-v2"}}, params={"page": 1, "page_size": 1})
    assert isinstance(paged.json, list) and len(paged.json) == 1


@pytest.mark.parametrize("path", ["/v1/memories/search/", "/v2/memories/search/"])
def test_v1_v2_search_defaults_no_threshold_rerank_on_bare_array(
    site: Site, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memorist.engine.search import HybridSearch

    seen: list[tuple[float, bool]] = []
    original = HybridSearch.search

    def spy(self: HybridSearch, *args: Any, **kwargs: Any) -> Any:
        seen.append((kwargs["threshold"], kwargs["rerank"]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(HybridSearch, "search", spy)
    user = "gina" + path.split("/")[1]
    v1_add(site, "Gina's cat is called Pixel.", user)
    v1_add(site, "Gina works at the observatory in Porto.", user)
    legacy = site.post(path, {"query": "unrelated words entirely", "user_id": user})
    assert legacy.status_code == 200, legacy.text
    assert isinstance(legacy.json, list) and len(legacy.json) == 2  # no threshold: every memory, a bare array
    site.post("/v3/memories/search/", {"query": "unrelated words entirely", "filters": {"user_id": user}})
    assert seen == [(0.0, True), (0.1, False)]  # v1/v2: no cut, rerank on; v3: 0.1, rerank off
    assert site.post(path, {"query": "Pixel", "user_id": user, "threshold": 0.99}).json == []
    chosen = site.post(path, {"query": "Pixel cat", "filters": {"user_id": user}, "rerank": False})
    assert chosen.json[0]["memory"] == "Gina's cat is called Pixel." and seen[-1] == (0.0, False)


def test_v1_search_enable_graph_adds_relations(site: Site) -> None:
    v1_add(site, "Ivan visited Kyoto with Marta.", "ivan-g")
    plain = site.post("/v1/memories/search/", {"query": "Kyoto", "user_id": "ivan-g"})
    assert isinstance(plain.json, list)
    graph = site.post("/v1/memories/search/", {"query": "Kyoto", "user_id": "ivan-g", "enable_graph": True})
    assert graph.status_code == 200, graph.text
    assert graph.json["results"][0]["memory"] == "Ivan visited Kyoto with Marta."
    destinations = {r["destination"] for r in graph.json["relations"]}
    assert any("Kyoto" in d for d in destinations), graph.json["relations"]
    assert all(r["source"] == "ivan-g" and r["relationship"] == "mentions" for r in graph.json["relations"])
    v3 = site.post("/v3/memories/search/", {"query": "Kyoto", "filters": {"user_id": "ivan-g"}, "enable_graph": True})
    assert "relations" not in v3.json  # v3 ignores the flag


def test_v1_routes_keep_tenants_apart_and_check_roles(site: Site) -> None:
    reader = _key(site.db, "reader-v1@acme.test", "acme", "web", "READER")
    body = {"messages": [{"role": "user", "content": "x"}], "user_id": "r", "infer": False}
    assert site.client.simulate_post("/v1/memories/", headers=reader, json=body).status_code == 403
    assert site.client.simulate_get("/v1/memories/", headers=reader).status_code == 200
    assert site.client.simulate_get("/v1/memories/").status_code == 401


# -- misleading errors -----------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/v3/memories/add/", "/v1/memories/"])
def test_a_non_string_id_in_filters_is_a_400_naming_its_type(site: Site, path: str) -> None:
    body = {"messages": [{"role": "user", "content": "I like tea"}], "filters": {"user_id": 123}, "infer": False}
    resp = site.post(path, body)
    assert resp.status_code == 400, resp.text
    assert "filters.user_id" in resp.text and "int" in resp.text and "an id is required" not in resp.text


def test_a_non_string_top_level_id_on_v1_is_a_4xx_naming_it(site: Site) -> None:
    resp = site.post("/v2/memories/", {"filters": {"user_id": 7}})
    assert resp.status_code == 400 and "filters.user_id" in resp.text
    resp = site.post("/v1/memories/search/", {"query": "tea", "user_id": 7})
    assert resp.status_code in (400, 422) and "user_id" in resp.text


# -- memory profiles: not supported, said clearly ------------------------------------------
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v2/entities/user/alice/profile/"),
        ("POST", "/v2/profiles/jobs/"),
        ("GET", "/v2/profiles/jobs/job-1/"),
        ("GET", "/v2/profiles/settings/"),
        ("POST", "/v2/profiles/settings/"),
    ],
)
def test_profile_routes_answer_not_supported(site: Site, method: str, path: str) -> None:
    resp = site.client.simulate_request(method, path, headers=site.owner, json={"operation": "trigger"})
    assert resp.status_code == 400, resp.text
    assert "not supported" in resp.json["detail"] and resp.json["errors"][0]["code"] == "profiles_not_supported"
    assert site.client.simulate_request(method, path, json={}).status_code == 401  # the key is checked first


# -- projects ------------------------------------------------------------------------------
def test_get_project_honours_fields(site: Site) -> None:
    path = "/api/v1/orgs/organizations/acme/projects/web/"
    full = site.get(path)
    assert full.status_code == 200 and {"name", "members", "enable_graph", "user_role"} <= set(full.json)
    narrowed = site.get(path, query_string="fields=name&fields=user_role&org_id=acme&project_id=web")
    assert narrowed.status_code == 200, narrowed.text
    assert narrowed.json == {"name": "Web", "user_role": "OWNER"}
    assert site.get(path, params={"fields": "name,custom_instructions"}).json.keys() == {"name", "custom_instructions"}
    bad = site.get(path, params={"fields": "nope"})
    assert bad.status_code == 400 and "fields" in bad.json["message"] and "nope" in bad.json["message"]


def test_member_list_carries_username_and_role_only(site: Site) -> None:
    listed = site.get("/api/v1/orgs/organizations/acme/projects/web/members/")
    assert listed.status_code == 200
    assert {"username": "owner", "role": "OWNER"} in listed.json["members"]
    assert all(set(m) == {"username", "role"} for m in listed.json["members"])
    details = site.get("/api/v1/orgs/organizations/acme/projects/web/").json["members"]
    assert {"username": "owner", "role": "OWNER", "email": "owner@acme.test"} in details
