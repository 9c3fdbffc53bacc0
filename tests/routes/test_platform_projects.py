"""Projects across a member's keys, and deleting a project (issue 15 point 5), through HTTP and the 2.2.1 client.

A platform key belongs to a user: it reaches every project its user is a member of
(named in the path, or as ``org_id``/``project_id`` in the query or body, as the
older clients send them), with the user's role there; a project the user is not
in answers 404 whether or not it exists. ``DELETE`` of a project removes it with
everything it holds and nothing of any other project.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from memorist.plugin.hookspecs import hookimpl
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN
from sqlalchemy import func, select, text

ORG = "/api/v1/orgs/organizations"


class DeleteWitness:
    """A plugin that notes, at each ``memory_deleted``, how many webhooks the memory's project still had.

    Deleting a project must drop its webhooks *before* its memories, so no receiver is told
    of deletes the project's owner asked for wholesale.
    """

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    @hookimpl
    def memory_deleted(self, memory: Any, context: Any) -> None:
        with context.db.connect() as conn:
            hooks = conn.execute(text("SELECT count(*) FROM webhooks WHERE project_id = :p"), {"p": memory.project_id})
            self.seen.append((memory.project_id, int(hooks.scalar())))


WITNESS = DeleteWitness()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    os.environ.update({"MEM0_TELEMETRY": "False", "MEM0_DIR": str(tmp_path_factory.mktemp("mem0home"))})
    env = {"MEMORIST_SECURITY__OUTBOUND_ALLOW": '["127.0.0.1"]', "NO_PROXY": "127.0.0.1,localhost"}
    srv = Server(tmp_path_factory.mktemp("projects") / "data", env, plugins=[WITNESS]).start()
    with srv.serving_requests():
        yield srv
    srv.stop()


def boot(server: Server, org: str, project: str, email: str, role: str = "OWNER") -> dict[str, str]:
    """Organization (reused when it exists), project, member and key; the key's headers."""
    body = {"org_name": org, "org_id": org, "project_name": project, "project_id": project, "email": email}
    resp = server.post("/api/v1/admin/bootstrap/", headers=ADMIN, json={**body, "role": role})
    assert resp.status_code == 201, resp.text
    return {"Authorization": f"Token {resp.json()['key']}", "key_id": resp.json()["id"]}


def h(key: dict[str, str]) -> dict[str, str]:
    return {"Authorization": key["Authorization"]}


def create_project(server: Server, key: dict[str, str], org: str, name: str) -> str:
    resp = server.post(f"{ORG}/{org}/projects/", headers=h(key), json={"name": name})
    assert resp.status_code == 201, resp.text
    return str(resp.json()["project_id"])


def add(server: Server, key: dict[str, str], text_: str, user: str, **where: str) -> str:
    body = {"messages": [{"role": "user", "content": text_}], "user_id": user, "infer": False, **where}
    resp = server.post("/v3/memories/add/", headers=h(key), json=body)
    assert resp.status_code == 200, resp.text
    return str(resp.json()["results"][0]["id"])


def listed(server: Server, key: dict[str, str], user: str, **where: str) -> list[str]:
    resp = server.post("/v3/memories/", headers=h(key), json={"filters": {"user_id": user}, **where})
    assert resp.status_code == 200, resp.text
    return [r["memory"] for r in resp.json()["results"]]


def count(server: Server, table: str, where: str, **params: Any) -> int:
    assert server.kernel is not None
    with server.kernel.db.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(text(table)).where(text(where)), params).scalar())


