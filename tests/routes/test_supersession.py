"""Facts over time: which memory is current, what replaced what, through every door.

The engine is real (LanceDB + SQLite in a temporary directory, the heuristic extractor)
with the hashing test embedder; the platform door is driven by the published ``mem0ai``
client, the self-hosted door in process, MCP through the official client SDK.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.engine.add_request import build_add_request
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN

from tests.conftest import fast_settings
from tests.plugins import hashing
from tests.supersession_pairs import record as _record

MONDAY = "2026-03-02T09:00:00Z"
FRIDAY = "2026-03-06T18:00:00Z"
SUNDAY = "2026-03-08T12:00:00Z"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield mem
    mem.close()


def texts(records: Any) -> list[str]:
    return sorted(r.text for r in records)


def test_a_correction_on_a_later_add_supersedes_the_earlier_fact(memory: Engine) -> None:
    old = memory.add("My phone number is 555-1234.", user_id="ana", timestamp=MONDAY)[0]
    new = memory.add("I changed my number, it's 555-9876 now.", user_id="ana", timestamp=FRIDAY)[0]
    assert memory.list(user_id="ana").total == 2  # ADD-only: both kept
    assert [r.id for r in memory.list(user_id="ana", latest_only=True).records] == [new.id]
    hits = memory.search("What is my phone number?", user_id="ana", latest_only=True, threshold=0.0)
    assert [h.record.id for h in hits] == [new.id]
    links = memory.links([old.id, new.id])
    assert links[new.id].linked_memory_ids == [old.id] and links[new.id].superseded_by is None
    assert links[old.id].superseded_by == new.id
    assert links[old.id].superseded_at is not None and links[old.id].superseded_at.isoformat().startswith("2026-03-06")
    events = memory.history(old.id)
    assert [e["event"] for e in events] == ["ADD", "SUPERSEDED"] and events[-1]["superseded_by"] == new.id
    assert memory.history(new.id)[0]["linked_memory_ids"] == [old.id]


def test_a_move_supersedes_where_the_user_lived(memory: Engine) -> None:
    memory.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)
    memory.add("I moved to Porto.", user_id="ana", timestamp=FRIDAY)
    assert texts(memory.list(user_id="ana", latest_only=True).records) == ["The user moved to Porto."]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I have a dog.", "I also have a cat."),
        ("I like tea.", "I like coffee."),
        ("I visited Paris in May.", "I visited Rome in June."),
        ("My sister lives in Berlin.", "I live in Lisbon."),
    ],
)
def test_an_additive_fact_supersedes_nothing(memory: Engine, first: str, second: str) -> None:
    memory.add(first, user_id="ana", timestamp=MONDAY)
    memory.add(second, user_id="ana", timestamp=FRIDAY)
    assert memory.list(user_id="ana", latest_only=True).total == 2


def test_other_users_and_speakers_never_supersede(memory: Engine) -> None:
    memory.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)
    memory.add("I moved to Porto.", user_id="bob", timestamp=FRIDAY)
    assert memory.list(user_id="ana", latest_only=True).total == 1


def test_delete_linked_removes_the_chain_and_keeps_history(memory: Engine) -> None:
    first = memory.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)[0]
    second = memory.add("I moved to Porto.", user_id="ana", timestamp=FRIDAY)[0]
    third = memory.add("I relocated to Madrid this weekend.", user_id="ana", timestamp=SUNDAY)[0]
    assert [r.id for r in memory.list(user_id="ana", latest_only=True).records] == [third.id]
    memory.delete(third.id, delete_linked=True)
    assert memory.list(user_id="ana").total == 0
    for gone in (first, second, third):
        assert memory.history(gone.id)[-1]["event"] == "DELETE"


def test_deleting_the_current_version_alone_makes_the_older_current_again(memory: Engine) -> None:
    old = memory.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)[0]
    new = memory.add("I moved to Porto.", user_id="ana", timestamp=FRIDAY)[0]
    memory.delete(new.id)
    assert [r.id for r in memory.list(user_id="ana", latest_only=True).records] == [old.id]
    assert memory.links([old.id])[old.id].superseded_by is None


def test_as_of_answers_with_the_version_current_then(memory: Engine) -> None:
    old = memory.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)[0]
    new = memory.add("I moved to Porto.", user_id="ana", timestamp=FRIDAY)[0]
    wednesday = "2026-03-04T00:00:00Z"
    assert [r.id for r in memory.list(user_id="ana", latest_only=True, as_of=wednesday).records] == [old.id]
    hits = memory.search("Where do I live?", user_id="ana", latest_only=True, as_of=wednesday, threshold=0.0)
    assert [h.record.id for h in hits] == [old.id]
    assert [r.id for r in memory.list(user_id="ana", latest_only=True, as_of=SUNDAY).records] == [new.id]
    assert memory.list(user_id="ana", as_of="2026-03-01").total == 0


def test_a_batch_supersedes_across_its_requests(memory: Engine) -> None:
    requests = [
        build_add_request("I work at Google as an engineer.", user_id="ana", timestamp=MONDAY),
        build_add_request("I just started a new job at Spotify.", user_id="ana", timestamp=FRIDAY),
    ]
    memory.add_many(requests)
    assert texts(memory.list(user_id="ana", latest_only=True).records) == [
        "The user just started a new job at Spotify."
    ]


# -- the platform door, driven by the published client ------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    os.environ.update({"MEM0_TELEMETRY": "False", "MEM0_DIR": str(tmp_path_factory.mktemp("mem0home"))})
    srv = Server(tmp_path_factory.mktemp("supersession") / "data").start()
    with srv.serving_requests():
        yield srv
    srv.stop()


@pytest.fixture(scope="module")
def client(server: Server) -> Any:
    from mem0 import MemoryClient

    resp = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": "Acme", "project_name": "Web", "email": "o@acme.test", "org_id": "acme", "project_id": "w"},
    )
    assert resp.status_code == 201, resp.text
    return MemoryClient(api_key=resp.json()["key"], host=server.url, client=server.httpx_client())


def queued_add(server: Server, client: Any, text: str, user: str, timestamp: int) -> str:
    """An add through the asynchronous queue (the client's default), waited for."""
    ack = client.add([{"role": "user", "content": text}], user_id=user, timestamp=timestamp)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        event = client.client.get(f"/v1/event/{ack['event_id']}/").json()
        if event["status"] == "SUCCEEDED":
            return str(event["results"][0]["id"])
        assert event["status"] != "FAILED", event
        time.sleep(0.05)
    raise AssertionError("add still pending")


def test_mem0_client_latest_only_and_delete_linked(server: Server, client: Any) -> None:
    old = queued_add(server, client, "My phone number is 555-1234.", "carla", 1772442000)
    new = queued_add(server, client, "I changed my number, it's 555-9876 now.", "carla", 1772820000)
    everything = client.get_all(filters={"user_id": "carla"})["results"]
    assert {m["id"] for m in everything} == {old, new}
    current = client.get_all(filters={"user_id": "carla"}, latest_only=True)["results"]
    assert [m["id"] for m in current] == [new]
    assert current[0]["linked_memory_ids"] == [old] and current[0]["superseded_by"] is None
    older = client.get(old)
    assert older["superseded_by"] == new and older["superseded_at"]
    found = client.search("phone number", filters={"user_id": "carla"}, latest_only=True, threshold=0.0)
    assert [m["id"] for m in found["results"]] == [new]
    # Search results keep exactly their fields: the links are on get, list and history.
    assert "linked_memory_ids" not in found["results"][0] and "superseded_by" not in found["results"][0]
    assert [h["event"] for h in client.history(old)] == ["ADD", "SUPERSEDED"]
    client.delete(new, delete_linked=True)
    assert client.get_all(filters={"user_id": "carla"})["results"] == []
    assert client.history(old)[-1]["event"] == "DELETE"


def test_mem0_client_delete_without_linked_lets_the_older_resurface(server: Server, client: Any) -> None:
    old = queued_add(server, client, "I live in Lisbon.", "dora", 1772442000)
    new = queued_add(server, client, "I moved to Porto.", "dora", 1772820000)
    client.delete(new)
    assert [m["id"] for m in client.get_all(filters={"user_id": "dora"}, latest_only=True)["results"]] == [old]


# -- the self-hosted door -------------------------------------------------------------------


def test_selfhosted_routes_show_and_follow_the_links(server: Server) -> None:
    def add(text: str, timestamp: str) -> str:
        resp = server.post(
            "/memories",
            headers=ADMIN,
            json={"messages": [{"role": "user", "content": text}], "user_id": "eve", "timestamp": timestamp},
        )
        assert resp.status_code == 200, resp.text
        return str(resp.json()["results"][0]["id"])

    old = add("My favorite color is blue.", MONDAY)
    new = add("My favorite color is green.", FRIDAY)
    listed = server.get("/memories", params={"user_id": "eve", "latest_only": "true"}, headers=ADMIN).json()
    assert [m["id"] for m in listed["results"]] == [new] and listed["count"] == 1
    assert listed["results"][0]["linked_memory_ids"] == [old]
    assert server.get(f"/memories/{old}", headers=ADMIN).json()["superseded_by"] == new
    hits = server.post(
        "/search", headers=ADMIN, json={"query": "favorite color", "user_id": "eve", "latest_only": True}
    ).json()["results"]
    assert [h["id"] for h in hits] == [new] and "superseded_by" not in hits[0]
    history = server.get(f"/memories/{old}/history", headers=ADMIN).json()
    assert history[-1]["event"] == "SUPERSEDED" and history[-1]["superseded_by"] == new
    bad = server.request("DELETE", f"/memories/{new}", params={"delete_linked": "maybe"}, headers=ADMIN)
    assert bad.status_code in (400, 422) and "delete_linked" in bad.text
    assert server.get("/memories", params={"user_id": "eve"}, headers=ADMIN).json()["count"] == 2
    done = server.request("DELETE", f"/memories/{new}", params={"delete_linked": "true"}, headers=ADMIN)
    assert done.status_code == 200
    assert server.get("/memories", params={"user_id": "eve"}, headers=ADMIN).json()["count"] == 0


# -- MCP --------------------------------------------------------------------------------


def test_mcp_tools_take_latest_only_and_delete_linked(memory: Engine) -> None:
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

            async def call(tool: str, **args: Any) -> dict[str, Any]:
                result = await mcp.call_tool(tool, args)
                assert not result.is_error, result.content
                assert isinstance(result.structured_content, dict)
                return result.structured_content

            listed = await call("list_memories", latest_only=True)
            assert [m["id"] for m in listed["results"]] == [new.id]
            assert listed["results"][0]["linked_memory_ids"] == [old.id]
            found = await call("search_memories", query="where does the user live", latest_only=True, threshold=0.0)
            assert [m["id"] for m in found["results"]] == [new.id]
            assert (await call("get_memory", memory_id=old.id))["superseded_by"] == new.id
            await call("delete_memory", memory_id=new.id, delete_linked=True)
            assert (await call("list_memories"))["total"] == 0

    asyncio.run(main())


def test_mem0_client_project_decay_turns_decay_on_for_its_searches(server: Server, client: Any) -> None:
    """Decay per project (``client.project.update(decay=True)``): shown in ``explain``, off again
    with ``decay=False`` (the scores are then those of a search that never decayed)."""
    old = int(time.time()) - 3 * 365 * 86_400
    client.add([{"role": "user", "content": "I took a hiking trip in the mountains."}], user_id="hal", timestamp=old)
    client.add([{"role": "user", "content": "I went on a hiking trip."}], user_id="hal", infer=False)
    deadline = time.monotonic() + 60
    while len(client.get_all(filters={"user_id": "hal"})["results"]) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)

    def search() -> list[dict[str, Any]]:
        return client.search("hiking trip mountains", filters={"user_id": "hal"}, explain=True, threshold=0.0)[
            "results"
        ]

    before = search()
    assert all("decay" not in hit["score_details"] for hit in before)
    client.project.update(decay=True)
    decaying = search()
    factors = {hit["memory"]: hit["score_details"]["decay"] for hit in decaying}
    assert min(factors.values()) < 0.4 < 1.0 < max(factors.values())
    client.project.update(decay=False)
    assert [(h["id"], h["score"]) for h in search()] == [(h["id"], h["score"]) for h in before]


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        ("The user's phone number is 555-1234.", "The user changed their number, it's 555-9876 now.", True),
        ("The user is a junior lawyer at Baker McKenzie.", "The user was promoted to associate.", True),
        ("The user is 34 years old.", "The user turned 35 today.", True),
        ("The user has a dog.", "The user also has a cat.", False),
        ("The user's sister lives in Berlin.", "The user lives in Lisbon.", False),
        ("The user visited Paris in May.", "The user visited Rome in June.", False),
        # A value's shape names its attribute in any language; other words stay apart.
        ("Mi número de teléfono es 612 345 678.", "Mi nuevo número es 699 888 777.", True),
        ("Meine E-Mail ist anna@example.de.", "Meine neue E-Mail ist anna@posteo.de.", True),
        ("Ich habe einen Hund.", "Ich habe auch eine Katze.", False),
    ],
)
def test_the_supersession_rule(older: str, newer: str, replaces: bool) -> None:
    from memorist.engine.supersession_rule import supersedes

    assert supersedes(_record(newer, 6), _record(older, 2)) is replaces
    assert not supersedes(_record(older, 2), _record(newer, 6))  # never an older over a newer
