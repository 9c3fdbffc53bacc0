"""The existing platform client (mem0ai, pinned in the dev extra) against the whole app in process.

The client's own httpx transport is swapped for one that hands each request to the app
(``AppServer.httpx_client()``): everything above the socket is the client's real code."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("mem0home")
    os.environ.update({"MEM0_TELEMETRY": "False", "MEM0_DIR": str(home)})
    srv = Server(tmp_path_factory.mktemp("platform") / "data").start()
    with srv.serving_requests():  # the async client pings with ``requests`` in its constructor
        yield srv
    srv.stop()


def bootstrap(server: Server, org: str, project: str, email: str, role: str = "OWNER", **ids: str) -> dict:
    resp = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": org, "project_name": project, "email": email, "role": role, **ids},
    )
    assert resp.status_code == 201, resp.text
    return resp.json()


@pytest.fixture(scope="module")
def tenant(server: Server) -> dict:
    return bootstrap(server, "Acme", "Web", "owner@acme.test", org_id="acme", project_id="web")


@pytest.fixture(scope="module")
def client(server: Server, tenant: dict) -> Any:
    from mem0 import MemoryClient

    return MemoryClient(api_key=tenant["key"], host=server.url, client=server.httpx_client())


def token(key: str) -> dict[str, str]:
    return {"Authorization": f"Token {key}"}


def wait_event(server: Server, key: str, event_id: str, seconds: float = 60) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        event = server.get(f"/v1/event/{event_id}/", headers=token(key)).json()
        if event["status"] in ("SUCCEEDED", "FAILED"):
            return event
        time.sleep(0.1)
    raise AssertionError(f"event {event_id} still {event['status']}")


def add_and_wait(server: Server, client: Any, key: str, text: str, user: str, **kwargs: Any) -> list[dict]:
    ack = client.add([{"role": "user", "content": text}], user_id=user, **kwargs)
    assert ack["status"] == "PENDING" and ack["event_id"]
    event = wait_event(server, key, ack["event_id"])
    assert event["status"] == "SUCCEEDED", event
    return event["results"]


def test_construction_pings_and_learns_the_project(client: Any, tenant: dict) -> None:
    assert client.org_id == "acme" and client.project_id == "web"


def test_bad_key_fails_construction(server: Server) -> None:
    from mem0 import MemoryClient

    with pytest.raises(ValueError, match="invalid or revoked"):
        MemoryClient(api_key="m0-not-a-key", host=server.url, client=server.httpx_client())


def test_add_poll_search_get_update_history_delete(server: Server, client: Any, tenant: dict) -> None:
    results = add_and_wait(
        server, client, tenant["key"], "I just adopted a greyhound named Comet.", "alice", metadata={"source": "chat"}
    )
    assert len(results) == 1 and results[0]["event"] == "ADD" and results[0]["user_id"] == "alice"
    memory_id = results[0]["id"]
    assert "Comet" in results[0]["data"]["memory"]

    found = client.search("Comet the greyhound", filters={"user_id": "alice"})
    hit = found["results"][0]
    assert hit["id"] == memory_id and 0 <= hit["score"] <= 1
    assert {"id", "memory", "score", "metadata", "categories", "created_at", "updated_at"} <= set(hit)
    assert hit["metadata"] == {"source": "chat"}

    assert client.get(memory_id)["memory"] == results[0]["data"]["memory"]
    updated = client.update(memory_id, text="Alice adopted a greyhound named Comet.", metadata={"checked": True})
    assert updated["memory"] == "Alice adopted a greyhound named Comet."
    assert [h["event"] for h in client.history(memory_id)] == ["ADD", "UPDATE"]
    client.delete(memory_id)
    from mem0.exceptions import MemoryNotFoundError

    with pytest.raises(MemoryNotFoundError):
        client.get(memory_id)


def test_infer_false_answers_synchronously(client: Any) -> None:
    reply = client.add([{"role": "user", "content": "verbatim note"}], user_id="vera", infer=False)
    assert reply["results"][0]["memory"] == "verbatim note"


def test_get_all_pages_with_absolute_links(server: Server, client: Any, tenant: dict) -> None:
    for i in range(5):
        client.add([{"role": "user", "content": f"page note {i}"}], user_id="pager", infer=False)
    first = client.get_all(filters={"user_id": "pager"}, page=1, page_size=2)
    assert first["count"] == 5 and len(first["results"]) == 2 and first["previous"] is None
    assert first["next"].startswith(server.url + "/v3/memories/?") and "page=2" in first["next"]
    last = client.get_all(filters={"user_id": "pager"}, page=3, page_size=2)
    assert len(last["results"]) == 1 and last["next"] is None and "page=2" in last["previous"]


def test_top_level_ids_are_400_on_search_and_list(server: Server, tenant: dict) -> None:
    for path, body in (("/v3/memories/search/", {"query": "x", "user_id": "a"}), ("/v3/memories/", {"user_id": "a"})):
        resp = server.post(path, headers=token(tenant["key"]), json=body)
        assert resp.status_code == 400 and "filters" in resp.json()["detail"]


def test_users_batch_delete_all_and_delete_users(server: Server, client: Any) -> None:
    ids = [
        client.add([{"role": "user", "content": f"batch item {i}"}], user_id="batcher", infer=False)["results"][0]["id"]
        for i in range(3)
    ]
    users = client.users()
    assert any(u["type"] == "user" and u["name"] == "batcher" and u["total_memories"] == 3 for u in users["results"])
    client.batch_update([{"memory_id": ids[0], "text": "batch item zero"}])
    assert client.get(ids[0])["memory"] == "batch item zero"
    client.batch_delete([{"memory_id": ids[1]}])
    assert client.get_all(filters={"user_id": "batcher"})["count"] == 2
    client.delete_all(user_id="batcher")
    assert client.get_all(filters={"user_id": "batcher"})["count"] == 0
    client.add([{"role": "user", "content": "to be removed"}], user_id="gone", infer=False)
    client.delete_users(user_id="gone")
    assert all(u["name"] != "gone" for u in client.users()["results"])


def test_project_settings_and_members(server: Server, client: Any) -> None:
    project = client.project.get()
    assert project["project_id"] == "web" and project["user_role"] == "OWNER"
    assert {
        "members",
        "custom_categories",
        "custom_instructions",
        "inclusion_prompt",
        "exclusion_prompt",
        "memory_depth",
        "multilingual",
        "decay",
        "expiration_date",
        "enable_graph",
        "version",
        "is_default",
    } <= set(project)
    assert project["members"][0] == {"username": "owner", "role": "OWNER", "email": "owner@acme.test"}
    client.project.update(
        custom_instructions="Only keep food preferences.", custom_categories=[{"cuisine": "food and cooking"}]
    )
    assert client.project.get()["custom_instructions"] == "Only keep food preferences."
    # Members are added from the organization's people; an admin brings a new person in.
    server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        timeout=10,
        json={
            "org_name": "Acme",
            "org_id": project["org_id"],
            "project_name": "Rita's",
            "email": "rita@acme.test",
            "name": "Rita",
        },
    ).raise_for_status()
    client.project.add_member("rita@acme.test", role="READER")
    members = client.project.get_members()["members"]
    assert {"username": "Rita", "role": "READER"} in [{"username": m["username"], "role": m["role"]} for m in members]
    client.project.update_member("rita@acme.test", role="OWNER")
    assert any(m["role"] == "OWNER" and m["username"] == "Rita" for m in client.project.get_members()["members"])
    client.project.remove_member("rita@acme.test")
    assert all(m["username"] != "Rita" for m in client.project.get_members()["members"])


def test_project_settings_reach_extraction(server: Server, tenant: dict) -> None:
    key = bootstrap(server, "Acme2", "Settings", "set@acme.test")["key"]
    info = server.get("/v1/ping/", headers=token(key), timeout=10).json()
    path = f"/api/v1/orgs/organizations/{info['org_id']}/projects/{info['project_id']}/"
    patch = server.request(
        "PATCH",
        path,
        headers=token(key),
        json={
            "exclusion_prompt": "salary",
            "custom_categories": [{"pets": "dogs, cats and other animals"}],
            "expiration_date": "2099-12-31",
        },
    )
    assert patch.status_code == 200, patch.text
    ack = server.post(
        "/v3/memories/add/",
        headers=token(key),
        json={
            "messages": [{"role": "user", "content": "My salary is 90k. I adopted two cats last week."}],
            "user_id": "p",
        },
    )
    event = wait_event(server, key, ack.json()["event_id"])
    assert len(event["results"]) == 1 and "salary" not in event["results"][0]["data"]["memory"]
    memory = server.get(f"/v1/memories/{event['results'][0]['id']}/", headers=token(key)).json()
    assert memory["categories"] == ["pets"] and memory["expiration_date"].startswith("2099-12-31")


def test_events_are_listed_per_project(server: Server, client: Any, tenant: dict) -> None:
    listed = server.get("/v1/events/", headers=token(tenant["key"])).json()
    assert listed["count"] >= 1 and all(
        e["status"] in ("PENDING", "RUNNING", "SUCCEEDED", "FAILED") for e in listed["results"]
    )


def test_exceptions_are_mapped(server: Server, client: Any, tenant: dict) -> None:
    from mem0.exceptions import AuthenticationError, MemoryNotFoundError, ValidationError

    with pytest.raises(MemoryNotFoundError):
        client.get("no-such-memory")
    with pytest.raises(ValidationError):
        client.search("x", filters={"nonsense_field": 1})
    reader = bootstrap(server, "Acme3", "ReadOnly", "reader@acme.test", role="READER")
    from mem0 import MemoryClient

    reader_client = MemoryClient(api_key=reader["key"], host=server.url, client=server.httpx_client())
    with pytest.raises(AuthenticationError):  # 403: a READER cannot add
        reader_client.add([{"role": "user", "content": "I like tea"}], user_id="r")
    server.request("DELETE", f"/api/v1/admin/keys/{reader['id']}/", headers=ADMIN, timeout=10)
    with pytest.raises(AuthenticationError):  # 401: revoked
        reader_client.get_all(filters={"user_id": "r"})


def test_tenant_isolation(server: Server, client: Any, tenant: dict) -> None:
    other = bootstrap(server, "Globex", "Api", "owner@globex.test", org_id="globex", project_id="api")
    from mem0 import MemoryClient

    theirs = MemoryClient(api_key=other["key"], host=server.url, client=server.httpx_client())
    mine = client.add([{"role": "user", "content": "acme secret roadmap"}], user_id="shared-name", infer=False)
    memory_id = mine["results"][0]["id"]
    theirs.add([{"role": "user", "content": "globex secret plan"}], user_id="shared-name", infer=False)
    assert [r["memory"] for r in theirs.get_all(filters={"user_id": "shared-name"})["results"]] == [
        "globex secret plan"
    ]
    assert all(
        "acme" not in r["memory"]
        for r in theirs.search("secret", filters={"user_id": "shared-name"}, threshold=0.0)["results"]
    )
    from mem0.exceptions import MemoryNotFoundError

    for call in (lambda: theirs.get(memory_id), lambda: theirs.delete(memory_id), lambda: theirs.history(memory_id)):
        with pytest.raises(MemoryNotFoundError):
            call()
    theirs.delete_all(user_id="shared-name")
    assert client.get(memory_id)["memory"] == "acme secret roadmap"
    assert server.get("/api/v1/orgs/organizations/acme/projects/web/", headers=token(other["key"])).status_code == 404
    assert server.get("/api/v1/orgs/organizations/acme/projects/web/members/", headers=token(other["key"])).json() == {
        "message": "organization or project not found"
    }
    events = server.get("/v1/events/", headers=token(other["key"])).json()["results"]
    assert all(e["id"] != mine.get("event_id") for e in events)


def test_project_error_rows(server: Server, tenant: dict) -> None:
    missing = server.get("/api/v1/orgs/organizations/acme/projects/nope/", headers=token(tenant["key"]))
    assert missing.status_code == 404 and set(missing.json()) == {"message"}
    reader = bootstrap(server, "Acme4", "R", "r4@acme.test", role="READER")
    info = server.get("/v1/ping/", headers=token(reader["key"]), timeout=10).json()
    members = f"/api/v1/orgs/organizations/{info['org_id']}/projects/{info['project_id']}/members/"
    denied = server.post(members, headers=token(reader["key"]), json={"email": "owner@acme.test", "role": "READER"})
    assert denied.status_code == 403 and "not authorized to modify project members" in denied.json()["message"]
    assert server.get(members, headers=token(reader["key"])).status_code == 200  # a READER may view


def test_async_client(server: Server, tenant: dict) -> None:
    from mem0 import AsyncMemoryClient

    async def scenario() -> None:
        aclient = AsyncMemoryClient(api_key=tenant["key"], host=server.url, client=server.async_httpx_client())
        reply = await aclient.add([{"role": "user", "content": "async note"}], user_id="async-user", infer=False)
        memory_id = reply["results"][0]["id"]
        assert (await aclient.get(memory_id))["memory"] == "async note"
        page = await aclient.get_all(filters={"user_id": "async-user"})
        assert page["count"] == 1
        found = await aclient.search("async note", filters={"user_id": "async-user"})
        assert found["results"][0]["id"] == memory_id
        await aclient.delete(memory_id)

    asyncio.run(scenario())


def test_create_project(server: Server, client: Any) -> None:
    created = client.project.create(name="Second", description="another")
    assert created["name"] == "Second" and created["project_id"]


def test_ping_answer_shape(server: Server, tenant: dict) -> None:
    ping = server.get("/v1/ping/", headers=token(tenant["key"]))
    assert ping.json() == {"status": "ok", "org_id": "acme", "project_id": "web", "user_email": "owner@acme.test"}
    assert server.get("/v1/ping/").status_code == 401
    assert "detail" in server.get("/v1/ping/", headers={"Authorization": "Token nope"}).json()


def test_data_dir_fixture_is_real(server: Server) -> None:
    assert (Path(server.data_dir) / "memorist.db").exists() and (Path(server.data_dir) / "lancedb").exists()


def test_profile_methods_raise_a_clear_not_supported_validation_error(client: Any) -> None:
    """Not a MemoryNotFoundError (a bare 404 read as "no such memory"): the client's ValidationError, saying so."""
    from mem0.exceptions import MemoryNotFoundError, ValidationError

    calls = [
        lambda: client.get_profile("alice"),
        lambda: client.generate_profile("alice"),
        lambda: client.get_profile_settings(),
        lambda: client.update_profile_settings(enabled=True),
        lambda: client.sample_profiles(limit=2),
        lambda: client.get_profile_job("job-1"),
    ]
    for call in calls:
        with pytest.raises(ValidationError) as caught:
            call()
        assert not isinstance(caught.value, MemoryNotFoundError)
        assert "not supported" in caught.value.message
        assert caught.value.details["errors"][0]["code"] == "profiles_not_supported"