# -- keys across the projects their user is in --------------------------------------------------------------
def test_a_created_project_is_reachable_by_the_creators_key_at_once(server: Server) -> None:
    owner = boot(server, "acme", "web", "owner@acme.test")
    second = create_project(server, owner, "acme", "Second")
    got = server.get(f"{ORG}/acme/projects/{second}/", headers=h(owner))
    assert got.status_code == 200 and got.json()["user_role"] == "OWNER" and got.json()["name"] == "Second"
    # Memory routes: the body (v3 add/list) or the query string (v1 list) names the project.
    add(server, owner, "second-project note", "u1", org_id="acme", project_id=second)
    add(server, owner, "home-project note", "u1")
    assert listed(server, owner, "u1", org_id="acme", project_id=second) == ["second-project note"]
    assert listed(server, owner, "u1") == ["home-project note"]
    v1 = server.get("/v1/memories/", headers=h(owner), params={"user_id": "u1", "project_id": second})
    assert v1.status_code == 200 and [r["memory"] for r in v1.json()] == ["second-project note"]
    # The ping still answers the key's home project (what clients learn at construction).
    assert server.get("/v1/ping/", headers=h(owner)).json()["project_id"] == "web"


def test_the_members_role_in_the_named_project_applies(server: Server) -> None:
    owner = boot(server, "acme2", "main", "owner@acme2.test")
    reader = boot(server, "acme2", "side", "reader@acme2.test")  # OWNER of 'side', same organization
    members = f"{ORG}/acme2/projects/main/members/"
    assert server.post(members, headers=h(owner), json={"email": "reader@acme2.test", "role": "READER"}).ok
    add(server, owner, "main fact", "u2")
    assert listed(server, reader, "u2", org_id="acme2", project_id="main") == ["main fact"]
    refused = server.post(
        "/v3/memories/add/",
        headers=h(reader),
        json={"messages": [{"role": "user", "content": "x"}], "user_id": "u2", "project_id": "main", "infer": False},
    )
    assert refused.status_code == 403 and "OWNER" in refused.json()["detail"]
    assert server.get(f"{ORG}/acme2/projects/main/", headers=h(reader)).json()["user_role"] == "READER"
    assert (
        server.request("PATCH", f"{ORG}/acme2/projects/main/", headers=h(reader), json={"name": "n"}).status_code == 403
    )


def test_a_project_the_user_is_not_in_is_404_whether_or_not_it_exists(server: Server) -> None:
    mine = boot(server, "mine-org", "mine", "me@mine.test")
    boot(server, "their-org", "theirs", "them@their.test")
    for named in ("theirs", "no-such-project"):
        refused_everywhere(server, mine, "their-org", named)
    # Naming a foreign organization with the key's own project is refused too (no org confusion).
    wrong_org = server.post("/v3/memories/", headers=h(mine), json={"filters": {"user_id": "x"}, "org_id": "their-org"})
    assert wrong_org.status_code == 404


def refused_everywhere(server: Server, mine: dict[str, str], org: str, named: str) -> None:
    assert server.get(f"{ORG}/{org}/projects/{named}/", headers=h(mine)).status_code == 404
    assert server.get(f"{ORG}/{org}/projects/{named}/members/", headers=h(mine)).status_code == 404
    for call in (
        lambda: server.post("/v3/memories/", headers=h(mine), json={"filters": {"user_id": "x"}, "project_id": named}),
        lambda: server.get("/v1/memories/", headers=h(mine), params={"user_id": "x", "project_id": named}),
        lambda: server.get(f"/api/v1/webhooks/projects/{named}/", headers=h(mine)),
    ):
        resp = call()
        assert resp.status_code == 404, resp.text


