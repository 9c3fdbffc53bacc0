"""One authorization rule, changed in one place, reaches every door.

Each rule lives once in the operations layer: the role an operation needs in
``memorist.operations.authorize.REQUIRED``, a caller's confinement in
``memorist.operations.Caller``. Each test first shows the four doors (the
self-hosted REST API, the platform API, MCP on ``/mcp``, the Python facade)
serving a call, then changes the rule in its one place and shows every door
refusing the same call, in each door's own error shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import falcon.testing
import pytest

pytest.importorskip("mcp")

from memorist.auth.errors import PermissionDenied  # noqa: E402
from memorist.config.settings import load_settings  # noqa: E402
from memorist.http import create_app  # noqa: E402
from memorist.operations import REQUIRED, Caller, Role  # noqa: E402
from memorist.plugin.manager import load_plugins  # noqa: E402
from memorist.python.engine import Engine  # noqa: E402
from memorist.python.memory import Memory as Facade  # noqa: E402

from tests.conftest import fast_settings  # noqa: E402
from tests.plugins import hashing  # noqa: E402

ADMIN_KEY = "everywhere-admin-key-0123456789"
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
MCP_VERSION = {"MCP-Protocol-Version": "2025-11-25"}


@dataclass
class Doors:
    client: falcon.testing.TestClient
    user_key: dict[str, str]
    platform_key: dict[str, str]
    python: Facade

    def rest_search(self) -> falcon.testing.Result:
        return self.client.simulate_post("/search", json={"query": "balcony bees"}, headers=self.user_key)

    def platform_search(self) -> falcon.testing.Result:
        body = {"query": "balcony bees", "user_id": "pia"}
        return self.client.simulate_post("/v1/memories/search/", json=body, headers=self.platform_key)

    def mcp_search(self) -> dict[str, Any]:
        call = {"name": "search_memories", "arguments": {"query": "balcony bees"}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
        answer = self.client.simulate_post(
            "/mcp", body=json.dumps(body), headers={**MCP_HEADERS, **MCP_VERSION, **self.user_key}
        )
        assert answer.status_code == 200, answer.text
        return dict(answer.json["result"])

    def python_search(self) -> list[dict[str, Any]]:
        return list(self.python.search("balcony bees", user_id="pia")["results"])


@pytest.fixture
def doors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Doors]:
    monkeypatch.setenv("JWT_SECRET", "everywhere-jwt-secret-0123456789abcdef")
    monkeypatch.setenv("ADMIN_API_KEY", ADMIN_KEY)
    admin = {"X-API-Key": ADMIN_KEY}
    settings = load_settings(None, fast_settings(tmp_path / "server", queue={"workers": 0}))
    client = falcon.testing.TestClient(create_app(settings, load_plugins({}, extra=[hashing])))

    person = {"name": "Pia", "email": "pia@doors.test", "password": "pia-password-123"}
    assert client.simulate_post("/auth/users", json=person, headers=admin).status_code == 201
    login = client.simulate_post("/auth/login", json={"email": person["email"], "password": person["password"]})
    session = {"Authorization": f"Bearer {login.json['access_token']}"}
    user_key = {"X-API-Key": client.simulate_post("/api-keys", json={"label": "doors"}, headers=session).json["key"]}
    said = [{"role": "user", "content": "I keep bees on my balcony."}]
    own = client.simulate_post("/memories", json={"messages": said, "infer": False}, headers=user_key)
    assert own.status_code == 200, own.text

    boot = {"org_name": "Acme", "project_name": "Web", "email": "owner@doors.test", "role": "OWNER"}
    booted = client.simulate_post("/api/v1/admin/bootstrap/", json=boot, headers=admin)
    assert booted.status_code == 201, booted.text
    platform_key = {"Authorization": f"Token {booted.json['key']}"}
    added = {"messages": said, "user_id": "pia", "infer": False}
    assert client.simulate_post("/v1/memories/", json=added, headers=platform_key).status_code == 200

    engine = Engine.from_config(fast_settings(tmp_path / "python"), plugins=load_plugins({}, extra=[hashing]))
    python = Facade(engine=engine)
    python.add("I keep bees on my balcony.", user_id="pia", infer=False)
    yield Doors(client, user_key, platform_key, python)
    python.close()


def test_the_role_an_operation_requires_is_checked_on_every_door(doors: Doors, monkeypatch: pytest.MonkeyPatch) -> None:
    assert REQUIRED["search"] is Role.READER
    assert doors.rest_search().json["results"], "a user's key searches its own memories"
    assert doors.platform_search().json, "a platform OWNER searches the project (v1 answers a list)"
    assert doors.mcp_search()["structuredContent"]["results"], "an MCP client searches as its key's user"
    assert doors.python_search(), "the Python API searches its store"

    monkeypatch.setitem(REQUIRED, "search", Role.ADMIN)  # the one place the rule lives

    rest = doors.rest_search()
    assert rest.status_code == 403 and "ADMIN role" in rest.json["detail"]
    platform = doors.platform_search()
    assert platform.status_code == 403 and "ADMIN role" in json.dumps(platform.json)
    mcp = doors.mcp_search()
    assert mcp["isError"] and "ADMIN role" in mcp["content"][0]["text"]
    with pytest.raises(PermissionDenied, match="ADMIN role"):
        doors.python_search()


def test_the_confinement_rule_is_checked_on_every_door(doors: Doors, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Caller.owns`` decides whether a memory reached by id is the caller's: one change, four doors."""
    rest_id = doors.rest_search().json["results"][0]["id"]
    platform_id = doors.platform_search().json[0]["id"]
    python_id = doors.python_search()[0]["id"]
    assert doors.client.simulate_get(f"/memories/{rest_id}", headers=doors.user_key).status_code == 200
    assert doors.client.simulate_get(f"/v1/memories/{platform_id}/", headers=doors.platform_key).status_code == 200
    assert doors.python.get(python_id) is not None

    monkeypatch.setattr(Caller, "owns", lambda self, record: False)  # the one place the rule lives

    assert doors.client.simulate_get(f"/memories/{rest_id}", headers=doors.user_key).status_code == 404
    assert doors.client.simulate_get(f"/v1/memories/{platform_id}/", headers=doors.platform_key).status_code == 404
    call = {"name": "get_memory", "arguments": {"memory_id": rest_id}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    answer = doors.client.simulate_post(
        "/mcp", body=json.dumps(body), headers={**MCP_HEADERS, **MCP_VERSION, **doors.user_key}
    )
    assert answer.json["result"]["isError"] and "not found" in answer.json["result"]["content"][0]["text"]
    assert doors.python.get(python_id) is None
