"""Every field a response carries is declared in the app's OpenAPI document, and every
request limit the document states is the named constant in ``memorist.limits``.

Real responses (add, get, list, search, history, with a supersession present) are driven
through the in-process app on both surfaces and each key is looked up in the route's
declared schema, recursively, so a field added to a result builder but not to its model
fails here instead of surprising a client generated from /openapi.json."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from memorist import limits
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN

MONDAY = "2026-03-02T09:00:00Z"
FRIDAY = "2026-03-06T18:00:00Z"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("wire") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def document(server: Server) -> dict[str, Any]:
    return dict(server.get("/openapi.json").json())


@pytest.fixture(scope="module")
def platform_key(server: Server) -> dict[str, str]:
    resp = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": "Acme", "project_name": "Web", "email": "o@acme.test", "org_id": "acme", "project_id": "w"},
    )
    assert resp.status_code == 201, resp.text
    return {"Authorization": f"Token {resp.json()['key']}"}


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = doc
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _variants(doc: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    schema = _resolve(doc, schema)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return [v for s in schema[key] for v in _variants(doc, s)]
    return [schema]


def undeclared(doc: dict[str, Any], schema: dict[str, Any], value: Any, where: str = "") -> list[str]:
    """Paths of ``value``'s keys that no variant of ``schema`` declares."""
    variants = _variants(doc, schema)
    if isinstance(value, list):
        items = [v["items"] for v in variants if v.get("type") == "array" and "items" in v]
        if not items:
            return []
        return [p for i, element in enumerate(value) for p in undeclared(doc, items[0], element, f"{where}[{i}]")]
    if not isinstance(value, dict):
        return []
    objects = [v for v in variants if "properties" in v]
    if not objects or any(v.get("additionalProperties") not in (None, False) for v in objects):
        return []  # a free-form map (metadata): any key is allowed
    found: list[str] = []
    for key, child in value.items():
        declared = [v["properties"][key] for v in objects if key in v["properties"]]
        if not declared:
            found.append(f"{where}.{key}")
            continue
        found += undeclared(doc, declared[0], child, f"{where}.{key}")
    return found


def response_schema(doc: dict[str, Any], method: str, path: str, status: int = 200) -> dict[str, Any]:
    answer = doc["paths"][path][method]["responses"][str(status)]
    return dict(answer["content"]["application/json"]["schema"])


def check(doc: dict[str, Any], method: str, template: str, resp: Any) -> None:
    assert resp.status_code in (200, 201), resp.text
    missing = undeclared(doc, response_schema(doc, method, template, resp.status_code), resp.json())
    assert missing == [], f"{method.upper()} {template} emits undeclared fields: {missing}"


def test_selfhosted_responses_carry_only_declared_fields(server: Server, document: dict[str, Any]) -> None:
    def add(text: str, timestamp: str) -> str:
        resp = server.post(
            "/memories",
            headers=ADMIN,
            json={"messages": [{"role": "user", "content": text}], "user_id": "eve", "timestamp": timestamp},
        )
        check(document, "post", "/memories", resp)
        return str(resp.json()["results"][0]["id"])

    old = add("My favorite color is blue.", MONDAY)
    new = add("My favorite color is green.", FRIDAY)
    got = server.get(f"/memories/{old}", headers=ADMIN)
    assert got.json()["superseded_by"] == new and got.json()["observed_at"]  # the drift this test guards
    check(document, "get", "/memories/{memory_id}", got)
    check(document, "get", "/memories", server.get("/memories", params={"user_id": "eve"}, headers=ADMIN))
    hits = server.post("/search", headers=ADMIN, json={"query": "favorite color", "user_id": "eve"})
    check(document, "post", "/search", hits)
    check(document, "get", "/memories/{memory_id}/history", server.get(f"/memories/{old}/history", headers=ADMIN))
    check(document, "get", "/entities", server.get("/entities", headers=ADMIN))
    batch = {"items": [{"messages": [{"role": "user", "content": "Ich wohne in Köln."}], "user_id": "eve"}]}
    check(document, "post", "/memories/batch", server.post("/memories/batch", headers=ADMIN, json=batch))