# -- deleting a project ----------------------------------------------------------------------------------------
def test_delete_removes_the_project_with_all_it_holds_and_nothing_else(server: Server) -> None:
    owner = boot(server, "delorg", "keep", "owner@del.test")
    doomed = create_project(server, owner, "delorg", "Doomed")
    where = {"org_id": "delorg", "project_id": doomed}
    gone_id = add(server, owner, "Alice met Bob in Paris", "alice", **where)
    add(server, owner, "Alice likes Rome", "alice", **where)
    kept_id = add(server, owner, "Alice met Bob in Paris", "alice")  # same text and user, the other project
    hook = server.post(
        f"/api/v1/webhooks/projects/{doomed}/",
        headers=h(owner),
        json={"url": "http://127.0.0.1:9/hook", "name": "h", "event_types": ["memory_delete"]},
    )
    assert hook.status_code == 201, hook.text
    assert count(server, "events", "project_id = :p", p=doomed) >= 1
    assert count(server, "entities", "scope_key LIKE :k", k=f"delorg/{doomed}/%") >= 1
    assert count(server, "memory_history", "project_id = :p", p=doomed) == 2

    resp = server.request("DELETE", f"{ORG}/delorg/projects/{doomed}/", headers=h(owner))
    assert resp.status_code == 200, resp.text
    assert resp.json() == {
        "message": "Project deleted successfully.",
        "project_id": doomed,
        "memories_deleted": 2,
        "keys_rehomed": 0,
        "keys_revoked": 0,
    }
    assert server.get(f"{ORG}/delorg/projects/{doomed}/", headers=h(owner)).status_code == 404
    assert server.get(f"/v1/memories/{gone_id}/", headers=h(owner), params=where).status_code == 404
    for table, clause in (
        ("events", "project_id = :p"),
        ("memory_history", "project_id = :p"),
        ("project_members", "project_id = :p"),
        ("scope_counts", "project_id = :p"),
        ("webhooks", "project_id = :p"),
    ):
        assert count(server, table, clause, p=doomed) == 0, table
    assert count(server, "webhook_deliveries", "webhook_id = :w", w=hook.json()["webhook_id"]) == 0
    assert [n for p, n in WITNESS.seen if p == doomed] == [0, 0]  # webhooks went first: nobody was notified
    for table in ("entities", "entity_aliases", "entity_links"):
        assert count(server, table, "scope_key LIKE :k", k=f"delorg/{doomed}/%") == 0, table
    # The other project: its memory, history, entities untouched.
    assert server.get(f"/v1/memories/{kept_id}/", headers=h(owner)).json()["memory"] == "Alice met Bob in Paris"
    assert count(server, "entity_links", "memory_id = :m", m=kept_id) >= 1
    assert listed(server, owner, "alice") == ["Alice met Bob in Paris"]
    # Deleting again: it is gone (404), like any unknown project.
    again = server.request("DELETE", f"{ORG}/delorg/projects/{doomed}/", headers=h(owner))
    assert again.status_code == 404 and again.json() == {"message": "organization or project not found"}


def test_only_an_owner_may_delete_and_unknown_or_foreign_projects_are_404(server: Server) -> None:
    owner = boot(server, "refuse-org", "p1", "owner@refuse.test")
    boot(server, "refuse-org", "r-home", "reader@refuse.test")
    reader = boot(server, "refuse-org", "r-home2", "reader@refuse.test")
    members = f"{ORG}/refuse-org/projects/p1/members/"
    assert server.post(members, headers=h(owner), json={"email": "reader@refuse.test", "role": "READER"}).ok
    denied = server.request("DELETE", f"{ORG}/refuse-org/projects/p1/", headers=h(reader))
    assert denied.status_code == 403 and "OWNER" in denied.json()["message"]
    assert server.request("DELETE", f"{ORG}/refuse-org/projects/nope/", headers=h(owner)).status_code == 404
    boot(server, "foreign-org", "f1", "f@foreign.test")
    assert server.request("DELETE", f"{ORG}/foreign-org/projects/f1/", headers=h(owner)).status_code == 404
    assert server.request("DELETE", f"{ORG}/refuse-org/projects/f1/", headers=h(owner)).status_code == 404
    assert server.get(f"{ORG}/refuse-org/projects/p1/", headers=h(owner)).status_code == 200


