"""The self-hosted REST API end to end, on the whole app in process (``memorist.testing.inprocess.AppServer``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import jwt
import pytest
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN, JWT_SECRET, bearer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("selfhosted") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def admin(server: Server) -> dict[str, str]:
    """Registers the first admin (the state machine's first transition) and returns its tokens."""
    assert server.get("/auth/setup-status").json()["needsSetup"] is True
    resp = server.post("/auth/register", json={"name": "Ada", "email": "ada@example.com", "password": "correct horse"})
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body["token_type"] == "bearer" and body["access_token"] and body["refresh_token"]
    assert server.get("/auth/setup-status").json()["needsSetup"] is False
    return body


@pytest.fixture(scope="module")
def user(server: Server, admin: dict[str, str]) -> dict[str, str]:
    resp = server.post(
        "/auth/users",
        headers=bearer(admin["access_token"]),
        json={"name": "Bob", "email": "bob@example.com", "password": "bob-password"},
    )
    assert resp.status_code == 201, resp.text
    assert resp.json()["role"] == "user"
    login = server.post("/auth/login", json={"email": "bob@example.com", "password": "bob-password"})
    assert login.status_code == 200
    return login.json()


# -- open routes and the auth state machine -------------------------------------------


@pytest.mark.parametrize("path", ["/", "/docs", "/openapi.json", "/auth/setup-status", "/health"])
def test_open_routes_need_no_credentials(server: Server, path: str) -> None:
    resp = server.get(path)
    assert resp.status_code == 200
    assert resp.headers["X-Request-ID"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/memories?user_id=a"),
        ("POST", "/memories"),
        ("POST", "/search"),
        ("GET", "/configure"),
        ("POST", "/configure"),
        ("GET", "/configure/providers"),
        ("POST", "/reset"),
        ("GET", "/api-keys"),
        ("GET", "/requests"),
        ("GET", "/entities"),
        ("GET", "/auth/me"),
        ("GET", "/memories/x"),
        ("DELETE", "/entities/user/a"),
    ],
)
def test_protected_routes_answer_401_without_credentials(server: Server, method: str, path: str) -> None:
    resp = server.request(method, path, json={})
    assert resp.status_code == 401
    assert "detail" in resp.json()


def test_second_registration_is_refused(server: Server, admin: dict[str, str]) -> None:
    resp = server.post("/auth/register", json={"name": "Eve", "email": "eve@example.com", "password": "password123"})
    assert resp.status_code == 403
    assert "closed" in resp.json()["detail"]


def test_login_me_and_bad_password(server: Server, admin: dict[str, str]) -> None:
    assert (
        server.post("/auth/login", json={"email": "ada@example.com", "password": "wrong password"}).status_code == 401
    )
    me = server.get("/auth/me", headers=bearer(admin["access_token"])).json()
    assert set(me) == {"id", "name", "email", "role", "created_at"}
    assert me["email"] == "ada@example.com" and me["role"] == "admin"


def test_profile_update_and_email_conflict(server: Server, user: dict[str, str]) -> None:
    headers = bearer(user["access_token"])
    resp = server.request("PATCH", "/auth/me", headers=headers, json={"name": "Bobby"})
    assert resp.status_code == 200 and resp.json()["name"] == "Bobby"
    conflict = server.request(
        "PATCH", "/auth/me", headers=headers, json={"email": "ada@example.com", "current_password": "bob-password"}
    )
    assert conflict.status_code == 409


def test_change_password(server: Server, admin: dict[str, str]) -> None:
    server.post(
        "/auth/users",
        headers=bearer(admin["access_token"]),
        json={"name": "Cy", "email": "cy@example.com", "password": "cy-password"},
    )
    tokens = server.post("/auth/login", json={"email": "cy@example.com", "password": "cy-password"}).json()
    other = server.post("/auth/login", json={"email": "cy@example.com", "password": "cy-password"}).json()
    headers = bearer(tokens["access_token"])
    wrong = server.post(
        "/auth/change-password", headers=headers, json={"current_password": "nope-nope", "new_password": "new-password"}
    )
    assert wrong.status_code == 401
    short = server.post(
        "/auth/change-password", headers=headers, json={"current_password": "cy-password", "new_password": "short"}
    )
    assert short.status_code == 400 and "8 characters" in short.json()["detail"]
    ok = server.post(
        "/auth/change-password",
        headers=headers,
        json={"current_password": "cy-password", "new_password": "new-password"},
    )
    assert ok.status_code == 200
    assert server.post("/auth/login", json={"email": "cy@example.com", "password": "cy-password"}).status_code == 401
    assert server.post("/auth/login", json={"email": "cy@example.com", "password": "new-password"}).status_code == 200
    # The change signs out the other sessions at once; the caller's own session goes on.
    assert server.post("/auth/refresh", json={"refresh_token": other["refresh_token"]}).status_code == 401
    assert server.get("/auth/me", headers=bearer(other["access_token"])).status_code == 401
    assert server.get("/auth/me", headers=headers).status_code == 200


