"""``/mcp`` in process (``falcon.testing.TestClient``): raw JSON-RPC through the WSGI route and the bridge.

Why here as well as against a real server: these run in seconds, so every
branch of the route (credentials to scope, the body limit, the bridge's event
loop) is exercised on each change; ``test_mcp_http.py`` keeps what only a real
gunicorn shows (workers, the fork, the official client over the network).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon.testing
import pytest

pytest.importorskip("mcp")

from memorist.config.settings import load_settings  # noqa: E402
from memorist.http import create_app  # noqa: E402
from memorist.plugin.manager import load_plugins  # noqa: E402

from tests.conftest import fast_settings  # noqa: E402
from tests.plugins import hashing  # noqa: E402

ADMIN_KEY = "route-admin-key-0123456789"
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[falcon.testing.TestClient]:
    monkeypatch.setenv("JWT_SECRET", "route-jwt-secret-0123456789abcdef0123")
    monkeypatch.setenv("ADMIN_API_KEY", ADMIN_KEY)
    settings = load_settings(None, fast_settings(tmp_path, limits={"max_body_bytes": 4096}))
    yield falcon.testing.TestClient(create_app(settings, load_plugins({}, extra=[hashing])))


def rpc(
    client: falcon.testing.TestClient, headers: dict[str, str], method: str, params: dict[str, Any] | None = None
) -> falcon.testing.Result:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    version = {} if method == "initialize" else {"MCP-Protocol-Version": "2025-11-25"}
    return client.simulate_post("/mcp", body=json.dumps(body), headers={**HEADERS, **version, **headers})


def tool(client: falcon.testing.TestClient, headers: dict[str, str], name: str, **args: Any) -> dict[str, Any]:
    answer = rpc(client, headers, "tools/call", {"name": name, "arguments": args})
    assert answer.status_code == 200, answer.text
    return dict(answer.json["result"])


def key_for(client: falcon.testing.TestClient, name: str) -> dict[str, str]:
    user = {"name": name, "email": f"{name}@route.test", "password": f"{name}-password-1"}
    assert client.simulate_post("/auth/users", json=user, headers={"X-API-Key": ADMIN_KEY}).status_code in (200, 201)
    token = client.simulate_post("/auth/login", json={"email": user["email"], "password": user["password"]})
    bearer = {"Authorization": f"Bearer {token.json['access_token']}"}
    key = client.simulate_post("/api-keys", json={"label": "mcp"}, headers=bearer)
    return {"X-API-Key": key.json["key"]}


def test_handshake_and_tools_through_the_route(client: falcon.testing.TestClient) -> None:
    admin = {"X-API-Key": ADMIN_KEY}
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    hello = rpc(client, admin, "initialize", params)
    assert hello.status_code == 200, hello.text
    assert hello.json["result"]["serverInfo"]["name"] == "memorist"
    assert "Mcp-Session-Id" not in hello.headers  # stateless: nothing to pin to a worker
    listed = rpc(client, admin, "tools/list")
    assert {t["name"] for t in listed.json["result"]["tools"]} >= {"add_memory", "search_memories"}


def test_user_keys_are_confined_to_their_account(client: falcon.testing.TestClient) -> None:
    cleo, dan = key_for(client, "cleo"), key_for(client, "dan")
    added = tool(client, cleo, "add_memory", text="I keep bees on my balcony.")
    assert not added.get("isError") and added["structuredContent"]["scope"] == {"user_id": "cleo@route.test"}
    assert len(tool(client, cleo, "search_memories", query="bees balcony")["structuredContent"]["results"]) == 1
    assert tool(client, dan, "search_memories", query="bees balcony")["structuredContent"]["results"] == []
    widened = tool(client, dan, "search_memories", query="bees", user_id="cleo@route.test")
    assert widened["isError"] and "confined to user_id='dan@route.test'" in widened["content"][0]["text"]


def test_route_refusals(client: falcon.testing.TestClient) -> None:
    assert rpc(client, {}, "tools/list").status_code == 401
    assert rpc(client, {"Authorization": "Bearer not-a-jwt"}, "tools/list").status_code == 401
    big = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x" * 5000}}
    too_big = client.simulate_post("/mcp", body=json.dumps(big), headers={**HEADERS, "X-API-Key": ADMIN_KEY})
    assert too_big.status_code == 413 and "4096" in too_big.json["detail"]
    assert client.simulate_get("/mcp", headers={"X-API-Key": ADMIN_KEY}).status_code == 405
    assert client.simulate_delete("/mcp", headers={"X-API-Key": ADMIN_KEY}).status_code == 405


def test_query_parameters_narrow_never_widen(client: falcon.testing.TestClient) -> None:
    cleo, dan, admin = key_for(client, "cleo"), key_for(client, "dan"), {"X-API-Key": ADMIN_KEY}
    tool(client, cleo, "add_memory", text="I water the tomatoes every evening.", infer=False)

    def at(query: str, headers: dict[str, str], name: str, **args: Any) -> falcon.testing.Result:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}}
        version = {"MCP-Protocol-Version": "2025-11-25"}
        return client.simulate_post(
            "/mcp", body=json.dumps(body), query_string=query, headers={**HEADERS, **version, **headers}
        )

    added = at("agent_id=gardener", cleo, "add_memory", text="Aphids on the roses again.", infer=False)
    assert added.json["result"]["structuredContent"]["scope"] == {"user_id": "cleo@route.test", "agent_id": "gardener"}
    scoped = at("agent_id=gardener", cleo, "list_memories").json["result"]["structuredContent"]
    assert [r["memory"] for r in scoped["results"]] == ["Aphids on the roses again."]
    assert tool(client, cleo, "list_memories")["structuredContent"]["total"] == 2  # without the pin: both
    refused = at("agent_id=gardener", cleo, "list_memories", agent_id="cook")
    assert refused.json["result"]["isError"]
    # Another user's id in the query is refused before any tool runs.
    assert at("user_id=cleo@route.test", dan, "list_memories").status_code == 403
    assert at("org_id=elsewhere", cleo, "list_memories").status_code == 400
    # An unconfined credential can be pinned to one user for a client it configures.
    pinned = at("user_id=zed", admin, "add_memory", text="Zed's bike is blue.", infer=False)
    assert pinned.json["result"]["structuredContent"]["scope"] == {"user_id": "zed"}
    assert at("user_id=zed", admin, "list_memories", user_id="cleo@route.test").json["result"]["isError"]