def test_keys_whose_home_project_goes_are_rehomed_or_revoked(server: Server) -> None:
    both = boot(server, "keys-org", "k-first", "both@keys.test")  # default project of the organization
    boot(server, "keys-org", "k-second", "both@keys.test")
    only = boot(server, "keys-org", "k-only", "only@keys.test")
    members = f"{ORG}/keys-org/projects/k-first/members/"
    assert server.post(members, headers=h(both), json={"email": "only@keys.test", "role": "OWNER"}).ok
    # 'only' is a member of k-first and k-only; its key's home is k-only: deleting k-only re-homes it to k-first.
    resp = server.request("DELETE", f"{ORG}/keys-org/projects/k-only/", headers=h(only))
    assert resp.json()["keys_rehomed"] == 1 and resp.json()["keys_revoked"] == 0
    assert server.get("/v1/ping/", headers=h(only)).json()["project_id"] == "k-first"
    # Deleting the default project: the oldest remaining one becomes the default; keys move there.
    resp = server.request("DELETE", f"{ORG}/keys-org/projects/k-first/", headers=h(both))
    assert resp.json()["keys_rehomed"] == 1 and resp.json()["keys_revoked"] == 1  # 'both' moves, 'only' has nothing
    assert server.get("/v1/ping/", headers=h(both)).json()["project_id"] == "k-second"
    assert server.get(f"{ORG}/keys-org/projects/k-second/", headers=h(both)).json()["is_default"] is True
    assert server.get("/v1/ping/", headers=h(only)).status_code == 401  # revoked


# -- the 2.2.1 client, unchanged ------------------------------------------------------------------------------
def test_client_creates_uses_and_deletes_a_project(server: Server) -> None:
    from mem0 import MemoryClient
    from mem0.client.project import Project
    from mem0.exceptions import MemoryNotFoundError

    key = boot(server, "client-org", "client-home", "owner@client.test")
    client = MemoryClient(api_key=key["Authorization"].split()[1], host=server.url, client=server.httpx_client())
    created = client.project.create(name="Scratch", description="to delete")
    scratch = Project(client.client, org_id="client-org", project_id=created["project_id"], user_email="x")
    assert scratch.get(fields=["name"]) == {"name": "Scratch"}  # reachable at once: no CLI step
    note = client.add(
        [{"role": "user", "content": "scratch note"}],
        user_id="cu",
        infer=False,
        org_id="client-org",
        project_id=created["project_id"],
    )
    memory_id = note["results"][0]["id"]
    client.add([{"role": "user", "content": "home note"}], user_id="cu", infer=False)
    answer = scratch.delete()
    assert answer["message"] == "Project deleted successfully." and answer["memories_deleted"] == 1
    with pytest.raises(MemoryNotFoundError):
        scratch.get()
    with pytest.raises(MemoryNotFoundError):
        client.get(memory_id)
    assert [m["memory"] for m in client.get_all(filters={"user_id": "cu"})["results"]] == ["home note"]


# -- enable_graph: ignored, and said so -------------------------------------------------------------------------
def test_patch_enable_graph_false_is_ignored_and_reported_so(server: Server) -> None:
    owner = boot(server, "graph-org", "g1", "owner@graph.test")
    path = f"{ORG}/graph-org/projects/g1/"
    add(server, owner, "Marguerite moved to Lisbon last spring", "gu")
    patched = server.request(
        "PATCH", path, headers=h(owner), json={"enable_graph": False, "custom_instructions": "keep places"}
    )
    assert patched.status_code == 200, patched.text
    answer = patched.json()
    assert answer["enable_graph"] is True and "always on" in answer["ignored"]["enable_graph"]
    assert answer["custom_instructions"] == "keep places"  # the rest of the PATCH is applied
    assert server.get(path, headers=h(owner)).json()["enable_graph"] is True
    assert server.get(path, headers=h(owner), params={"fields": "enable_graph"}).json() == {"enable_graph": True}
    # What the answer says holds: the graph still links and boosts the project's memories.
    body = {"query": "Lisbon", "filters": {"user_id": "gu"}, "explain": True, "threshold": 0.0}
    hit = server.post("/v3/memories/search/", headers=h(owner), json=body).json()["results"][0]
    assert hit["score_details"]["entity"] > 0 and "Lisbon" in hit["score_details"]["matched_entities"]
    # Type errors are still errors; a PATCH without ignored settings carries no ``ignored``.
    wrong = server.request("PATCH", path, headers=h(owner), json={"enable_graph": "no"})
    assert wrong.status_code == 400 and "enable_graph" in wrong.json()["message"]
    assert "ignored" not in server.request("PATCH", path, headers=h(owner), json={"decay": True}).json()


