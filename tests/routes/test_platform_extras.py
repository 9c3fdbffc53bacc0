"""``/v1/feedback/``, ``/v1/exports/``, ``/v1/exports/get/`` and ``/v1/summary/`` in process (Falcon TestClient)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import falcon.testing
import pytest
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.config.settings import load_settings
from memorist.db import Database
from memorist.db.schema import exports, feedback
from memorist.errors import ProviderError
from memorist.http import create_app
from memorist.plugin.contracts import LanguageModel, ModelT
from memorist.plugin.hookspecs import hookimpl
from memorist.plugin.manager import load_plugins
from memorist.records import ChatMessage
from memorist.tenancy import Tenancy
from memorist_heuristic.extractor import HeuristicExtractor
from sqlalchemy import select

from tests.conftest import fast_settings
from tests.plugins import hashing


class ScriptedModel(HeuristicExtractor):
    """Extracts like the heuristic model but also answers prompts: a stand-in generative model."""

    name: ClassVar[str] = "scripted"
    calls: ClassVar[list[Sequence[ChatMessage]]] = []
    fail: ClassVar[bool] = False

    def complete_json(self, messages: Sequence[ChatMessage], schema: type[ModelT]) -> ModelT:
        ScriptedModel.calls.append(list(messages))
        if ScriptedModel.fail:
            raise ProviderError("the model is down")
        count = messages[-1].content.count("\n- ")
        return schema.model_validate({"summary": f"Summary of {count} memories.", "key_points": ["likes tea", " "]})


class ScriptedPlugin:
    @hookimpl
    def register_language_models(self, register: Callable[[type[LanguageModel]], None]) -> None:
        register(ScriptedModel)


@dataclass
class Tenant:
    client: falcon.testing.TestClient
    db: Database
    owner: dict[str, str]
    reader: dict[str, str]
    stranger: dict[str, str]


def _key(db: Database, email: str, org_id: str, project_id: str, role: str) -> dict[str, str]:
    user = UserStore(db).create(email.split("@")[0], email, "a long password 123")
    Tenancy(db).set_member(project_id, user.id, role, create=True)
    _, full = ApiKeyStore(db).create(user.id, "test", kind="platform", org_id=org_id, project_id=project_id)
    return {"Authorization": f"Token {full}"}


def make_tenant(tmp_path: Path, **settings: Any) -> Iterator[Tenant]:
    overrides = fast_settings(tmp_path, queue={"workers": 0}, **settings)
    app = create_app(load_settings(None, overrides), load_plugins({}, extra=[hashing, ScriptedPlugin()]))
    db = Database(f"sqlite:///{tmp_path / 'memorist.db'}")
    tenancy = Tenancy(db)
    tenancy.create_org("Acme", org_id="acme")
    tenancy.create_project("acme", "Web", project_id="web")
    tenancy.create_org("Other", org_id="other")
    tenancy.create_project("other", "Other", project_id="elsewhere")
    yield Tenant(
        falcon.testing.TestClient(app),
        db,
        owner=_key(db, "owner@acme.test", "acme", "web", "OWNER"),
        reader=_key(db, "reader@acme.test", "acme", "web", "READER"),
        stranger=_key(db, "owner@other.test", "other", "elsewhere", "OWNER"),
    )
    db.dispose()


@pytest.fixture(scope="module")
def tenant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tenant]:
    """One app for the module: each test uses its own entity names (``uid``), so tests do not meet."""
    yield from make_tenant(tmp_path_factory.mktemp("extras"))


@pytest.fixture
def uid(request: pytest.FixtureRequest) -> str:
    return request.node.name.replace("[", "-").replace("]", "")[-40:] + "-"


def add(
    t: Tenant,
    text: str,
    user_id: str = "alice",
    key: dict[str, str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> str:
    resp = t.client.simulate_post(
        "/v3/memories/add/",
        headers=key or t.owner,
        json={
            "messages": [{"role": "user", "content": text}],
            "user_id": user_id,
            "infer": False,
            "metadata": metadata or {},
        },
    )
    assert resp.status_code == 200, resp.text
    return str(resp.json["results"][0]["id"])


# -- feedback --------------------------------------------------------------------------
def test_feedback_is_stored_for_a_memory_of_the_project(tenant: Tenant) -> None:
    memory_id = add(tenant, "Alice drinks green tea.", user_id="feedback-alice")
    resp = tenant.client.simulate_post(
        "/v1/feedback/",
        headers=tenant.owner,
        json={"memory_id": memory_id, "feedback": "positive", "feedback_reason": "accurate"},
    )
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert body["feedback"] == "POSITIVE" and body["feedback_reason"] == "accurate"
    assert body["memory_id"] == memory_id and body["id"] and body["created_at"]

    cleared = tenant.client.simulate_post(
        "/v1/feedback/", headers=tenant.reader, json={"memory_id": memory_id, "feedback": None, "feedback_reason": None}
    )
    assert cleared.status_code == 200 and cleared.json["feedback"] is None
    with tenant.db.connect() as conn:
        rows = (
            conn.execute(select(feedback).where(feedback.c.memory_id == memory_id).order_by(feedback.c.created_at))
            .mappings()
            .all()
        )
    assert [(r["feedback"], r["reason"], r["org_id"], r["project_id"]) for r in rows] == [
        ("POSITIVE", "accurate", "acme", "web"),
        (None, None, "acme", "web"),
    ]
    assert rows[0]["user_id"] != rows[1]["user_id"]  # each member's own row


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"memory_id": "m", "feedback": "MEH"}, 422, "feedback"),
        ({"feedback": "POSITIVE"}, 422, "memory_id"),
        ({"memory_id": "no-such-memory", "feedback": "NEGATIVE"}, 404, "memory"),
    ],
)
def test_feedback_errors_name_the_problem(tenant: Tenant, body: dict[str, Any], status: int, field: str) -> None:
    resp = tenant.client.simulate_post("/v1/feedback/", headers=tenant.owner, json=body)
    assert resp.status_code == status
    assert resp.json["detail"].startswith(field)


def test_feedback_on_another_projects_memory_is_not_found(tenant: Tenant, uid: str) -> None:
    memory_id = add(tenant, "Alice drinks green tea.", user_id=uid + "alice")
    resp = tenant.client.simulate_post(
        "/v1/feedback/", headers=tenant.stranger, json={"memory_id": memory_id, "feedback": "VERY_NEGATIVE"}
    )
    assert resp.status_code == 404 and "detail" in resp.json
    assert tenant.client.simulate_post("/v1/feedback/", json={"memory_id": memory_id}).status_code == 401


# -- exports ---------------------------------------------------------------------------
def test_export_is_built_stored_and_fetched(tenant: Tenant, uid: str) -> None:
    add(tenant, "Alice drinks green tea.", user_id=uid + "alice")
    add(tenant, "Alice walks to work.", user_id=uid + "alice", metadata={"topic": "commute"})
    add(tenant, "Bob plays chess.", user_id=uid + "bob")
    schema = {"properties": {"name": {"type": "string"}}, "title": "Profile", "type": "object"}
    created = tenant.client.simulate_post(
        "/v1/exports/", headers=tenant.reader, json={"schema": schema, "filters": {"user_id": uid + "alice"}}
    )
    assert created.status_code == 201, created.text
    assert created.json["status"] == "SUCCEEDED" and created.json["count"] == 2 and created.json["message"]
    export_id = created.json["id"]

    got = tenant.client.simulate_post("/v1/exports/get/", headers=tenant.owner, json={"memory_export_id": export_id})
    assert got.status_code == 200, got.text
    body = got.json
    assert body["id"] == export_id and body["status"] == "SUCCEEDED" and body["count"] == 2
    assert body["schema"] == schema and body["filters"] == {"user_id": uid + "alice"}
    assert sorted(m["memory"] for m in body["memories"]) == ["Alice drinks green tea.", "Alice walks to work."]
    assert {m["user_id"] for m in body["memories"]} == {uid + "alice"}
    with tenant.db.connect() as conn:
        row = conn.execute(select(exports).where(exports.c.id == export_id)).mappings().one()
    assert (row["org_id"], row["project_id"], row["status"]) == ("acme", "web", "SUCCEEDED")


def test_latest_export_by_filters_and_top_level_ids(tenant: Tenant, uid: str) -> None:
    add(tenant, "Alice drinks green tea.", user_id=uid + "alice")
    add(tenant, "Bob plays chess.", user_id=uid + "bob")
    both = {"user_id": {"in": [uid + "alice", uid + "bob"]}}
    first = tenant.client.simulate_post(
        "/v1/exports/", headers=tenant.owner, json={"schema": "{}", "user_id": uid + "bob"}
    ).json
    everything = tenant.client.simulate_post(
        "/v1/exports/", headers=tenant.owner, json={"schema": "{}", "filters": both}
    ).json
    assert first["count"] == 1 and everything["count"] == 2

    by_filters = tenant.client.simulate_post("/v1/exports/get/", headers=tenant.owner, json={"user_id": uid + "bob"})
    assert by_filters.status_code == 200 and by_filters.json["id"] == first["id"]
    assert [m["memory"] for m in by_filters.json["memories"]] == ["Bob plays chess."]
    latest = tenant.client.simulate_post("/v1/exports/get/", headers=tenant.owner, json={})
    assert latest.json["id"] == everything["id"]  # no filters: the project's latest export
    same = tenant.client.simulate_post("/v1/exports/get/", headers=tenant.owner, json={"filters": both})
    assert same.json["id"] == everything["id"]
    none = tenant.client.simulate_post("/v1/exports/get/", headers=tenant.owner, json={"filters": {"user_id": "zoe"}})
    assert none.status_code == 404 and "detail" in none.json


def test_exports_are_confined_to_the_project(tenant: Tenant, uid: str) -> None:
    add(tenant, "Alice drinks green tea.", user_id=uid + "same")
    add(tenant, "Carol lives elsewhere.", user_id=uid + "same", key=tenant.stranger)
    ours = tenant.client.simulate_post("/v1/exports/", headers=tenant.owner, json={"user_id": uid + "same"}).json
    theirs = tenant.client.simulate_post(
        "/v1/exports/", headers=tenant.stranger, json={"filters": {"user_id": uid + "same"}}
    ).json
    assert ours["count"] == 1 and theirs["count"] == 1
    for key, export_id in ((tenant.stranger, ours["id"]), (tenant.owner, theirs["id"])):
        resp = tenant.client.simulate_post("/v1/exports/get/", headers=key, json={"memory_export_id": export_id})
        assert resp.status_code == 404
    mine = tenant.client.simulate_post("/v1/exports/get/", headers=tenant.stranger, json={}).json
    assert [m["memory"] for m in mine["memories"]] == ["Carol lives elsewhere."]


def test_export_with_a_bad_filter_is_refused(tenant: Tenant) -> None:
    resp = tenant.client.simulate_post(
        "/v1/exports/", headers=tenant.owner, json={"schema": {}, "filters": {"colour": "blue"}}
    )
    assert resp.status_code == 400 and "colour" in resp.json["detail"]


# -- summary ---------------------------------------------------------------------------
def test_summary_without_a_generative_model_lists_the_memories(tenant: Tenant, uid: str) -> None:
    add(tenant, "Alice drinks green tea.", user_id=uid + "alice")
    add(tenant, "Alice walks to work.", user_id=uid + "alice")
    add(tenant, "Bob plays chess.", user_id=uid + "bob")
    resp = tenant.client.simulate_post(
        "/v1/summary/", headers=tenant.reader, json={"filters": {"user_id": uid + "alice"}}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json
    assert body["status"] == "SUCCEEDED" and body["generated_by"] == "heuristic"
    assert body["summary"] == "- Alice drinks green tea.\n- Alice walks to work."  # oldest first
    assert body["key_points"] == ["Alice drinks green tea.", "Alice walks to work."]
    assert body["memory_count"] == 2 and body["filters"] == {"user_id": uid + "alice"}

    empty = tenant.client.simulate_post("/v1/summary/", headers=tenant.owner, json={"filters": {"user_id": "zoe"}})
    assert empty.status_code == 200 and empty.json["memory_count"] == 0 and empty.json["summary"] == ""
    everyone = tenant.client.simulate_post("/v1/summary/", headers=tenant.owner, json={}).json
    assert everyone["memory_count"] >= 3 and everyone["filters"] is None
    assert (
        tenant.client.simulate_post(
            "/v1/summary/", headers=tenant.stranger, json={"filters": {"user_id": uid + "alice"}}
        ).json["memory_count"]
        == 0
    )


def test_summary_uses_a_generative_model(tmp_path: Path) -> None:
    for t in make_tenant(tmp_path, language_model={"provider": "scripted"}):
        Tenancy(t.db).update_project("acme", "web", {"summary_custom_instructions": "Mention drinks first."})
        add(t, "Alice drinks green tea.")
        add(t, "Alice walks to work.")
        ScriptedModel.calls.clear()
        body = t.client.simulate_post("/v1/summary/", headers=t.owner, json={"filters": {"user_id": "alice"}}).json
        assert body["generated_by"] == "language_model" and body["summary"] == "Summary of 2 memories."
        assert body["key_points"] == ["likes tea"] and body["memory_count"] == 2
        [messages] = ScriptedModel.calls
        assert "Mention drinks first." in messages[0].content
        assert messages[-1].content.endswith("- Alice drinks green tea.\n- Alice walks to work.")

        ScriptedModel.fail = True
        try:
            fallback = t.client.simulate_post("/v1/summary/", headers=t.owner, json={}).json
        finally:
            ScriptedModel.fail = False
        assert fallback["generated_by"] == "heuristic" and fallback["memory_count"] == 2


def test_routes_are_in_the_openapi_document(tenant: Tenant) -> None:
    paths = tenant.client.simulate_get("/openapi.json").json["paths"]
    for path in ("/v1/feedback/", "/v1/exports/", "/v1/exports/get/", "/v1/summary/"):
        assert set(paths[path]) == {"post"}


# -- the existing platform client, through its own httpx client ---------------------------
def test_the_platform_client_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memorist.testing.inprocess import AppServer
    from memorist.testing.server import ADMIN

    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    monkeypatch.setenv("MEM0_DIR", str(tmp_path / "mem0"))
    server = AppServer(tmp_path / "data").start()
    try:
        boot = server.post(
            "/api/v1/admin/bootstrap/",
            headers=ADMIN,
            json={"org_name": "Acme", "project_name": "Web", "email": "owner@acme.test", "role": "OWNER"},
        )
        assert boot.status_code == 201, boot.text
        from mem0 import MemoryClient

        client = MemoryClient(api_key=boot.json()["key"], host=server.url, client=server.httpx_client())
        added = client.add([{"role": "user", "content": "Dana grows tomatoes."}], user_id="dana", infer=False)
        memory_id = added["results"][0]["id"]

        given = client.feedback(memory_id=memory_id, feedback="negative", feedback_reason="outdated")
        assert given["feedback"] == "NEGATIVE" and given["feedback_reason"] == "outdated"

        created = client.create_memory_export(schema='{"type": "object"}', filters={"user_id": "dana"})
        assert created["status"] == "SUCCEEDED" and created["id"]
        export = client.get_memory_export(memory_export_id=created["id"])
        assert [m["memory"] for m in export["memories"]] == ["Dana grows tomatoes."]

        summary = client.get_summary(filters={"user_id": "dana"})
        assert summary["status"] == "SUCCEEDED" and summary["summary"] == "- Dana grows tomatoes."
    finally:
        server.stop()