def test_refresh_rotation_and_reuse_detection(server: Server, admin: dict[str, str]) -> None:
    login = server.post("/auth/login", json={"email": "ada@example.com", "password": "correct horse"}).json()
    first = server.post("/auth/refresh", json={"refresh_token": login["refresh_token"]})
    assert first.status_code == 200
    rotated = first.json()
    assert rotated["refresh_token"] != login["refresh_token"]
    assert server.get("/auth/me", headers=bearer(rotated["access_token"])).status_code == 200
    reuse = server.post("/auth/refresh", json={"refresh_token": login["refresh_token"]})
    assert reuse.status_code == 401 and "already used" in reuse.json()["detail"]
    # Reuse revoked the whole family, including the token issued by the rotation.
    assert server.post("/auth/refresh", json={"refresh_token": rotated["refresh_token"]}).status_code == 401


def test_forged_and_expired_tokens_are_refused(server: Server, admin: dict[str, str]) -> None:
    claims = jwt.decode(admin["access_token"], options={"verify_signature": False})
    forged = jwt.encode(claims, "another-secret-another-secret-another", algorithm="HS256")
    assert server.get("/auth/me", headers=bearer(forged)).status_code == 401
    expired = jwt.encode({**claims, "exp": int(time.time()) - 10}, JWT_SECRET, algorithm="HS256")
    resp = server.get("/auth/me", headers=bearer(expired))
    assert resp.status_code == 401 and "expired" in resp.json()["detail"]
    unsigned = jwt.encode(claims, None, algorithm="none")
    assert server.get("/auth/me", headers=bearer(unsigned)).status_code == 401
    refresh_as_access = server.get("/auth/me", headers=bearer(admin["refresh_token"]))
    assert refresh_as_access.status_code == 401


# -- API keys and auth modes ---------------------------------------------------------


def test_api_key_lifecycle(server: Server, user: dict[str, str]) -> None:
    headers = bearer(user["access_token"])
    created = server.post("/api-keys", headers=headers, json={"label": "ci"})
    assert created.status_code == 201
    body = created.json()
    assert set(body) == {"id", "key", "label", "key_prefix", "created_at"}
    assert body["key"].startswith("svcsk_") and body["key"].startswith(body["key_prefix"])
    key_headers = {"X-API-Key": body["key"]}
    assert server.get("/memories", headers=key_headers).status_code == 200  # its own user's memories
    listed = server.get("/api-keys", headers=headers).json()
    entry = next(k for k in listed if k["id"] == body["id"])
    assert set(entry) == {"id", "label", "key_prefix", "created_at", "last_used_at"}
    assert entry["last_used_at"] is not None and "key" not in entry
    assert server.get("/api-keys", headers=key_headers).status_code == 401  # JWT required
    assert server.request("DELETE", f"/api-keys/{body['id']}", headers=headers).status_code == 200
    assert server.get("/memories", headers=key_headers).status_code == 401  # revoked at once
    assert server.request("DELETE", f"/api-keys/{body['id']}", headers=headers).status_code == 404


