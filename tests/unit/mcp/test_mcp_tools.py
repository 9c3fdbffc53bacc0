"""The MCP tools, resource and prompt, through the official client SDK, in process.

Why in process: the scope rules, validation and result shapes are properties
of the server object, not of a transport; the real transports (a spawned
``memorist mcp``, a running ``memorist serve``) are driven in
``test_mcp_stdio.py`` and ``test_mcp_http.py``. The engine here is real
(LanceDB + SQLite in a temporary directory) with the hashing test embedder.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist import limits

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from memorist.mcp.adapter import MemoryAccess  # noqa: E402
from memorist.mcp.tools import build_server, fixed_caller  # noqa: E402
from memorist.operations import (  # noqa: E402
    Caller,
    Operations,  # noqa: E402
    Role,
    ScopeError,
)
from memorist.plugin.manager import load_plugins  # noqa: E402
from memorist.python.engine import Engine  # noqa: E402

from tests.conftest import fast_settings  # noqa: E402
from tests.plugins import hashing  # noqa: E402

TOOLS = {
    "add_memory",
    "search_memories",
    "list_memories",
    "get_memory",
    "update_memory",
    "delete_memory",
    "memory_history",
    "list_entities",
}


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield mem
    mem.close()


def session(memory: Engine, caller: Caller) -> Callable[[Callable[[Client], Awaitable[Any]]], Any]:
    """Run ``body(client)`` against a server confined to ``caller``."""
    operations = Operations(lambda: memory)
    server = build_server(MemoryAccess(lambda: operations), fixed_caller(caller))

    def run(body: Callable[[Client], Awaitable[Any]]) -> Any:
        async def main() -> Any:
            async with Client(server, mode="legacy") as client:
                return await body(client)

        return asyncio.run(main())

    return run


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def error(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


ALICE = Caller(actor="alice", pinned={"user_id": "alice"})
BOB = Caller(actor="bob", pinned={"user_id": "bob"})


def test_caller_ids_pins_defaults_and_refuses_widening() -> None:
    assert ALICE.ids({}) == {"user_id": "alice"}
    assert ALICE.ids({"user_id": "alice", "agent_id": "cook"}) == {"user_id": "alice", "agent_id": "cook"}
    with pytest.raises(ScopeError, match="user_id: this connection is confined to user_id='alice'"):
        ALICE.ids({"user_id": "bob"})
    admin = Caller(actor="admin", defaults={"user_id": "ada@x.io"})
    assert admin.ids({}) == {"user_id": "ada@x.io"}
    assert admin.ids({"user_id": "bob"}) == {"user_id": "bob"}
    assert Caller(actor="open").ids({}) == {}
    narrow = ALICE.narrowed({"agent_id": "cook"})
    assert dict(narrow.pinned) == {"user_id": "alice", "agent_id": "cook"}
    with pytest.raises(ScopeError, match="confined to user_id='alice'"):
        ALICE.narrowed({"user_id": "bob"})
    assert dict(admin.narrowed({"user_id": "zed"}).pinned) == {"user_id": "zed"}
    assert not admin.narrowed({"user_id": "zed"}).defaults
    with pytest.raises(ValueError):
        Caller(actor="x", pinned={"org_id": "other"})


def test_tools_listed_with_descriptions_and_schemas(memory: Engine) -> None:
    async def body(client: Client) -> None:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == TOOLS
        for tool in listed.values():
            assert tool.description and len(tool.description) > 20
        search = listed["search_memories"].input_schema
        assert search["required"] == ["query"]
        assert search["properties"]["top_k"]["maximum"] == limits.MAX_MCP_TOP_K == 100
        listing = listed["list_memories"].input_schema
        assert listing["properties"]["page_size"]["maximum"] == limits.MAX_MCP_PAGE_SIZE
        assert search["properties"]["query"]["maxLength"] == limits.MAX_QUERY_CHARS
        read_only, destructive = listed["search_memories"].annotations, listed["delete_memory"].annotations
        assert read_only is not None and read_only.read_only_hint is True
        assert destructive is not None and destructive.destructive_hint is True
        assert "search_memories" in (client.instructions or "")

    session(memory, ALICE)(body)


def test_add_search_get_update_history_delete(memory: Engine) -> None:
    async def body(client: Client) -> None:
        added = await call(
            client,
            "add_memory",
            text="My sister Maria lives in Porto.",
            metadata={"topic": "family"},
            timestamp="2026-03-01T10:00:00Z",
            infer=False,
        )
        assert added["scope"] == {"user_id": "alice"}
        [stored] = added["stored"]
        found = await call(client, "search_memories", query="Maria Porto sister", explain=True)
        [hit] = found["results"]
        assert hit["id"] == stored["id"] and hit["user_id"] == "alice"
        assert hit["metadata"] == {"topic": "family"} and "score_details" in hit
        assert "hash" not in hit and "run_id" not in hit  # compact: no hashes, no nulls
        assert hit["observed_at"].startswith("2026-03-01")
        # Arguments that are not tool parameters (a tenant, say) are ignored, never obeyed.
        elsewhere = await call(client, "search_memories", query="Maria Porto sister", org_id="other", project_id="x")
        assert [r["id"] for r in elsewhere["results"]] == [stored["id"]]
        assert (await call(client, "get_memory", memory_id=stored["id"]))["memory"] == stored["memory"]
        updated = await call(client, "update_memory", memory_id=stored["id"], text="My sister Maria lives in Braga.")
        assert updated["memory"] == "My sister Maria lives in Braga."
        history = await call(client, "memory_history", memory_id=stored["id"])
        assert [e["event"] for e in history["events"]] == ["ADD", "UPDATE"]
        assert history["events"][1]["old_memory"] == "My sister Maria lives in Porto."
        assert (await call(client, "delete_memory", memory_id=stored["id"]))["deleted"] == stored["id"]
        assert "not found" in await error(client, "get_memory", memory_id=stored["id"])

    session(memory, ALICE)(body)


def test_filters_threshold_and_top_k(memory: Engine) -> None:
    async def body(client: Client) -> None:
        for i, topic in enumerate(["tea", "coffee", "tea"]):
            await call(
                client, "add_memory", text=f"Drink number {i} was {topic} today", metadata={"kind": topic}, infer=False
            )
        teas = await call(client, "search_memories", query="drink today", filters={"metadata.kind": "tea"})
        assert {r["metadata"]["kind"] for r in teas["results"]} == {"tea"} and len(teas["results"]) == 2
        assert len((await call(client, "search_memories", query="drink today", top_k=1))["results"]) == 1
        assert (await call(client, "search_memories", query="drink today", threshold=1.0))["results"] == []

    session(memory, ALICE)(body)


def test_scope_arguments_cannot_widen(memory: Engine) -> None:
    memory.add("Bob's locker code is 4711", user_id="bob", infer=False)
    bob_id = memory.list(user_id="bob").records[0].id

    async def body(client: Client) -> None:
        assert "confined to user_id='alice'" in await error(
            client, "search_memories", query="locker code", user_id="bob"
        )
        assert "confined to user_id='alice'" in await error(client, "add_memory", text="x y z", user_id="bob")
        assert "confined to user_id='alice'" in await error(client, "list_memories", user_id="bob")
        # A filter is AND-ed with the pin: naming bob in it finds nothing rather than bob's memories.
        widened = await call(
            client, "search_memories", query="locker code", filters={"OR": [{"user_id": "bob"}, {"user_id": "alice"}]}
        )
        assert widened["results"] == []
        for tool in ("get_memory", "memory_history", "delete_memory"):
            assert f"memory '{bob_id}' not found" in await error(client, tool, memory_id=bob_id)
        assert "not found" in await error(client, "update_memory", memory_id=bob_id, text="hacked")
        entities = await call(client, "list_entities")
        assert entities["entities"] == []  # alice has none yet; bob is not revealed

    session(memory, ALICE)(body)
    assert memory.get(bob_id).text == "Bob's locker code is 4711"  # nothing changed

    async def as_bob(client: Client) -> None:
        assert len((await call(client, "search_memories", query="locker code"))["results"]) == 1
        [entity] = (await call(client, "list_entities"))["entities"]
        assert entity == {"type": "user", "id": "bob", "memories": 1}

    session(memory, BOB)(as_bob)


def test_bad_arguments_are_tool_errors(memory: Engine) -> None:
    async def body(client: Client) -> None:
        # Argument errors come back as one short line per field, no pydantic boilerplate.
        assert await error(client, "search_memories", query="x", top_k=0) == (
            "search_memories: top_k: Input should be greater than or equal to 1"
        )
        both = await error(client, "search_memories", query="", top_k=500)
        assert both.startswith("search_memories: ") and "query: " in both and "top_k: " in both
        assert "pydantic" not in both and "[type=" not in both
        assert "threshold" in await error(client, "search_memories", query="x", threshold=3)
        assert "query" in await error(client, "search_memories")
        assert "text" in await error(client, "add_memory")
        assert "text" in await error(client, "add_memory", text="a", messages=[{"role": "user", "content": "b"}])
        assert "role" in await error(client, "add_memory", messages=[{"role": "robot", "content": "b"}])
        assert "timestamp" in await error(client, "add_memory", text="I moved to Oslo", timestamp="not a date")
        assert "filter" in (await error(client, "search_memories", query="x", filters={"nosuch": {"op": 1}})).lower()
        assert "text" in await error(client, "update_memory", memory_id="abc")
        assert "page_size" in await error(client, "list_memories", page_size=1000)
        assert "as_of" in await error(client, "search_memories", query="x", as_of="last Tuesday-ish")
        assert "reference_date" in await error(client, "search_memories", query="x", reference_date="soon")
        assert "as_of" in await error(client, "list_memories", as_of="13/45/2026")
        # The server is still fine after all that.
        assert (await call(client, "list_memories"))["total"] == 0

    session(memory, ALICE)(body)


def test_read_only_and_unscoped_callers(memory: Engine) -> None:
    reader = Caller(actor="reader", role=Role.READER, pinned={"user_id": "alice"})

    async def read_only(client: Client) -> None:
        assert "read-only" in await error(client, "add_memory", text="I like jazz")
        assert (await call(client, "list_memories"))["total"] == 0

    session(memory, reader)(read_only)

    async def unscoped(client: Client) -> None:
        assert "user_id" in await error(client, "add_memory", text="I like jazz")
        await call(client, "add_memory", text="I like jazz", user_id="carol", infer=False)
        await call(client, "add_memory", text="I like blues", agent_id="dj", infer=False)
        kinds = {(e["type"], e["id"]) for e in (await call(client, "list_entities"))["entities"]}
        assert kinds == {("user", "carol"), ("agent", "dj")}

    session(memory, Caller(actor="operator"))(unscoped)


def test_recent_resource_and_recall_prompt(memory: Engine) -> None:
    async def body(client: Client) -> None:
        await call(client, "add_memory", text="I prefer window seats on flights", infer=False)
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["memorist://recent{?limit}"]
        contents = (await client.read_resource("memorist://recent?limit=5")).contents
        recent = json.loads(contents[0].text)  # type: ignore[union-attr]
        assert [r["memory"] for r in recent] == ["I prefer window seats on flights"]
        prompt = await client.get_prompt("recall", {"topic": "window seats flights"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "I prefer window seats on flights" in text

    session(memory, ALICE)(body)