# -- issue 15 points 5 and 7, still holding ------------------------------------------------------------------------
def test_fields_members_without_email_and_typed_id_errors_hold(server: Server) -> None:
    owner = boot(server, "hold-org", "h1", "owner@hold.test")
    path = f"{ORG}/hold-org/projects/h1/"
    assert server.get(path, headers=h(owner), params={"fields": "name,user_role"}).json() == {
        "name": "h1",
        "user_role": "OWNER",
    }
    assert server.get(path + "members/", headers=h(owner)).json() == {
        "members": [{"username": "owner", "role": "OWNER"}]
    }
    assert server.get(path, headers=h(owner)).json()["members"][0]["email"] == "owner@hold.test"  # details only
    for route, body in (
        ("/v3/memories/add/", {"messages": [{"role": "user", "content": "tea"}], "filters": {"user_id": 123}}),
        ("/v3/memories/search/", {"query": "tea", "filters": {"user_id": 123}}),
        ("/v3/memories/", {"filters": {"user_id": 123}}),
    ):
        resp = server.post(route, headers=h(owner), json=body)
        assert resp.status_code == 400 and "filters.user_id" in resp.text and "int" in resp.text, (route, resp.text)
        assert "an id is required" not in resp.text


def test_agent_custom_instructions_from_the_client_are_kept_and_reach_agent_adds(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mem0 import MemoryClient

    key = boot(server, "agent-org", "agents", "owner@agent.test")
    client = MemoryClient(api_key=key["Authorization"].split()[1], host=server.url, client=server.httpx_client())
    client.project.update(custom_instructions="Keep facts.", agent_custom_instructions="Keep the agent's tools.")
    assert client.project.get(fields=["agent_custom_instructions"]) == {
        "agent_custom_instructions": "Keep the agent's tools."
    }
    assert server.kernel is not None
    ops, seen = server.kernel.operations, []
    original = ops.add_recorded
    monkeypatch.setattr(ops, "add_recorded", lambda caller, request: seen.append(request) or original(caller, request))
    client.add([{"role": "user", "content": "uses a calculator"}], agent_id="bot", infer=False)
    client.add([{"role": "user", "content": "likes tea"}], user_id="u", infer=False)
    assert [r.custom_instructions for r in seen] == ["Keep facts.\nKeep the agent's tools.", "Keep facts."]
    wrong = server.request(
        "PATCH", f"{ORG}/agent-org/projects/agents/", headers=h(key), json={"agent_custom_instructions": 5}
    )
    assert wrong.status_code == 400 and "agent_custom_instructions" in wrong.json()["message"]


def test_a_project_recreated_under_the_same_id_starts_empty(server: Server) -> None:
    """Searches cache a scope in memory (the scope index): a deleted project's snapshot must not come back."""
    owner = boot(server, "again-org", "again", "owner@again.test")
    add(server, owner, "Ravi keeps bees in Kerala", "ravi")
    body = {"query": "bees", "filters": {"user_id": "ravi"}, "threshold": 0.0}
    for _ in range(2):  # loaded into the scope index (admitted on the first or second search)
        found = server.post("/v3/memories/search/", headers=h(owner), json=body).json()["results"]
        assert [r["memory"] for r in found] == ["Ravi keeps bees in Kerala"]
    assert server.request("DELETE", f"{ORG}/again-org/projects/again/", headers=h(owner)).status_code == 200
    fresh = boot(server, "again-org", "again", "owner@again.test")
    assert server.post("/v3/memories/search/", headers=h(fresh), json=body).json()["results"] == []
    assert listed(server, fresh, "ravi") == []
    assert server.get("/v1/entities/", headers=h(fresh)).json()["results"] == []