def test_a_user_key_is_confined_to_its_user(server: Server, admin: dict[str, str], user: dict[str, str]) -> None:
    """On REST as on MCP: a non-admin's ``svcsk_`` key reads and writes its own user's memories only."""
    admin_headers = bearer(admin["access_token"])
    key = server.post("/api-keys", headers=bearer(user["access_token"]), json={"label": "confined"}).json()["key"]
    mine = {"X-API-Key": key}

    def said(text: str) -> list[dict[str, str]]:
        return [{"role": "user", "content": text}]

    body = {"messages": said("Carol prefiere el té verde"), "user_id": "carol", "infer": False}
    carol = server.post("/memories", headers=admin_headers, json=body).json()["results"][0]["id"]
    added = server.post("/memories", headers=mine, json={"messages": said("Ich trinke gern Kaffee"), "infer": False})
    assert added.status_code == 200, added.text
    listed = server.get("/memories", headers=mine).json()
    assert {m["user_id"] for m in listed["results"]} == {"bob@example.com"}
    widened = server.get("/memories", params={"user_id": "carol"}, headers=mine)
    assert widened.status_code == 400 and "confined to user_id='bob@example.com'" in widened.json()["detail"]
    assert server.get(f"/memories/{carol}", headers=mine).status_code == 404  # as if it did not exist
    assert server.request("DELETE", f"/memories/{carol}", headers=mine).status_code == 404
    assert server.request("DELETE", "/memories", params={"user_id": "*"}, headers=mine).status_code == 403
    hits = server.post("/search", headers=mine, json={"query": "té Kaffee"}).json()["results"]
    assert hits and {h["user_id"] for h in hits} == {"bob@example.com"}
    assert server.get(f"/memories/{carol}", headers=admin_headers).json()["memory"] == "Carol prefiere el té verde"


def test_a_user_key_inherits_the_user_role(server: Server, user: dict[str, str]) -> None:
    key = server.post("/api-keys", headers=bearer(user["access_token"]), json={"label": "x"}).json()["key"]
    assert server.post("/reset", headers={"X-API-Key": key}).status_code == 403


def test_admin_routes(server: Server, user: dict[str, str]) -> None:
    assert server.post("/reset", headers=bearer(user["access_token"])).status_code == 403
    assert (
        server.post(
            "/configure", headers=bearer(user["access_token"]), json={"engine": {"candidate_pool": 120}}
        ).status_code
        == 403
    )
    assert (
        server.post(
            "/auth/users",
            headers=bearer(user["access_token"]),
            json={"name": "Z", "email": "z@example.com", "password": "password1"},
        ).status_code
        == 403
    )


def test_wrong_api_keys_are_401(server: Server) -> None:
    assert server.get("/memories?user_id=a", headers={"X-API-Key": "svcsk_not-a-key"}).status_code == 401
    assert server.get("/memories?user_id=a", headers={"X-API-Key": "guess"}).status_code == 401


# -- memories -------------------------------------------------------------------------


def test_memory_routes_end_to_end(server: Server) -> None:
    added = server.post(
        "/memories",
        headers=ADMIN,
        json={
            "messages": [{"role": "user", "content": "Hi! I adopted a beagle named Rex last week.", "name": "Ana"}],
            "user_id": "ana",
            "metadata": {"source": "test"},
            "timestamp": "2024-03-11T10:00:00Z",
        },
    )
    assert added.status_code == 200, added.text
    results = added.json()["results"]
    assert len(results) == 1 and results[0]["event"] == "ADD"
    memory_id = results[0]["id"]
    assert "Rex" in results[0]["memory"] and "(the week of 4 March 2024)" in results[0]["memory"]

    listed = server.get("/memories", params={"user_id": "ana"}, headers=ADMIN).json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == memory_id
    one = server.get(f"/memories/{memory_id}", headers=ADMIN).json()
    assert one["metadata"] == {"source": "test"} and one["user_id"] == "ana"

    found = server.post("/search", headers=ADMIN, json={"query": "Rex the beagle", "user_id": "ana", "explain": True})
    hit = found.json()["results"][0]
    assert hit["id"] == memory_id and 0 <= hit["score"] <= 1
    assert {"semantic", "keyword", "entity", "temporal", "score"} <= set(hit["score_details"])
    plain = server.post("/search", headers=ADMIN, json={"query": "Rex the beagle", "user_id": "ana"}).json()
    assert "score_details" not in plain["results"][0]

    updated = server.request("PUT", f"/memories/{memory_id}", headers=ADMIN, json={"text": "Ana adopted a beagle."})
    assert updated.status_code == 200 and updated.json()["memory"] == "Ana adopted a beagle."
    history = server.get(f"/memories/{memory_id}/history", headers=ADMIN).json()
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert server.request("DELETE", f"/memories/{memory_id}", headers=ADMIN).status_code == 200
    assert server.get(f"/memories/{memory_id}", headers=ADMIN).status_code == 404
    assert [h["event"] for h in server.get(f"/memories/{memory_id}/history", headers=ADMIN).json()][-1] == "DELETE"


