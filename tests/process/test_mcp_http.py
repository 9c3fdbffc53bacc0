"""``/mcp`` on a running ``memorist serve`` (gunicorn, two workers), through the official client SDK.

Why a real server: the transport is a bridge from gunicorn's WSGI workers to
the SDK's ASGI handler, started lazily in each worker after the fork; only a
real process shows that it answers, that consecutive requests may land on
different workers (stateless mode), and that the credentials the REST API
accepts are the ones that scope each tool call.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from memorist.testing.server import ADMIN, Server, bearer  # noqa: E402

from tests.conftest import ROOT  # noqa: E402

pytestmark = pytest.mark.timeout(300)

ADA = {"name": "Ada", "email": "ada@mcp.test", "password": "ada-password-1"}
AMY = {"name": "Amy", "email": "amy@mcp.test", "password": "amy-password-1"}
BEN = {"name": "Ben", "email": "ben@mcp.test", "password": "ben-password-1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("mcp-http")
    pythonpath = ":".join([str(ROOT), str(ROOT / "framework"), str(ROOT / "plugins")])
    srv = Server(root / "data", env={"PYTHONPATH": pythonpath}, workers=2).start()
    try:
        assert srv.post("/auth/register", json=ADA).status_code == 201
        for user in (AMY, BEN):
            assert srv.post("/auth/users", json=user, headers=ADMIN).status_code in (200, 201)
        yield srv
    finally:
        srv.stop()


def session_of(server: Server, user: dict[str, str]) -> str:
    answer = server.post("/auth/login", json={"email": user["email"], "password": user["password"]})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["access_token"])


def key_of(server: Server, user: dict[str, str]) -> str:
    answer = server.post("/api-keys", json={"label": "mcp"}, headers=bearer(session_of(server, user)))
    assert answer.status_code == 201, answer.text
    return str(answer.json()["key"])


def run(server: Server, headers: dict[str, str], body: Callable[[Client], Awaitable[Any]], mode: str = "legacy") -> Any:
    async def main() -> Any:
        async with create_mcp_http_client(headers=headers) as http:
            async with Client(streamable_http_client(f"{server.url}/mcp", http_client=http), mode=mode) as client:
                return await body(client)

    return asyncio.run(main())


async def ok(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def refused(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


def test_credentials_are_required_and_get_is_405(server: Server) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    answer = server.post("/mcp", json=message)
    assert answer.status_code == 401 and "authentication required" in answer.json()["detail"]
    assert server.post("/mcp", json=message, headers={"X-API-Key": "svcsk_nope"}).status_code == 401
    assert server.post("/mcp", json=message, headers={"Authorization": "Token m0-nope"}).status_code == 401
    assert server.get("/mcp", headers=ADMIN).status_code == 405
    # Past authentication, the transport's own checks answer (nothing reaches a tool).
    accept = {"Accept": "application/json, text/event-stream"}
    plain = server.post("/mcp", data=json.dumps(message), headers={**ADMIN, **accept, "Content-Type": "text/plain"})
    assert plain.status_code == 400 and "Content-Type" in plain.text, plain.text
    broken = server.post("/mcp", data=b"{not json", headers={**ADMIN, **accept, "Content-Type": "application/json"})
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700, broken.text


def test_user_key_adds_and_searches_a_second_user_sees_nothing(server: Server) -> None:
    amy_key = key_of(server, AMY)

    async def as_amy(client: Client) -> str:
        assert client.server_info is not None and client.server_info.name == "memorist"
        assert client.protocol_version == "2025-11-25"  # the initialize handshake (today's desktop clients)
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"add_memory", "search_memories", "memory_history"} <= names
        added = await ok(client, "add_memory", text="I am training for the Berlin marathon in September.")
        assert added["scope"] == {"user_id": AMY["email"]}
        found = await ok(client, "search_memories", query="Berlin marathon training")
        assert len(found["results"]) == 1
        # Several calls in a row: with two workers they are served by either one.
        for _ in range(4):
            assert len((await ok(client, "list_memories"))["results"]) == 1
        return str(found["results"][0]["id"])

    memory_id = run(server, {"X-API-Key": amy_key}, as_amy)

    async def as_ben(client: Client) -> None:
        assert client.protocol_version == "2026-07-28"  # no initialize: one self-contained POST per call
        assert (await ok(client, "search_memories", query="Berlin marathon training"))["results"] == []
        assert (await ok(client, "list_memories"))["total"] == 0
        assert "confined to user_id='ben@mcp.test'" in await refused(
            client, "search_memories", query="marathon", user_id=AMY["email"]
        )
        wide = await ok(client, "search_memories", query="marathon", filters={"user_id": AMY["email"]})
        assert wide["results"] == []
        for tool in ("get_memory", "memory_history", "delete_memory"):
            assert "not found" in await refused(client, tool, memory_id=memory_id)
        assert (await ok(client, "list_entities"))["entities"] == []
        assert "top_k" in await refused(client, "search_memories", query="x", top_k=10_000)

    # Ben uses a dashboard session (Bearer JWT) and the 2026 single-exchange protocol.
    run(server, bearer(session_of(server, BEN)), as_ben, mode="auto")

    # Amy's memory is untouched, and an admin account may read it by naming her.
    async def as_ada(client: Client) -> None:
        assert (await ok(client, "get_memory", memory_id=memory_id))["user_id"] == AMY["email"]
        own = await ok(client, "list_memories")
        assert own["scope"] == {"user_id": ADA["email"]} and own["total"] == 0
        assert (await ok(client, "list_memories", user_id=AMY["email"]))["total"] == 1

    run(server, bearer(session_of(server, ADA)), as_ada)


def test_platform_keys_are_confined_to_their_project(server: Server) -> None:
    def bootstrap(role: str = "OWNER") -> str:
        suffix = uuid.uuid4().hex[:6]
        body = {
            "org_name": f"org-{suffix}",
            "project_name": f"p-{suffix}",
            "email": f"{suffix}@corp.test",
            "role": role,
        }
        answer = server.post("/api/v1/admin/bootstrap/", json=body, headers=ADMIN)
        assert answer.status_code == 201, answer.text
        return str(answer.json()["key"])

    first, second, reader = bootstrap(), bootstrap(), bootstrap("READER")

    async def in_first(client: Client) -> str:
        stored = await ok(client, "add_memory", text="Customer 42 prefers email over phone.", user_id="c42")
        return str(stored["stored"][0]["id"])

    memory_id = run(server, {"Authorization": f"Token {first}"}, in_first)

    async def in_second(client: Client) -> None:
        assert (await ok(client, "search_memories", query="email phone", user_id="c42"))["results"] == []
        assert "not found" in await refused(client, "get_memory", memory_id=memory_id)
        assert (await ok(client, "list_entities"))["entities"] == []

    run(server, {"Authorization": f"Token {second}"}, in_second)

    async def as_reader(client: Client) -> None:
        assert "read-only" in await refused(client, "add_memory", text="I like tea", user_id="c1")
        assert (await ok(client, "list_memories", user_id="c1"))["total"] == 0

    run(server, {"Authorization": f"Token {reader}"}, as_reader, mode="auto")
