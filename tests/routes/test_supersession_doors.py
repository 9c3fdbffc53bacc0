"""Facts over time through the doors the first round left untested: ``as_of`` on both HTTP
surfaces and MCP, the mem0-style ``Memory`` facade, and a correction told to another node.

The engine is real (LanceDB + SQLite in a temporary directory, the heuristic extractor) with
the hashing test embedder; routes run in process, MCP through the official client SDK.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.python.memory import Memory
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN

from tests.conftest import fast_settings
from tests.plugins import hashing

MONDAY = "2026-03-02T09:00:00Z"
WEDNESDAY = "2026-03-04T00:00:00Z"
FRIDAY = "2026-03-06T18:00:00Z"
SUNDAY = "2026-03-08T12:00:00Z"


def _engine(tmp_path: Path) -> Engine:
    return Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = _engine(tmp_path)
    yield mem
    mem.close()


# -- the mem0-style Memory facade -------------------------------------------------------


def test_memory_facade_latest_only_as_of_and_delete_linked(memory: Engine) -> None:
    facade = Memory(engine=memory)
    old = facade.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)["results"][0]["id"]
    new = facade.add("I moved to Porto.", user_id="ana", timestamp=FRIDAY)["results"][0]["id"]
    assert {m["id"] for m in facade.get_all(user_id="ana")["results"]} == {old, new}
    assert [m["id"] for m in facade.get_all(user_id="ana", latest_only=True)["results"]] == [new]
    found = facade.search("Where does the user live?", user_id="ana", latest_only=True)["results"]
    assert [m["id"] for m in found] == [new]
    then = facade.search("Where does the user live?", user_id="ana", latest_only=True, as_of=WEDNESDAY)["results"]
    assert [m["id"] for m in then] == [old]
    assert [m["id"] for m in facade.get_all(user_id="ana", latest_only=True, as_of=WEDNESDAY)["results"]] == [old]
    older = facade.get(old)
    assert older is not None and older["superseded_by"] == new
    facade.delete(new, delete_linked=True)
    assert facade.get_all(user_id="ana")["results"] == []


# -- as_of on the HTTP surfaces -----------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    os.environ.update({"MEM0_TELEMETRY": "False", "MEM0_DIR": str(tmp_path_factory.mktemp("mem0home"))})
    srv = Server(tmp_path_factory.mktemp("supersession-doors") / "data").start()
    with srv.serving_requests():
        yield srv
    srv.stop()


def _selfhosted_add(server: Server, text: str, user: str, timestamp: str) -> str:
    resp = server.post(
        "/memories",
        headers=ADMIN,
        json={"messages": [{"role": "user", "content": text}], "user_id": user, "timestamp": timestamp},
    )
    assert resp.status_code == 200, resp.text
    return str(resp.json()["results"][0]["id"])


def test_selfhosted_as_of_answers_with_the_version_current_then(server: Server) -> None:
    old = _selfhosted_add(server, "My phone number is 555-1234.", "finn", MONDAY)
    new = _selfhosted_add(server, "I changed my number, it's 555-9876 now.", "finn", FRIDAY)

    def listed(as_of: str) -> list[str]:
        params = {"user_id": "finn", "latest_only": "true", "as_of": as_of}
        resp = server.get("/memories", params=params, headers=ADMIN)
        assert resp.status_code == 200, resp.text
        return [m["id"] for m in resp.json()["results"]]

    assert listed(WEDNESDAY) == [old] and listed(SUNDAY) == [new]
    body = {"query": "phone number", "user_id": "finn", "latest_only": True, "as_of": WEDNESDAY, "threshold": 0.0}
    hits = server.post("/search", headers=ADMIN, json=body).json()["results"]
    assert [h["id"] for h in hits] == [old]
    bad = server.post("/search", headers=ADMIN, json={**body, "as_of": "next blursday"})
    assert bad.status_code in (400, 422) and "as_of" in bad.text


def _event_result(server: Server, token: dict[str, str], event_id: str) -> str:
    """The stored memory's id once the queued add is done."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        event = server.get(f"/v1/event/{event_id}/", headers=token).json()
        if event["status"] == "SUCCEEDED":
            return str(event["results"][0]["id"])
        assert event["status"] != "FAILED", event
        time.sleep(0.05)
    raise AssertionError("add still pending")