def test_project_get_with_fields_answers_only_those(client: Any) -> None:
    assert client.project.get(fields=["name", "enable_graph"]) == {"name": "Web", "enable_graph": True}
    assert set(client.get_project(fields=["custom_instructions"])) == {"custom_instructions"}


def _texts(server: Server, key: str, user: str) -> list[str]:
    page = server.post("/v3/memories/", headers=token(key), json={"filters": {"user_id": user}}).json()
    return sorted(m["memory"] for m in page["results"])


def test_delete_all_with_ids_inside_filters(server: Server, client: Any, tenant: dict) -> None:
    """mem0ai 2.2.1 documents ids "inside the filters dict"; it sends them as ``filters={'user_id': 'carol'}``
    (a Python literal in the query string). Only carol's memories go; dave's stay."""
    for user, text in (("carol", "Carol plays the cello."), ("carol", "Carol lives in Gent."), ("dave", "Dave rows.")):
        client.add([{"role": "user", "content": text}], user_id=user, infer=False)
    answer = client.delete_all(filters={"user_id": "carol"})
    assert answer["deleted"] == 2, answer
    assert _texts(server, tenant["key"], "carol") == []
    assert _texts(server, tenant["key"], "dave") == ["Dave rows."]

    from mem0 import AsyncMemoryClient

    async def scenario() -> dict:
        aclient = AsyncMemoryClient(api_key=tenant["key"], host=server.url, client=server.async_httpx_client())
        await aclient.add([{"role": "user", "content": "Dave owns a kayak."}], user_id="dave", infer=False)
        return await aclient.delete_all(filters={"user_id": "dave"})

    assert asyncio.run(scenario())["deleted"] == 2
    assert _texts(server, tenant["key"], "dave") == []