def test_platform_responses_carry_only_declared_fields(
    server: Server, document: dict[str, Any], platform_key: dict[str, str]
) -> None:
    def add(text: str, timestamp: int) -> str:
        body = {
            "messages": [{"role": "user", "content": text}],
            "user_id": "pia",
            "timestamp": timestamp,
            "async_mode": False,
        }
        resp = server.post("/v1/memories/", headers=platform_key, json=body)
        check(document, "post", "/v1/memories/", resp)
        return str(resp.json()["results"][0]["id"]) if isinstance(resp.json(), dict) else str(resp.json()[0]["id"])

    old = add("My favorite color is blue.", 1772442000)
    new = add("My favorite color is green.", 1772820000)
    got = server.get(f"/v1/memories/{old}/", headers=platform_key)
    assert got.json()["superseded_by"] == new
    check(document, "get", "/v1/memories/{memory_id}/", got)
    check(
        document, "get", "/v1/memories/", server.get("/v1/memories/", params={"user_id": "pia"}, headers=platform_key)
    )
    listed = server.post("/v2/memories/", headers=platform_key, json={"filters": {"user_id": "pia"}})
    check(document, "post", "/v2/memories/", listed)
    hits = server.post(
        "/v3/memories/search/", headers=platform_key, json={"query": "favorite color", "filters": {"user_id": "pia"}}
    )
    check(document, "post", "/v3/memories/search/", hits)
    check(
        document,
        "get",
        "/v1/memories/{memory_id}/history/",
        server.get(f"/v1/memories/{old}/history/", headers=platform_key),
    )
    check(document, "get", "/v1/entities/", server.get("/v1/entities/", headers=platform_key))
    item = {"messages": [{"role": "user", "content": "Vivo en Sevilla."}], "user_id": "pia", "infer": False}
    batch = server.post("/v3/memories/add/batch/", headers=platform_key, json={"items": [item]})
    check(document, "post", "/v3/memories/add/batch/", batch)
    events = server.get("/v1/events/", headers=platform_key)
    check(document, "get", "/v1/events/", events)
    assert events.json()["results"], "a synchronous add records its event"
    event_id = events.json()["results"][0]["id"]
    check(document, "get", "/v1/event/{event_id}/", server.get(f"/v1/event/{event_id}/", headers=platform_key))


def _maximum(doc: dict[str, Any], method: str, path: str, name: str) -> Any:
    op = doc["paths"][path][method]
    for param in op.get("parameters", []):
        if param["name"] == name:
            return max(v.get("maximum", 0) for v in _variants(doc, param["schema"]))
    body = _resolve(doc, op["requestBody"]["content"]["application/json"]["schema"])
    return max(v.get("maximum", 0) for v in _variants(doc, body["properties"][name]))


@pytest.mark.parametrize(
    ("method", "path", "name", "limit"),
    [
        ("post", "/search", "top_k", "MAX_TOP_K"),
        ("get", "/memories", "page_size", "MAX_PAGE_SIZE"),
        ("post", "/v3/memories/search/", "top_k", "MAX_TOP_K"),
        ("post", "/v2/memories/search/", "top_k", "MAX_TOP_K"),
        ("get", "/v1/memories/", "page_size", "MAX_PLATFORM_PAGE_SIZE"),
        ("get", "/memories", "page", "MAX_PAGE"),
        ("get", "/v1/memories/", "page", "MAX_PAGE"),
        ("get", "/v1/events/", "page", "MAX_PAGE"),
    ],
)
def test_the_documented_maximum_is_the_named_limit(
    document: dict[str, Any], method: str, path: str, name: str, limit: str
) -> None:
    assert _maximum(document, method, path, name) == getattr(limits, limit)


def test_mcp_tools_state_the_named_limits() -> None:
    """The MCP tools' input schemas carry the same constants (MCP's are deliberately smaller)."""
    from memorist.mcp import tools

    assert tools.MAX_TOP_K is limits.MAX_MCP_TOP_K and tools.MAX_PAGE_SIZE is limits.MAX_MCP_PAGE_SIZE
    assert limits.MAX_MCP_TOP_K <= limits.MAX_TOP_K and limits.MAX_MCP_PAGE_SIZE <= limits.MAX_PAGE_SIZE


def test_a_serializer_cannot_emit_an_undeclared_field() -> None:
    """The response models are the serializers: a field no model declares cannot reach the wire."""
    import pydantic
    from memorist.operations import results, wire

    models = [
        v
        for module in (wire, results)
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, wire.WireModel) and v.model_fields
    ]
    assert {m.__name__ for m in models} >= {"MemoryItem", "SearchResult", "HistoryEntry", "EventOut", "AddedMemory"}
    for model in models:
        assert model.model_config.get("extra") == "forbid", model.__name__
    record = {name: None for name in wire.MemoryItem.model_fields} | {
        "id": "m1",
        "memory": "Tea, no sugar.",
        "hash": "h",
        "metadata": {},
        "categories": [],
    }
    with pytest.raises(pydantic.ValidationError, match="mood"):
        wire.MemoryItem(**record, mood="calm")


# -- one field, every door -------------------------------------------------------------------------
MARK = "changed in one place"


def _mcp(server: Server, tool: str, **args: Any) -> dict[str, Any]:
    """One MCP tool call through the official SDK, in process, over the server's own operations."""
    import asyncio

    pytest.importorskip("mcp")
    from mcp import Client
    from memorist.mcp.adapter import MemoryAccess
    from memorist.mcp.tools import build_server, fixed_caller
    from memorist.operations import Caller

    assert server.kernel is not None
    operations = server.kernel.operations
    mcp_server = build_server(MemoryAccess(lambda: operations), fixed_caller(Caller(actor="wire-test")))

    async def main() -> dict[str, Any]:
        async with Client(mcp_server, mode="legacy") as client:
            result = await client.call_tool(tool, args)
            assert not result.is_error, result.content
            assert isinstance(result.structured_content, dict)
            return result.structured_content

    return asyncio.run(main())