def test_delete_all_for_an_identifier(server: Server) -> None:
    server.post(
        "/memories",
        headers=ADMIN,
        json={
            "messages": [{"role": "user", "content": f"note {i}"} for i in range(30)],
            "user_id": "bulk",
            "infer": False,
        },
    )
    server.post(
        "/memories",
        headers=ADMIN,
        json={"messages": [{"role": "user", "content": "keep"}], "user_id": "other", "infer": False},
    )
    resp = server.request("DELETE", "/memories", params={"user_id": "bulk"}, headers=ADMIN)
    assert resp.json()["deleted"] == 30
    assert server.get("/memories", params={"user_id": "other"}, headers=ADMIN).json()["count"] == 1


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "needle"),
    [
        ("GET", "/memories", None, 400, "user_id"),
        ("DELETE", "/memories", None, 400, "user_id"),
        ("POST", "/search", {"query": "x"}, 400, "user_id"),
        ("POST", "/memories", {"messages": [], "user_id": "a"}, 422, "messages"),
        ("POST", "/memories", {"messages": [{"role": "user"}], "user_id": "a"}, 422, "messages.0.content"),
        ("POST", "/memories", {"messages": [{"role": "user", "content": "x"}]}, 400, "user_id"),
        ("POST", "/search", {"query": "x", "user_id": "a", "top_k": 0}, 422, "top_k"),
        ("POST", "/search", {"query": "x", "user_id": "a", "top_k": 5000}, 422, "top_k"),
        ("POST", "/search", {"query": "x", "user_id": "a", "threshold": 2}, 422, "threshold"),
        ("POST", "/search", {"query": "x", "filters": {"colour": "red"}}, 400, "colour"),
        ("GET", "/memories/does-not-exist", None, 404, "not found"),
        ("PUT", "/memories/does-not-exist", {"text": "x"}, 404, "not found"),
        ("DELETE", "/memories/does-not-exist", None, 404, "not found"),
        ("GET", "/memories/does-not-exist/history", None, 404, "not found"),
        ("GET", "/requests?limit=501", None, 422, "limit"),
        ("DELETE", "/entities/planet/x", None, 400, "entity_type"),
    ],
)
def test_errors_name_the_problem(
    server: Server, method: str, path: str, body: object, status: int, needle: str
) -> None:
    resp = server.request(method, path, json=body, headers=ADMIN)
    assert resp.status_code == status, resp.text
    assert needle in resp.json()["detail"]


def test_malformed_json_is_400(server: Server) -> None:
    resp = server.post("/memories", data=b'{"messages": [', headers={**ADMIN, "Content-Type": "application/json"})
    assert resp.status_code == 400 and "malformed JSON" in resp.json()["detail"]


# -- configure, providers, entities, request log --------------------------------------


def test_configure_providers_and_redaction(server: Server) -> None:
    providers = server.get("/configure/providers", headers=ADMIN).json()
    assert "lancedb" in providers["vector_store"] and "hashing" in providers["embedder"]
    assert {"heuristic", "openai"} <= set(providers["language_model"])
    config = server.get("/configure", headers=ADMIN)
    assert config.status_code == 200
    assert JWT_SECRET not in config.text and "admin-key" not in config.text
    assert config.json()["auth"]["jwt_secret"] == "**********"