def test_delete_all_filters_query_is_parsed_safely(server: Server, tenant: dict) -> None:
    """JSON or a Python literal; never evaluated as code; bounded; conflicts and junk are 400s."""
    auth = token(tenant["key"])
    server.post("/v1/memories/", headers=auth, json={"messages": "Eve paints.", "user_id": "eve", "infer": False})
    for junk in ("__import__('os').system('true')", "[1, 2]", "{'user_id': 'eve'", "x" * 9000):
        resp = server.request("DELETE", "/v1/memories/", headers=auth, params={"filters": junk})
        assert resp.status_code == 400, (junk[:40], resp.text)
        assert "filters" in resp.json()["detail"]
    params = {"user_id": "eve", "filters": '{"user_id": "bob"}'}
    conflict = server.request("DELETE", "/v1/memories/", headers=auth, params=params)
    assert conflict.status_code == 400 and "differs" in conflict.json()["detail"]
    assert _texts(server, tenant["key"], "eve") == ["Eve paints."]  # nothing lost to a refused delete
    ok = server.request("DELETE", "/v1/memories/", headers=auth, params={"filters": '{"user_id": "eve"}'})
    assert ok.status_code == 200 and ok.json()["deleted"] == 1
    # The AND form the clients' docs show: its ids are the delete's ids.
    server.post("/v1/memories/", headers=auth, json={"messages": "Eve sculpts.", "user_id": "eve", "infer": False})
    anded = server.request("DELETE", "/v1/memories/", headers=auth, params={"filters": "{'AND': [{'user_id': 'eve'}]}"})
    assert anded.status_code == 200 and anded.json()["deleted"] == 1
    assert _texts(server, tenant["key"], "eve") == []


