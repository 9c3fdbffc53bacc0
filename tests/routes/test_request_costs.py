"""What one request may cost (issue 39, items 1, 8 and 12), at every door, in process.

- Metadata is copied onto each memory an add stores: an add is bounded by the bytes it can
  store (content plus metadata once per memory), not only by its characters of content.
- Filters are bounded by values and bytes, not only by conditions; ``in`` matches by a set.
- The MCP ``recall`` prompt's topic has the same length limit as every search query.

Each refusal is a 4xx naming the limit, and nothing is stored.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.engine.add_request import MAX_BATCH_STORED_BYTES, MAX_METADATA_BYTES
from memorist.engine.search import MAX_QUERY_CHARS
from memorist.errors import InputTooLarge, InvalidFilterError
from memorist.filters import MAX_FILTER_BYTES, MAX_FILTER_VALUES, Condition, Or, evaluate, parse_filter
from memorist.http import create_app
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.python.memory import Memory as Facade
from memorist.records import MemoryRecord
from memorist.tenancy import Tenancy

from tests.conftest import fast_settings
from tests.plugins import hashing

ADMIN_KEY = "request-costs-admin-key-0123456789"
ADMIN = {"X-API-Key": ADMIN_KEY}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[falcon.testing.TestClient, dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("costs")
    overrides = fast_settings(tmp, queue={"workers": 1, "poll_seconds": 0.05}, auth={"admin_api_key": ADMIN_KEY})
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


def lines(count: int, tag: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{tag} note {i}: the blue door opens at {i} o'clock."} for i in range(count)]


#: Under the per-add metadata limit, but 300 memories each carrying it are over the stored-bytes limit.
HEAVY = {"doc": "x" * (MAX_METADATA_BYTES - 100)}
TOO_BIG = {"doc": "é" * MAX_METADATA_BYTES}  # 2 bytes a character: twice the limit in bytes


def count(client: falcon.testing.TestClient, platform: dict[str, str], user: str) -> int:
    selfhosted = client.simulate_get("/memories", headers=ADMIN, params={"user_id": user}).json["count"]
    listed = client.simulate_post("/v3/memories/", headers=platform, json={"filters": {"user_id": user}})
    assert listed.status_code == 200, listed.text
    return int(selfhosted) + len(listed.json["results"])


@pytest.mark.parametrize(
    ("metadata", "messages", "limit"),
    [(TOO_BIG, 1, "MAX_METADATA_BYTES"), (HEAVY, 300, "MAX_ADD_STORED_BYTES")],
    ids=["metadata", "metadata-times-memories"],
)
@pytest.mark.parametrize(
    ("path", "extra"),
    [
        ("/memories", {"infer": False}),
        ("/memories", {}),
        ("/v3/memories/add/", {"infer": False}),
        ("/v3/memories/add/", {}),
        ("/v1/memories/", {"infer": False}),
        ("/v1/memories/", {}),
    ],
)
def test_an_add_past_its_stored_bytes_is_413_and_stores_nothing(
    app: Any, metadata: dict[str, Any], messages: int, limit: str, path: str, extra: dict[str, Any]
) -> None:
    client, platform = app
    user = f"heavy-{limit}-{path.strip('/').replace('/', '-')}"
    body = {"messages": lines(messages, "heavy"), "user_id": user, "metadata": metadata, **extra}
    resp = client.simulate_post(path, headers=ADMIN if path == "/memories" else platform, json=body)
    assert resp.status_code == 413, resp.text
    detail = resp.json.get("detail") or resp.json.get("error") or resp.text
    assert limit in detail and "metadata" in detail, detail
    assert count(client, platform, user) == 0


@pytest.mark.parametrize(("path", "as_admin"), [("/memories/batch", True), ("/v3/memories/add/batch/", False)])
def test_a_batch_past_its_stored_bytes_is_413_and_stores_nothing(app: Any, path: str, as_admin: bool) -> None:
    client, platform = app
    per_item = 100  # 100 memories x ~32 KB each: ~3.2 MB an add, under one add's limit
    items = [
        {"messages": lines(per_item, f"b{i}"), "user_id": "batch-heavy", "metadata": HEAVY, "infer": False}
        for i in range(1 + MAX_BATCH_STORED_BYTES // (per_item * MAX_METADATA_BYTES))
    ]
    resp = client.simulate_post(path, headers=ADMIN if as_admin else platform, json={"items": items})
    assert resp.status_code == 413, resp.text
    assert "MAX_BATCH_STORED_BYTES" in resp.text
    assert count(client, platform, "batch-heavy") == 0


def test_metadata_within_the_limits_is_stored_and_filterable(app: Any) -> None:
    """A normal add with metadata on several memories still works, and its metadata filters."""
    client, platform = app
    metadata = {"source": "crm", "tags": ["vip", "北京"], "note": "Ünïcödé ok " * 200}
    resp = client.simulate_post(
        "/memories",
        headers=ADMIN,
        json={"messages": lines(20, "meta"), "user_id": "meta-ok", "metadata": metadata, "infer": False},
    )
    assert resp.status_code in (200, 202), resp.text
    found = client.simulate_post(
        "/v3/memories/",
        headers=platform,
        json={"filters": {"AND": [{"user_id": "meta-ok"}, {"metadata.source": {"in": ["crm", "erp"]}}]}},
    )
    assert found.status_code == 200
    assert count(client, platform, "meta-ok") == 20  # self-hosted space; the platform project has none
    listed = client.simulate_get("/memories", headers=ADMIN, params={"user_id": "meta-ok"}).json["results"]
    assert all(r["metadata"]["tags"] == ["vip", "北京"] for r in listed)


def test_python_doors_count_metadata_too(tmp_path: Path) -> None:
    engine = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    mem = Facade(engine=engine)
    try:
        with pytest.raises(InputTooLarge, match="MAX_ADD_STORED_BYTES"):
            mem.add(lines(300, "py"), user_id="py", metadata=HEAVY, infer=False)
        with pytest.raises(InputTooLarge, match="MAX_METADATA_BYTES"):
            mem.add("I like tea", user_id="py", metadata=TOO_BIG)
        items = [{"messages": lines(100, "py"), "user_id": "py", "metadata": HEAVY, "infer": False}] * 6
        with pytest.raises(InputTooLarge, match="MAX_BATCH_STORED_BYTES"):
            mem.add_many(items)
        assert mem.get_all(user_id="py")["results"] == []
        stored = mem.add(lines(3, "py"), user_id="py", metadata={"k": "v"}, infer=False)
        assert len(stored["results"]) == 3
        with pytest.raises(ValueError, match="MAX_QUERY_CHARS"):
            mem.search("q" * (MAX_QUERY_CHARS + 1), user_id="py")
    finally:
        engine.close()


# -- filters (item 8) ------------------------------------------------------------------------


def test_filter_values_and_bytes_are_bounded() -> None:
    """200 ORs of a 300-value ``in`` are 200 conditions but 60,000 values: refused."""
    flood = {"OR": [{"metadata.k": {"in": [f"v{i}-{j}" for j in range(300)]}} for i in range(200)]}
    with pytest.raises(InvalidFilterError, match=f"more than {MAX_FILTER_VALUES} values"):
        parse_filter(flood)
    with pytest.raises(InvalidFilterError, match="MAX_FILTER_VALUES"):
        parse_filter({"user_id": {"in": [f"u{i}" for i in range(MAX_FILTER_VALUES + 1)]}})
    long_values = {"metadata.k": {"in": ["x" * 1000 for _ in range(MAX_FILTER_BYTES // 1000 + 1)]}}
    with pytest.raises(InvalidFilterError, match="MAX_FILTER_BYTES"):
        parse_filter(long_values)
    parse_filter({"user_id": {"in": [f"u{i}" for i in range(MAX_FILTER_VALUES)]}})  # at the limit: fine


@pytest.mark.parametrize("path", ["/search", "/v3/memories/search/", "/v3/memories/", "/v2/memories/search/"])
def test_a_filter_flood_is_400_naming_the_limit(app: Any, path: str) -> None:
    client, platform = app
    flood = {"OR": [{"metadata.k": {"in": [f"v{i}-{j}" for j in range(300)]}} for i in range(200)]}
    body: dict[str, Any] = {"filters": flood}
    if "search" in path:
        body["query"] = "blue door"
    resp = client.simulate_post(path, headers=ADMIN if path == "/search" else platform, json=body)
    assert resp.status_code == 400, resp.text
    assert "MAX_FILTER_VALUES" in resp.text


def test_in_matches_by_set_with_the_list_semantics() -> None:
    now = datetime.now(UTC)
    record = MemoryRecord(
        id="m1",
        text="t",
        hash="h",
        user_id="alice",
        metadata={"k": 7, "tags": ["a", "b"]},
        observed_at=now,
        created_at=now,
        updated_at=now,
    )
    values = tuple(range(1000))
    cond = Condition("metadata.k", "in", values)
    assert cond.members is not None and 7 in cond.members
    assert evaluate(cond, record)
    assert not evaluate(Condition("metadata.k", "nin", values), record)
    assert evaluate(Condition("metadata.tags", "in", ("b", "z")), record)
    assert evaluate(Or((Condition("user_id", "in", ("bob",)), Condition("user_id", "in", ("alice",)))), record)
    assert not evaluate(Condition("metadata.missing", "in", ("a",)), record)


# -- the MCP recall prompt (item 12) ------------------------------------------------------------


def test_mcp_add_metadata_and_recall_topic_are_bounded(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import Client
    from mcp.shared.exceptions import MCPError
    from memorist.mcp.adapter import MemoryAccess
    from memorist.mcp.tools import build_server, fixed_caller
    from memorist.operations import Caller, Operations

    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    operations = Operations(lambda: mem)
    server = build_server(MemoryAccess(lambda: operations), fixed_caller(Caller(actor="a", pinned={"user_id": "a"})))

    async def main() -> tuple[str, str]:
        async with Client(server, mode="legacy") as client:
            await client.call_tool("add_memory", {"text": "I prefer aisle seats", "infer": False})
            heavy = await client.call_tool("add_memory", {"text": "I like tea", "metadata": TOO_BIG})
            assert heavy.is_error and "MAX_METADATA_BYTES" in heavy.content[0].text  # type: ignore[union-attr]
            ok = await client.get_prompt("recall", {"topic": "aisle seats"})
            try:
                await client.get_prompt("recall", {"topic": "seat " * (MAX_QUERY_CHARS // 5 + 1)})
            except MCPError as exc:
                return ok.messages[0].content.text, str(exc)  # type: ignore[union-attr]
            raise AssertionError("a topic past the limit was answered")

    try:
        ok, refused = asyncio.run(main())
    finally:
        mem.close()
    assert "I prefer aisle seats" in ok
    assert "MAX_QUERY_CHARS" in refused and len(refused) < 1000


def test_every_search_door_shares_the_query_limit(app: Any) -> None:
    client, platform = app
    long_query = "q" * (MAX_QUERY_CHARS + 1)
    for path, headers in (("/search", ADMIN), ("/v3/memories/search/", platform), ("/v1/memories/search/", platform)):
        resp = client.simulate_post(path, headers=headers, json={"query": long_query, "user_id": "x"})
        assert resp.status_code in (400, 422), (path, resp.text)


def test_an_extraction_that_multiplies_metadata_is_refused_before_any_write(tmp_path: Path) -> None:
    """One message, 20 KB of metadata: fine before extraction; a model proposing 300 facts from it
    would store each with the metadata (6 MB): 413 naming the limit, nothing stored."""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        settings = fast_settings(
            tmp_path, language_model={"provider": "openai", "options": {"base_url": fake.base_url}}
        )
        engine = Engine.from_config(settings, plugins=load_plugins({}, extra=[hashing]))
        try:
            facts = [{"text": f"Kiwi{i} is a parrot.", "source_message": 0} for i in range(300)]
            fake.script_chat(json.dumps({"memories": facts}))
            with pytest.raises(InputTooLarge, match="MAX_ADD_STORED_BYTES"):
                engine.add("My parrots are Kiwi0 to Kiwi299.", user_id="fx", metadata={"doc": "d" * 20_000})
            assert engine.list(user_id="fx").records == []
            fake.script_chat(json.dumps({"memories": facts[:3]}))
            assert len(engine.add("My parrots are Kiwi0 to Kiwi2.", user_id="fx", metadata={"doc": "d" * 20_000})) == 3
        finally:
            engine.close()