def test_a_result_field_changed_in_the_model_reaches_rest_platform_mcp_and_python(
    server: Server, platform_key: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``MemoryItem.fields_of`` is the one place a memory becomes a result: change a field there
    and the self-hosted API, the platform API, MCP and the Python facade all answer the change."""
    from memorist.operations.wire import MemoryItem
    from memorist.python.memory import Memory as Facade

    say = [{"role": "user", "content": "Ma sœur habite à Lyon."}]
    added = server.post("/memories", headers=ADMIN, json={"messages": say, "user_id": "ugo", "infer": False})
    own = added.json()["results"][0]["id"]
    body = {"messages": say, "user_id": "ugo", "infer": False, "async_mode": False, "output_format": "v1.1"}
    platform = server.post("/v1/memories/", headers=platform_key, json=body).json()["results"][0]["id"]

    built = MemoryItem.fields_of
    monkeypatch.setattr(
        MemoryItem,
        "fields_of",
        staticmethod(lambda record, links=None: {**built(record, links), "attributed_to": MARK}),
    )

    rest = [
        server.get(f"/memories/{own}", headers=ADMIN).json(),
        server.get("/memories", params={"user_id": "ugo"}, headers=ADMIN).json()["results"][0],
        server.post("/search", headers=ADMIN, json={"query": "Lyon", "user_id": "ugo"}).json()["results"][0],
    ]
    hosted = [
        server.get(f"/v1/memories/{platform}/", headers=platform_key).json(),
        server.post("/v2/memories/", headers=platform_key, json={"filters": {"user_id": "ugo"}}).json()[0],
        server.post(
            "/v3/memories/search/", headers=platform_key, json={"query": "Lyon", "filters": {"user_id": "ugo"}}
        ).json()["results"][0],
    ]
    mcp = [
        _mcp(server, "get_memory", memory_id=own),
        _mcp(server, "list_memories", user_id="ugo")["results"][0],
        _mcp(server, "search_memories", query="Lyon", user_id="ugo")["results"][0],
    ]
    assert server.kernel is not None
    python = Facade(engine=server.kernel.runtime.memory)  # type: ignore[arg-type]
    py = [
        python.get(own),
        python.get_all(user_id="ugo")["results"][0],
        python.search("Lyon", user_id="ugo")["results"][0],
    ]
    for door, answers in (("REST", rest), ("platform", hosted), ("MCP", mcp), ("Python", py)):
        for answer in answers:
            assert answer is not None and answer["attributed_to"] == MARK, (door, answer)


def test_mcp_and_python_answer_projections_of_the_declared_fields(server: Server) -> None:
    """MCP's compact views and the facade's mem0 dicts keep only fields the models declare
    (MCP's history and entities rename a few: ``at``, ``memories``; mem0's history its own)."""
    from memorist.operations.wire import HistoryEntry, MemoryItem, SearchResult
    from memorist.python.memory import Memory as Facade

    say = [{"role": "user", "content": "I switched from tea to coffee."}]
    own = server.post("/memories", headers=ADMIN, json={"messages": say, "user_id": "vic", "infer": False})
    memory_id = own.json()["results"][0]["id"]
    items = set(MemoryItem.model_fields)
    hits = set(SearchResult.model_fields)
    history = set(HistoryEntry.model_fields) | {"at"}
    got = _mcp(server, "get_memory", memory_id=memory_id)
    assert set(got) <= items and "hash" not in got  # compact: no hash, no nulls
    assert set(_mcp(server, "search_memories", query="coffee", user_id="vic")["results"][0]) <= hits
    assert all(set(e) <= history for e in _mcp(server, "memory_history", memory_id=memory_id)["events"])
    assert server.kernel is not None
    python = Facade(engine=server.kernel.runtime.memory)  # type: ignore[arg-type]
    assert set(python.get(memory_id) or {}) <= items
    assert set(python.search("coffee", user_id="vic")["results"][0]) <= hits
    assert set(python.add("Je bois du café.", user_id="vic", infer=False)["results"][0]) <= items | {"event"}


def test_mcp_tool_schemas_state_the_named_limits(server: Server) -> None:
    """What an MCP client is told (each tool's input schema) is the named constant."""
    import asyncio

    pytest.importorskip("mcp")
    from mcp import Client
    from memorist.mcp.adapter import MemoryAccess
    from memorist.mcp.tools import build_server, fixed_caller
    from memorist.operations import Caller

    assert server.kernel is not None
    operations = server.kernel.operations
    mcp_server = build_server(MemoryAccess(lambda: operations), fixed_caller(Caller(actor="wire-test")))

    async def schemas() -> dict[str, dict[str, Any]]:
        async with Client(mcp_server, mode="legacy") as client:
            return {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}

    tools = asyncio.run(schemas())
    assert tools["search_memories"]["top_k"]["maximum"] == limits.MAX_MCP_TOP_K
    assert tools["search_memories"]["query"]["maxLength"] == limits.MAX_QUERY_CHARS
    assert tools["list_memories"]["page_size"]["maximum"] == limits.MAX_MCP_PAGE_SIZE
    assert tools["list_memories"]["page"]["maximum"] == limits.MAX_PAGE