def test_delete_all_wildcard_deletes_every_memory_of_that_entity_type(server: Server) -> None:
    """``user_id="*"``: every memory that has a user id, in the caller's project only; never a literal id."""
    from mem0 import MemoryClient

    mine = bootstrap(server, "Wild", "W", "wild@acme.test")
    other = bootstrap(server, "Tame", "T", "tame@acme.test")
    wild = MemoryClient(api_key=mine["key"], host=server.url, client=server.httpx_client())
    tame = MemoryClient(api_key=other["key"], host=server.url, client=server.httpx_client())
    wild.add([{"role": "user", "content": "Ines speaks Portuguese."}], user_id="ines", infer=False)
    wild.add([{"role": "user", "content": "Jun collects stamps."}], user_id="jun", infer=False)
    wild.add([{"role": "user", "content": "The helper agent prefers short answers."}], agent_id="helper", infer=False)
    tame.add([{"role": "user", "content": "Ines in another project."}], user_id="ines", infer=False)

    answer = wild.delete_all(user_id="*")
    assert answer["deleted"] == 2, answer
    assert "user_id" in answer["message"]
    left = server.post("/v3/memories/", headers=token(mine["key"]), json={"filters": {"agent_id": "helper"}}).json()
    assert [m["memory"] for m in left["results"]] == ["The helper agent prefers short answers."]
    assert _texts(server, other["key"], "ines") == ["Ines in another project."]  # another tenant: untouched

    again = wild.delete_all(user_id="*")  # nothing left to match: says so, not a bare "success"
    assert again["deleted"] == 0 and "No memories deleted" in again["message"]

    everything = wild.delete_all(user_id="*", agent_id="*", app_id="*", run_id="*")
    assert everything["deleted"] == 1
    assert server.post("/v3/memories/", headers=token(mine["key"]), json={}).json()["count"] == 0

    # Wildcards through the filters dict too, and a READER may not delete at all.
    reader = bootstrap(server, "Wild2", "R", "wild-reader@acme.test", role="READER")
    starred = {"filters": "{'user_id': '*'}"}
    denied = server.request("DELETE", "/v1/memories/", headers=token(reader["key"]), params=starred)
    assert denied.status_code == 403