def test_configure_rejects_unknown_providers_and_other_dimensions(server: Server) -> None:
    bad = server.post("/configure", headers=ADMIN, json={"vector_store": {"provider": "lancdb"}})
    assert bad.status_code == 400
    assert bad.json()["detail"] == "vector_store.provider 'lancdb' is not installed; installed: lancedb, pgvector"
    option = server.post("/configure", headers=ADMIN, json={"embedder": {"options": {"dimensionz": 3}}})
    assert option.status_code == 400 and "embedder.options.dimensionz" in option.json()["detail"]
    server.post(
        "/memories",
        headers=ADMIN,
        json={"messages": [{"role": "user", "content": "dimension probe"}], "user_id": "dim", "infer": False},
    )
    other_dim = server.post("/configure", headers=ADMIN, json={"embedder": {"options": {"dimension": 32}}})
    assert other_dim.status_code == 409 and "dimensional" in other_dim.json()["detail"]
    assert server.get("/memories", params={"user_id": "dim"}, headers=ADMIN).json()["count"] == 1


def test_configure_to_another_provider_drops_the_deployments_options_for_the_old_one(tmp_path: Path) -> None:
    """The deployment's environment gives the hashing embedder ``dimension: 384``; switching to
    another embedder at runtime used to keep that option and answer 400 "unknown option"."""
    with Server(tmp_path / "data", env={"MEMORIST_EMBEDDER__OPTIONS__DIMENSION": "384"}) as srv:
        switched = srv.post("/configure", headers=ADMIN, json={"embedder": {"provider": "sentence-transformers"}})
        assert switched.status_code == 200, switched.text
        assert switched.json()["embedder"] == {"provider": "sentence-transformers", "options": {}}
        back = srv.post("/configure", headers=ADMIN, json={"embedder": {"provider": "hashing"}})
        assert back.status_code == 200, back.text
        embedder = back.json()["embedder"]  # the deployment's option again, as its environment gave it
        assert embedder["provider"] == "hashing" and int(embedder["options"]["dimension"]) == 384


def test_entities_list_and_cascade_delete(server: Server) -> None:
    server.post(
        "/memories",
        headers=ADMIN,
        json={
            "messages": [
                {"role": "user", "content": "entity fact one"},
                {"role": "user", "content": "entity fact two"},
            ],
            "user_id": "ent-user",
            "agent_id": "ent-agent",
            "infer": False,
        },
    )
    entities = server.get("/entities", headers=ADMIN).json()
    row = next(e for e in entities if e["id"] == "ent-user")
    assert row == {**row, "type": "user", "total_memories": 2}
    assert set(row) == {"id", "type", "total_memories", "created_at", "updated_at"}
    assert any(e["id"] == "ent-agent" and e["type"] == "agent" for e in entities)
    deleted = server.request("DELETE", "/entities/user/ent-user", headers=ADMIN).json()
    assert deleted["deleted"] == 2
    assert all(e["id"] != "ent-user" for e in server.get("/entities", headers=ADMIN).json())


def test_request_log_records_calls_newest_first(server: Server, user: dict[str, str]) -> None:
    headers = bearer(user["access_token"])
    server.get("/memories", params={"user_id": "logged"}, headers=headers, timeout=10)
    server.get("/memories/missing-for-log", headers=headers)
    time.sleep(0.6)
    rows = server.get("/requests", params={"limit": 5}, headers=headers).json()
    assert len(rows) <= 5
    assert {"id", "method", "path", "status_code", "latency_ms", "auth_type", "created_at"} <= set(rows[0])
    assert rows[0]["path"] == "/memories/missing-for-log" and rows[0]["status_code"] == 404
    assert rows[0]["auth_type"] == "jwt"
    stamps = [r["created_at"] for r in rows]
    assert stamps == sorted(stamps, reverse=True)
    everyone = server.get("/requests", params={"limit": 500}, headers=ADMIN).json()
    assert any(r["auth_type"] == "admin_key" for r in everyone)  # admins see every principal
    assert all(r["principal"] == "bob@example.com" for r in server.get("/requests", headers=headers).json())


# -- separate servers: persistence, modes, limits -----------------------------------------