def test_platform_as_of_answers_with_the_version_current_then(server: Server) -> None:
    resp = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": "Beta", "project_name": "App", "email": "o@beta.test", "org_id": "beta", "project_id": "a"},
    )
    assert resp.status_code == 201, resp.text
    token = {"Authorization": f"Token {resp.json()['key']}"}
    ids = []
    for text, when in (("I live in Lisbon.", MONDAY), ("I moved to Porto.", FRIDAY)):
        body = {"messages": [{"role": "user", "content": text}], "user_id": "gil", "timestamp": when}
        added = server.post("/v3/memories/add/", headers=token, json=body)
        assert added.status_code in (200, 201, 202), added.text
        ids.append(_event_result(server, token, added.json()["event_id"]))
    old, new = ids
    scope = {"filters": {"user_id": "gil"}, "latest_only": True}
    then = server.post("/v3/memories/", headers=token, json={**scope, "as_of": WEDNESDAY})
    assert then.status_code == 200, then.text
    assert [m["id"] for m in then.json()["results"]] == [old]
    now = server.post("/v3/memories/", headers=token, json=scope).json()["results"]
    assert [m["id"] for m in now] == [new]
    search = {**scope, "query": "where does the user live", "threshold": 0.0, "as_of": WEDNESDAY}
    hits = server.post("/v3/memories/search/", headers=token, json=search)
    assert hits.status_code == 200, hits.text
    assert [h["id"] for h in hits.json()["results"]] == [old]


# -- MCP ----------------------------------------------------------------------------------


def test_mcp_tools_take_as_of(memory: Engine) -> None:
    pytest.importorskip("mcp")
    from mcp import Client
    from memorist.mcp.adapter import MemoryAccess
    from memorist.mcp.tools import build_server, fixed_caller
    from memorist.operations import Caller, Operations

    old = memory.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)[0]
    new = memory.add("I moved to Porto.", user_id="ana", timestamp=FRIDAY)[0]
    operations = Operations(lambda: memory)
    server = build_server(
        MemoryAccess(lambda: operations), fixed_caller(Caller(actor="ana", pinned={"user_id": "ana"}))
    )

    async def main() -> None:
        async with Client(server, mode="legacy") as mcp:

            async def call(tool: str, **args: Any) -> Any:
                return await mcp.call_tool(tool, args)

            listed = (await call("list_memories", latest_only=True, as_of=WEDNESDAY)).structured_content
            assert [m["id"] for m in listed["results"]] == [old.id]
            found = await call("search_memories", query="where", latest_only=True, threshold=0.0, as_of=SUNDAY)
            assert [m["id"] for m in found.structured_content["results"]] == [new.id]
            bad = await call("list_memories", as_of="not a date")
            assert bad.is_error and "as_of" in str(bad.content)

    asyncio.run(main())


# -- another node ---------------------------------------------------------------------------


def test_a_correction_told_to_another_node_supersedes(tmp_path: Path) -> None:
    # Two app nodes over one store: the fact on the first, its correction on the second.
    first, second = _engine(tmp_path), _engine(tmp_path)
    try:
        old = first.add("My phone number is 555-1234.", user_id="ana", timestamp=MONDAY)[0]
        new = second.add("I changed my number, it's 555-9876 now.", user_id="ana", timestamp=FRIDAY)[0]
        assert [r.id for r in first.list(user_id="ana", latest_only=True).records] == [new.id]
        assert first.links([old.id])[old.id].superseded_by == new.id
        # An additive fact told to the first node leaves the second's current fact alone.
        more = first.add("I also have a landline at the office.", user_id="ana", timestamp=SUNDAY)[0]
        assert {r.id for r in second.list(user_id="ana", latest_only=True).records} == {new.id, more.id}
    finally:
        first.close()
        second.close()


def test_mcp_search_takes_reference_date(memory: Engine) -> None:
    pytest.importorskip("mcp")
    from mcp import Client
    from memorist.mcp.adapter import MemoryAccess
    from memorist.mcp.tools import build_server, fixed_caller
    from memorist.operations import Caller, Operations

    memory.add(
        "The user went to a jazz concert downtown.", user_id="ana", infer=False, timestamp="2026-01-13T20:00:00Z"
    )
    memory.add("The user went to a rock concert uptown.", user_id="ana", infer=False, timestamp="2026-03-03T20:00:00Z")
    operations = Operations(lambda: memory)
    server = build_server(
        MemoryAccess(lambda: operations), fixed_caller(Caller(actor="ana", pinned={"user_id": "ana"}))
    )
    query = "Which concert did I go to last week?"

    async def main() -> None:
        async with Client(server, mode="legacy") as mcp:
            for reference, named in (("2026-03-10", "rock"), ("2026-01-20", "jazz")):
                found = await mcp.call_tool(
                    "search_memories", {"query": query, "threshold": 0.0, "reference_date": reference}
                )
                assert not found.is_error, found.content
                assert found.structured_content is not None
                assert named in found.structured_content["results"][0]["memory"], reference
            bad = await mcp.call_tool("search_memories", {"query": query, "reference_date": "not a date"})
            assert bad.is_error and "reference_date" in str(bad.content)

    asyncio.run(main())
