"""Tenants kept apart (issue 14 items 9, 10, 11, 13, 17): platform vs self-hosted accounts, members, events."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from click.testing import CliRunner
from memorist.cli.admin import admin

from tests.security_kit import ADMIN_HEADERS, PASSWORD, client, register_admin


@pytest.fixture
def c(tmp_path: Path) -> falcon.testing.TestClient:
    return client(tmp_path / "data")


def boot(
    c: falcon.testing.TestClient, org: str, project: str, email: str, role: str = "OWNER", **extra: Any
) -> dict[str, str]:
    resp = c.simulate_post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN_HEADERS,
        json={
            "org_name": org,
            "project_name": project,
            "email": email,
            "org_id": org,
            "project_id": project,
            "role": role,
            **extra,
        },
    )
    assert resp.status_code == 201, resp.text
    return {"Authorization": f"Token {resp.json['key']}"}


def members_path(org: str, project: str) -> str:
    return f"/api/v1/orgs/organizations/{org}/projects/{project}/members/"


# -- 9: platform members are not self-hosted users ----------------------------------------


def test_platform_member_with_a_password_cannot_use_the_self_hosted_space(c: falcon.testing.TestClient) -> None:
    register_admin(c)
    c.simulate_post(
        "/memories",
        headers=ADMIN_HEADERS,
        json={"messages": [{"role": "user", "content": "self-hosted secret"}], "user_id": "sh", "infer": False},
    )
    boot(c, "porg", "pproj", "mallory@example.com", password="mallory-password")
    login = c.simulate_post("/auth/login", json={"email": "mallory@example.com", "password": "mallory-password"})
    assert login.status_code == 401
    # The same email may exist once per kind: a self-hosted account does not merge with the platform one.
    made = c.simulate_post(
        "/auth/users",
        headers=ADMIN_HEADERS,
        json={"name": "Mallory", "email": "mallory@example.com", "password": PASSWORD},
    )
    assert made.status_code == 201
    users = c.simulate_get("/users", headers=ADMIN_HEADERS).json
    assert [u["email"] for u in users].count("mallory@example.com") == 1


@pytest.mark.parametrize(("org", "project"), [("default", "pproj"), ("porg2", "default"), ("DEFAULT", "x1")])
def test_default_ids_are_reserved(c: falcon.testing.TestClient, org: str, project: str) -> None:
    resp = c.simulate_post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN_HEADERS,
        json={"org_name": "o", "project_name": "p", "email": "x@example.com", "org_id": org, "project_id": project},
    )
    assert resp.status_code == 400 and "reserved" in resp.json["detail"]


def test_admin_cli_refuses_reserved_ids(tmp_path: Path) -> None:
    env = {"MEMORIST_DATA_DIR": str(tmp_path / "data"), "MEMORIST_EMBEDDER__PROVIDER": "hashing"}
    env["MEMORIST_PLUGIN_MODULES"] = "tests.plugins.hashing"
    org = CliRunner().invoke(admin, ["create-org", "Default", "--id", "default"], env=env)
    assert org.exit_code != 0 and "reserved" in org.output
    ok = CliRunner().invoke(admin, ["create-org", "Acme", "--id", "acme"], env=env)
    assert ok.exit_code == 0, ok.output
    project = CliRunner().invoke(admin, ["create-project", "acme", "P", "--id", "default"], env=env)
    assert project.exit_code != 0 and "reserved" in project.output


# -- 11 (platform): the last OWNER, and the repair command -----------------------------------


def test_last_owner_cannot_demote_or_remove_themself_and_admin_can_repair(tmp_path: Path) -> None:
    c = client(tmp_path / "data")
    owner = boot(c, "lorg", "lproj", "owner@example.com")
    path = members_path("lorg", "lproj")
    demote = c.simulate_put(path, headers=owner, json={"email": "owner@example.com", "role": "READER"})
    assert demote.status_code == 409 and "OWNER" in demote.json["message"]
    remove = c.simulate_delete(path, headers=owner, params={"email": "owner@example.com"})
    assert remove.status_code == 409
    members = c.simulate_get(path, headers=owner).json["members"]
    assert members == [{"username": "owner", "role": "OWNER"}]  # emails are in the project details only
    details = c.simulate_get(path.removesuffix("members/"), headers=owner).json["members"]
    assert details == [{"username": "owner", "role": "OWNER", "email": "owner@example.com"}]

    # With a second OWNER the first may step down.
    boot(c, "lorg", "lother", "second@example.com")
    assert (
        c.simulate_post(path, headers=owner, json={"email": "second@example.com", "role": "OWNER"}).status_code == 200
    )
    assert c.simulate_put(path, headers=owner, json={"email": "owner@example.com", "role": "READER"}).status_code == 200

    # The repair command makes someone OWNER of a project, whatever its state.
    env = {"MEMORIST_DATA_DIR": str(tmp_path / "data"), "MEMORIST_EMBEDDER__PROVIDER": "hashing"}
    env["MEMORIST_PLUGIN_MODULES"] = "tests.plugins.hashing"
    fixed = CliRunner().invoke(admin, ["set-owner", "lproj", "owner@example.com"], env=env)
    assert fixed.exit_code == 0, fixed.output
    roles = {
        m["email"]: m["role"] for m in c.simulate_get(path.removesuffix("members/"), headers=owner).json["members"]
    }
    assert roles == {"owner@example.com": "OWNER", "second@example.com": "OWNER"}
    missing = CliRunner().invoke(admin, ["set-owner", "nope", "owner@example.com"], env=env)
    assert missing.exit_code != 0


# -- 13: side channels --------------------------------------------------------------------------


def test_add_member_reveals_nothing_about_other_organizations(c: falcon.testing.TestClient) -> None:
    boot(c, "orga", "proja", "alice@a.example")
    owner_b = boot(c, "orgb", "projb", "bob@b.example")
    path = members_path("orgb", "projb")
    foreign = c.simulate_post(path, headers=owner_b, json={"email": "alice@a.example", "role": "READER"})
    unknown = c.simulate_post(path, headers=owner_b, json={"email": "nobody@a.example", "role": "READER"})
    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json["message"].replace("alice@a.example", "X") == unknown.json["message"].replace(
        "nobody@a.example", "X"
    )
    emails = {m["email"] for m in c.simulate_get(path.removesuffix("members/"), headers=owner_b).json["members"]}
    assert emails == {"bob@b.example"}  # the foreign user was not added
    for method in ("PUT", "DELETE"):
        kwargs: dict[str, Any] = (
            {"json": {"email": "alice@a.example", "role": "OWNER"}}
            if method == "PUT"
            else {"params": {"email": "alice@a.example"}}
        )
        probe = c.simulate_request(method, path, headers=owner_b, **kwargs)
        assert probe.status_code == 404
    # A member of the same organization can be added.
    boot(c, "orgb", "projb2", "carol@b.example")
    assert (
        c.simulate_post(path, headers=owner_b, json={"email": "carol@b.example", "role": "READER"}).status_code == 200
    )


def _explain_scores(c: falcon.testing.TestClient, key: dict[str, str]) -> list[tuple[str, float]]:
    resp = c.simulate_post(
        "/v3/memories/search/",
        headers=key,
        json={
            "query": "What does Zanzibar like?",
            "filters": {"OR": [{"user_id": "u1"}, {"user_id": "u2"}]},
            "explain": True,
        },
    )
    assert resp.status_code == 200, resp.text
    body = resp.json
    hits = body["results"] if isinstance(body, dict) else body
    return [(h["memory"], h["score"]) for h in hits]


def test_search_not_pinned_to_one_user_ignores_other_tenants_entities(tmp_path: Path) -> None:
    c = client(tmp_path / "data")
    mine = boot(c, "orgm", "projm", "me@m.example")
    theirs = boot(c, "orgt", "projt", "them@t.example")

    def add(key: dict[str, str], user: str, text: str) -> None:
        resp = c.simulate_post(
            "/v3/memories/add/",
            headers=key,
            json={
                "messages": [{"role": "user", "content": text}],
                "user_id": user,
                "infer": False,
                "async_mode": False,
            },
        )
        assert resp.status_code == 200, resp.text

    add(mine, "u1", "Zanzibar likes green tea.")
    add(mine, "u1", "Zanzibar visited the harbour last spring.")
    add(mine, "u2", "The weather was cold on Monday.")
    time.sleep(0.1)
    before = _explain_scores(c, mine)
    for i in range(8):  # another tenant writes about the same name, making it "common"
        add(theirs, f"x{i}", f"Zanzibar went swimming on day {i}.")
    after = _explain_scores(c, mine)
    assert before and after == before


# -- 10: event errors -----------------------------------------------------------------------------


def test_failed_event_shows_no_paths_or_internal_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memorist_lancedb.store import LanceDBVectorStore

    def broken(self: Any, records: Any, vectors: Any) -> None:
        raise OSError(
            'LanceError(IO): Generic LocalFileSystem error: at path "/srv/secret/lancedb/memories.lance/data", '
            "/root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/lance-io-0.20.0/src/local.rs:120:31"
        )

    monkeypatch.setattr(LanceDBVectorStore, "upsert", broken)
    c = client(tmp_path / "data", queue={"workers": 1, "max_attempts": 1, "poll_seconds": 0.05})
    key = boot(c, "eorg", "eproj", "e@e.example")
    queued = c.simulate_post(
        "/v3/memories/add/",
        headers=key,
        json={"messages": [{"role": "user", "content": "I like green tea with honey."}], "user_id": "u"},
    )
    assert queued.status_code == 200, queued.text
    event_id = queued.json.get("event_id") or queued.json["results"][0]["event_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        event = c.simulate_get(f"/v1/event/{event_id}/", headers=key).json
        if event["status"] == "FAILED":
            break
        time.sleep(0.1)
    assert event["status"] == "FAILED", event
    shown = str(event)
    assert "/srv/secret" not in shown and ".cargo" not in shown and "LanceError" not in shown
    assert event_id in event["error"]


# -- 17: message roles and names --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "status", "field"),
    [
        ({"role": "developer", "content": "Always answer in French."}, 200, None),
        ({"role": "wizard", "content": "hi"}, 422, "messages[0].role"),
        ({"role": 1, "content": "hi"}, 422, "messages[0].role"),
        ({"role": "user", "content": "hi", "name": 5}, 422, "messages[0].name"),
        ({"role": "user", "content": 7}, 422, "messages[0].content"),
    ],
)
def test_platform_add_message_roles_and_names(
    c: falcon.testing.TestClient, message: dict[str, Any], status: int, field: str | None
) -> None:
    key = boot(c, "rorg", "rproj", "r@r.example")
    resp = c.simulate_post(
        "/v3/memories/add/",
        headers=key,
        json={"messages": [message, {"role": "user", "content": "I live in Oslo"}], "user_id": "u", "infer": False},
    )
    assert resp.status_code == status, resp.text
    if field:
        assert field in resp.text


def test_self_hosted_add_accepts_developer_role(c: falcon.testing.TestClient) -> None:
    resp = c.simulate_post(
        "/memories",
        headers=ADMIN_HEADERS,
        json={
            "messages": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "I like tea"}],
            "user_id": "d",
        },
    )
    assert resp.status_code == 200, resp.text
    bad = c.simulate_post(
        "/memories", headers=ADMIN_HEADERS, json={"messages": [{"role": 1, "content": "x"}], "user_id": "d"}
    )
    assert bad.status_code in (400, 422) and "role" in bad.text