def test_wildcard_is_never_an_id_to_store_under(server: Server, client: Any) -> None:
    from mem0.exceptions import ValidationError as Mem0ValidationError

    with pytest.raises(Mem0ValidationError, match="wildcard"):
        client.add([{"role": "user", "content": "stored under a star?"}], user_id="*", infer=False)


def test_a_selfhosted_key_on_a_platform_route_says_what_to_send(server: Server) -> None:
    made = server.post(
        "/auth/register", json={"name": "Sam", "email": "sam@self.test", "password": "correct horse battery"}
    )
    assert made.status_code in (200, 201), made.text  # the first account of this server
    session = {"Authorization": f"Bearer {made.json()['access_token']}"}
    created = server.post("/api-keys", headers=session, json={"label": "cli"})
    assert created.status_code == 201, created.text
    key = created.json()["key"]
    assert key.startswith("svcsk_")
    resp = server.get("/v1/ping/", headers={"Authorization": f"Token {key}"})
    assert resp.status_code == 401
    message = resp.json()["detail"]
    assert "X-API-Key" in message and "Authorization: Token m0-" in message
    as_bearer = server.post("/search", headers={"Authorization": f"Bearer {key}"}, json={"query": "x", "user_id": "u"})
    assert as_bearer.status_code == 401 and "X-API-Key" in as_bearer.json()["detail"], as_bearer.text
    as_bearer_mcp = server.post("/mcp", headers={"Authorization": f"Bearer {key}"}, json={})
    assert as_bearer_mcp.status_code == 401 and "X-API-Key" in as_bearer_mcp.json()["detail"]
