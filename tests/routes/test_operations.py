"""The operations layer owns the rules: one change there reaches every door.

Each rule is shown once per surface (self-hosted REST, platform API, and for the
add result also the queue worker): the test changes the rule in the operations
layer alone and sees the change on that surface. Everything runs in process on
``falcon.testing.TestClient`` with real SQLite and LanceDB files.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.config.settings import load_settings
from memorist.engine import scope
from memorist.engine.memory import MemoryEngine
from memorist.engine.outcome import AddOutcome, Merged, Skipped
from memorist.http import create_app
from memorist.kernel.add_worker import AddWorker
from memorist.kernel.core import Kernel
from memorist.operations import AddInput, Caller, EntityIds, ListInput, Operations, SearchInput, UpdateInput
from memorist.operations.wire import MergedInput, SkippedPart
from memorist.plugin.manager import load_plugins
from memorist.tenancy import Tenancy

from tests.conftest import fast_settings
from tests.plugins import hashing

CHANGED = "user_id: the rule changed in one place"


@dataclass
class Doors:
    kernel: Kernel
    client: falcon.testing.TestClient
    platform: dict[str, str]


@pytest.fixture
def doors(tmp_path: Path) -> Iterator[Doors]:
    settings = load_settings(None, fast_settings(tmp_path, auth={"disabled": True}, queue={"workers": 0}))
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]))
    client = falcon.testing.TestClient(create_app(kernel))
    tenancy = Tenancy(kernel.db)
    tenancy.create_org("Acme", org_id="acme")
    tenancy.create_project("acme", "Web", project_id="web")
    user = UserStore(kernel.db).create("owner", "owner@acme.test", "a long password 123")
    tenancy.set_member("web", user.id, "OWNER", create=True)
    _, key = ApiKeyStore(kernel.db).create(user.id, "test", kind="platform", org_id="acme", project_id="web")
    yield Doors(kernel, client, {"Authorization": f"Token {key}"})
    kernel.close()


def say(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


# -- the scope rule ------------------------------------------------------------------------
def test_scope_rule_on_the_selfhosted_surface(doors: Doors, monkeypatch: pytest.MonkeyPatch) -> None:
    client = doors.client
    for resp in (
        client.simulate_post("/memories", json={"messages": say("I like tea.")}),
        client.simulate_get("/memories"),
        client.simulate_delete("/memories"),
    ):
        assert resp.status_code == 400 and resp.json["detail"] == scope.SCOPE_REQUIRED
    search = client.simulate_post("/search", json={"query": "tea"})
    assert search.status_code == 400 and search.json["detail"] == scope.SCOPE_OR_FILTERS_REQUIRED
    monkeypatch.setattr(scope, "SCOPE_REQUIRED", CHANGED)
    changed = client.simulate_post("/memories", json={"messages": say("I like tea.")})
    assert changed.status_code == 400 and changed.json["detail"] == CHANGED


def test_scope_rule_on_the_platform_surface(doors: Doors, monkeypatch: pytest.MonkeyPatch) -> None:
    client, key = doors.client, doors.platform
    add = client.simulate_post("/v3/memories/add/", json={"messages": say("I like tea."), "infer": False}, headers=key)
    queued = client.simulate_post("/v3/memories/add/", json={"messages": say("I like tea.")}, headers=key)
    delete = client.simulate_delete("/v1/memories/", headers=key)
    for resp in (add, queued, delete):
        assert resp.status_code == 400 and resp.json["detail"] == scope.SCOPE_REQUIRED
    monkeypatch.setattr(scope, "SCOPE_REQUIRED", CHANGED)
    changed = client.simulate_post("/v3/memories/add/", json={"messages": say("I like tea.")}, headers=key)
    assert changed.status_code == 400 and changed.json["detail"] == CHANGED
    assert doors.kernel.events.list("acme", "web", 0, 10)[1] == 0  # nothing was queued


def test_the_engine_keeps_the_same_rule(doors: Doors) -> None:
    with pytest.raises(Exception, match=scope.SCOPE_REQUIRED):
        doors.kernel.runtime.memory.add("I like tea.")


# -- the add result ------------------------------------------------------------------------
@pytest.fixture
def merging(monkeypatch: pytest.MonkeyPatch) -> tuple[Merged, Skipped]:
    """The engine reports a merge and a skip beside what it stored (what issue 13 will make real)."""
    merged = Merged(text="Likes tea", memory_id="m-1", reason="same fact", source_message=0)
    skipped = Skipped(text="ok", reason="no fact", source_message=1)
    original_add, original_durable = MemoryEngine.add_outcome, MemoryEngine.add_durably

    def add_outcome(self: MemoryEngine, request: Any) -> AddOutcome:
        outcome = original_add(self, request)
        return AddOutcome(outcome.stored, [merged], [skipped])

    def add_durably(self: MemoryEngine, request: Any, **kwargs: Any) -> AddOutcome:
        commit = kwargs.pop("commit")
        return original_durable(
            self, request, commit=lambda conn, o: commit(conn, AddOutcome(o.stored, [merged], [skipped])), **kwargs
        )

    monkeypatch.setattr(MemoryEngine, "add_outcome", add_outcome)
    monkeypatch.setattr(MemoryEngine, "add_durably", add_durably)
    return merged, skipped


def test_add_result_on_the_selfhosted_surface(doors: Doors, merging: tuple[Merged, Skipped]) -> None:
    resp = doors.client.simulate_post(
        "/memories", json={"messages": say("I adopted a beagle named Rex."), "user_id": "ana", "infer": False}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert [set(r) for r in body["results"]] == [{"id", "memory", "event"}]
    assert body["merged"] == [MergedInput.of(merging[0]).wire()]
    assert body["skipped"] == [SkippedPart.of(merging[1]).wire()]
    assert body["merged"][0]["memory_id"] == "m-1" and body["skipped"][0]["reason"] == "no fact"


def test_add_result_on_the_platform_surface(doors: Doors, merging: tuple[Merged, Skipped]) -> None:
    resp = doors.client.simulate_post(
        "/v3/memories/add/",
        json={"messages": say("I adopted a beagle named Rex."), "user_id": "ana", "infer": False},
        headers=doors.platform,
    )
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert body["status"] == "SUCCEEDED"
    assert [set(r) for r in body["results"]] == [
        {"id", "memory", "event", "data", "user_id", "created_at", "observed_at"}
    ]
    assert body["merged"] == [MergedInput.of(merging[0]).wire()]
    assert body["skipped"] == [SkippedPart.of(merging[1]).wire()]


def test_add_result_of_a_queued_add(doors: Doors, merging: tuple[Merged, Skipped]) -> None:
    queued = doors.client.simulate_post(
        "/v3/memories/add/",
        json={"messages": say("I adopted a beagle named Rex."), "user_id": "ana"},
        headers=doors.platform,
    )
    assert queued.status_code == 200 and queued.json["status"] == "PENDING"
    worker = AddWorker(lambda: doors.kernel.runtime.memory, doors.kernel.events, threads=1, poll_seconds=0.01)
    assert worker.run_once()
    event = doors.client.simulate_get(f"/v1/event/{queued.json['event_id']}/", headers=doors.platform).json
    assert event["status"] == "SUCCEEDED"
    assert [r["event"] for r in event["results"]] == ["ADD"]  # the platform client reads these, as before
    assert event["merged"] == [MergedInput.of(merging[0]).wire()]
    assert event["skipped"] == [SkippedPart.of(merging[1]).wire()]


def test_without_merges_the_wire_format_is_unchanged(doors: Doors) -> None:
    resp = doors.client.simulate_post(
        "/memories", json={"messages": say("I adopted a beagle named Rex."), "user_id": "ana", "infer": False}
    )
    assert set(resp.json) == {"results"}


# -- the operations layer called directly (the Python door) -----------------------------------
def test_operations_confine_every_call_to_the_callers_project(doors: Doors) -> None:
    ops: Operations = doors.kernel.operations
    acme, default = Caller("acme", "web", actor="owner@acme.test"), Caller()
    added = ops.add(
        acme, AddInput(messages=say("I adopted a beagle named Rex."), ids=EntityIds(user_id="ana"), infer=False)
    )
    memory_id = added.stored[0].id
    assert ops.get(acme, memory_id).text == "I adopted a beagle named Rex."
    with pytest.raises(Exception, match="not found"):
        ops.get(default, memory_id)
    assert ops.list_memories(default, ListInput(ids=EntityIds(user_id="ana"))).total == 0
    assert [h.record.id for h in ops.search(acme, SearchInput("beagle", ids=EntityIds(user_id="ana")))] == [memory_id]
    with pytest.raises(Exception, match="give text"):
        ops.update(acme, memory_id, UpdateInput())
    ops.update(acme, memory_id, UpdateInput(text="I adopted a beagle called Rex."))
    assert [r["event"] for r in ops.history(acme, memory_id)] == ["ADD", "UPDATE"]
    assert [(c.entity_id, c.total) for c in ops.entities(acme)] == [("ana", 1)]
    with pytest.raises(Exception, match="entity_type"):
        ops.delete_entity(acme, "robot", "x")
    assert ops.delete_entity(acme, "user", "ana") == 1


def test_the_python_api_holds_one_add_to_the_deployment_limits(tmp_path: Path) -> None:
    """The facade's adds are admitted like every door's (413 naming the limit); a long list is no
    request, so the batch caps do not apply there."""
    from memorist.errors import InputTooLarge
    from memorist.python.engine import Engine
    from memorist.python.memory import Memory as Facade

    limits = {"max_add_chars": 40, "max_batch_items": 2}
    engine = Engine.from_config(fast_settings(tmp_path, limits=limits), plugins=load_plugins({}, extra=[hashing]))
    with Facade(engine=engine) as memory:
        with pytest.raises(InputTooLarge, match="the limit is 40"):
            memory.add("Je préfère le thé vert le matin et le café noir après le déjeuner.", user_id="zoé")
        assert memory.get_all(user_id="zoé")["results"] == []  # nothing stored by the refused add
        items = [{"messages": f"Note {i}", "user_id": "zoé", "infer": False} for i in range(5)]
        assert len(memory.add_many(items)) == 5  # more than max_batch_items: a list, not a request