def test_configure_persists_across_restart(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data").start()
    try:
        resp = srv.post(
            "/configure",
            headers=ADMIN,
            json={"engine": {"candidate_pool": 123}, "reranker": {"provider": "mmr", "options": {"lambda": 0.5}}},
        )
        assert resp.status_code == 200, resp.text
        assert resp.json()["engine"]["candidate_pool"] == 123
    finally:
        srv.stop()
    again = Server(tmp_path / "data").start()
    try:
        config = again.get("/configure", headers=ADMIN).json()
        assert config["engine"]["candidate_pool"] == 123 and config["reranker"]["options"] == {"lambda": 0.5}
    finally:
        again.stop()


def test_auth_disabled_opens_everything_with_a_warning(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", env={"AUTH_DISABLED": "true"}).start()
    try:
        assert srv.get("/memories", params={"user_id": "x"}).status_code == 200
        assert srv.post("/reset").status_code == 200
    finally:
        srv.stop()
    assert "AUTH_DISABLED=true" in srv.output()


def test_missing_jwt_secret_makes_auth_endpoints_500(tmp_path: Path) -> None:
    srv = Server(tmp_path / "data", env={"JWT_SECRET": None, "ADMIN_API_KEY": "short"}).start()  # type: ignore[dict-item]
    try:
        for path in ("/auth/login", "/auth/register", "/auth/refresh"):
            resp = srv.post(path, json={"email": "a@b.c", "password": "password1", "name": "A", "refresh_token": "x"})
            assert resp.status_code == 500 and "JWT_SECRET" in resp.json()["detail"], path
        assert srv.get("/memories", params={"user_id": "x"}, headers={"X-API-Key": "short"}).status_code == 200
    finally:
        srv.stop()
    assert "ADMIN_API_KEY is shorter than 16 characters" in srv.output()


def test_login_and_register_are_rate_limited(tmp_path: Path) -> None:
    srv = Server(
        tmp_path / "data", env={"MEMORIST_AUTH__LOGIN_ATTEMPTS": "3", "MEMORIST_AUTH__LOGIN_ADDRESS_ATTEMPTS": "3"}
    ).start()
    try:
        codes = [
            srv.post("/auth/login", json={"email": "x@y.z", "password": "wrong-pass"}).status_code for _ in range(3)
        ]
        assert codes == [401, 401, 401]
        limited = srv.post("/auth/login", json={"email": "x@y.z", "password": "wrong-pass"})
        assert limited.status_code == 429 and int(limited.headers["Retry-After"]) >= 1
        for _ in range(3):
            srv.post("/auth/register", json={"name": "n", "email": "n@example.com", "password": "p"})
        assert srv.post("/auth/register", json={"name": "n", "email": "n@x.com", "password": "p"}).status_code == 429
    finally:
        srv.stop()


def test_delete_all_wildcard_is_for_admins_and_never_a_literal_id(server: Server, admin: dict, user: dict) -> None:
    """``DELETE /memories?user_id=*``: every memory that has a user id, admins only; ``*`` is never stored."""
    as_admin, as_user = bearer(admin["access_token"]), bearer(user["access_token"])
    for who, text in (("wc-ana", "Ana fietst naar haar werk."), ("wc-bo", "Bo kocht een nieuwe fiets.")):
        body = {"messages": [{"role": "user", "content": text}], "user_id": who, "infer": False}
        assert server.post("/memories", headers=as_admin, json=body).status_code in (200, 201)
    run_only = {"messages": [{"role": "user", "content": "A run-only note."}], "run_id": "wc-run", "infer": False}
    assert server.post("/memories", headers=as_admin, json=run_only).status_code in (200, 201)
    starred = {"messages": [{"role": "user", "content": "under a star"}], "user_id": "*", "infer": False}
    refused = server.post("/memories", headers=as_admin, json=starred)
    assert refused.status_code == 400 and "wildcard" in refused.json()["detail"]

    denied = server.request("DELETE", "/memories", headers=as_user, params={"user_id": "*"})
    assert denied.status_code == 403 and "admin" in denied.json()["detail"]
    assert server.get("/memories", headers=as_admin, params={"user_id": "wc-ana"}).json()["count"] == 1

    wiped = server.request("DELETE", "/memories", headers=as_admin, params={"user_id": "*"})
    assert wiped.status_code == 200 and wiped.json()["deleted"] >= 2, wiped.text
    assert "user_id" in wiped.json()["message"]
    assert server.get("/memories", headers=as_admin, params={"user_id": "wc-bo"}).json()["count"] == 0
    assert server.get("/memories", headers=as_admin, params={"run_id": "wc-run"}).json()["count"] == 1

    entity = server.request("DELETE", "/entities/user/*", headers=as_admin)
    assert entity.status_code == 400 and "wildcard" in entity.json()["detail"]
