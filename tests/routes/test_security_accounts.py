"""Accounts under attack (issue 14 items 7, 11, 12, 15, 16, 17): through the real HTTP door, in-process."""

from __future__ import annotations

import threading
from pathlib import Path

import falcon.testing
import pytest
from memorist.db import Database
from memorist.db.schema import users
from sqlalchemy import select

from tests.security_kit import (
    ADMIN_HEADERS,
    PASSWORD,
    bearer,
    client,
    login,
    make_user,
    register_admin,
    settings_for,
)


@pytest.fixture
def c(tmp_path: Path) -> falcon.testing.TestClient:
    return client(tmp_path / "data")


# -- 7: concurrent first registrations ----------------------------------------------------


def test_concurrent_first_registrations_create_exactly_one_admin(tmp_path: Path) -> None:
    c = client(tmp_path / "data")
    statuses: dict[int, int] = {}
    start = threading.Barrier(6)

    def register(i: int) -> None:
        start.wait()
        resp = c.simulate_post(
            "/auth/register",
            json={"name": f"R{i}", "email": f"r{i}@example.com", "password": PASSWORD},
            remote_addr=f"10.1.0.{i}",
        )
        statuses[i] = resp.status_code

    threads = [threading.Thread(target=register, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses.values()).count(201) == 1, statuses
    assert all(s in (201, 403) for s in statuses.values()), statuses
    db = Database(settings_for(tmp_path / "data").database_url)
    with db.connect() as conn:
        rows = conn.execute(select(users.c.email, users.c.role)).all()
    assert len(rows) == 1 and rows[0].role == "admin"
    winner = next(i for i, s in statuses.items() if s == 201)
    for i in statuses:  # the losers have no account: they cannot log in
        resp = c.simulate_post("/auth/login", json={"email": f"r{i}@example.com", "password": PASSWORD})
        assert resp.status_code == (200 if i == winner else 401)


# -- 11: user administration --------------------------------------------------------------


def test_admin_lists_disables_demotes_resets_and_deletes_users(c: falcon.testing.TestClient) -> None:
    admin = register_admin(c)
    bob = make_user(c, "bob@example.com")
    key = c.simulate_post("/api-keys", headers=bearer(bob["access_token"]), json={"label": "bob"}).json
    bob_key = {"X-API-Key": key["key"]}
    assert c.simulate_get("/memories", headers=bob_key).status_code == 200

    listed = c.simulate_get("/users", headers=bearer(admin["access_token"]))
    assert listed.status_code == 200
    row = next(u for u in listed.json if u["email"] == "bob@example.com")
    assert set(row) >= {"id", "email", "role", "disabled", "created_at", "last_login"}
    assert row["disabled"] is False and row["last_login"] is not None
    assert c.simulate_get("/users", headers=bearer(bob["access_token"])).status_code == 403

    # Disable: session and key fail at once; login refused.
    off = c.simulate_patch(f"/users/{bob['id']}", headers=ADMIN_HEADERS, json={"disabled": True})
    assert off.status_code == 200 and off.json["disabled"] is True
    assert c.simulate_get("/auth/me", headers=bearer(bob["access_token"])).status_code == 401
    assert c.simulate_get("/memories", params={"user_id": "x"}, headers=bob_key).status_code == 401
    assert c.simulate_post("/auth/refresh", json={"refresh_token": bob["refresh_token"]}).status_code == 401
    assert c.simulate_post("/auth/login", json={"email": "bob@example.com", "password": PASSWORD}).status_code == 401
    c.simulate_patch(f"/users/{bob['id']}", headers=ADMIN_HEADERS, json={"disabled": False})
    bob = {**bob, **login(c, "bob@example.com")}

    # Promote, then demote: the promoted session is revoked by the role change.
    up = c.simulate_patch(f"/users/{bob['id']}", headers=ADMIN_HEADERS, json={"role": "admin"})
    assert up.status_code == 200 and up.json["role"] == "admin"
    assert c.simulate_get("/auth/me", headers=bearer(bob["access_token"])).status_code == 401
    bad = c.simulate_patch(f"/users/{bob['id']}", headers=ADMIN_HEADERS, json={"role": "root"})
    assert bad.status_code == 422 and "role" in bad.text

    # Admin password reset: old password and sessions stop working.
    bob = {**bob, **login(c, "bob@example.com")}
    reset = c.simulate_post(f"/users/{bob['id']}/password", headers=ADMIN_HEADERS, json={"password": "brand-new-pass"})
    assert reset.status_code == 200
    assert c.simulate_get("/auth/me", headers=bearer(bob["access_token"])).status_code == 401
    assert c.simulate_post("/auth/login", json={"email": "bob@example.com", "password": PASSWORD}).status_code == 401
    bob = {**bob, **login(c, "bob@example.com", "brand-new-pass")}

    # Admin revokes another user's key: it fails at once.
    key2 = c.simulate_post("/api-keys", headers=bearer(bob["access_token"]), json={"label": "b2"}).json
    listed_keys = c.simulate_get(f"/users/{bob['id']}/api-keys", headers=bearer(admin["access_token"])).json
    assert key2["id"] in {k["id"] for k in listed_keys}
    revoked = c.simulate_delete(f"/api-keys/{key2['id']}", headers=bearer(admin["access_token"]))
    assert revoked.status_code == 200
    assert c.simulate_get("/memories", params={"user_id": "x"}, headers={"X-API-Key": key2["key"]}).status_code == 401

    # Delete: gone from the list, its tokens and keys fail.
    assert c.simulate_delete(f"/users/{bob['id']}", headers=ADMIN_HEADERS).status_code == 200
    assert all(u["id"] != bob["id"] for u in c.simulate_get("/users", headers=ADMIN_HEADERS).json)
    assert c.simulate_get("/auth/me", headers=bearer(bob["access_token"])).status_code == 401
    assert c.simulate_delete(f"/users/{bob['id']}", headers=ADMIN_HEADERS).status_code == 404


def test_last_admin_cannot_be_demoted_disabled_or_deleted(c: falcon.testing.TestClient) -> None:
    admin = register_admin(c)
    me = c.simulate_get("/auth/me", headers=bearer(admin["access_token"])).json
    for attempt in ({"role": "user"}, {"disabled": True}):
        resp = c.simulate_patch(f"/users/{me['id']}", headers=ADMIN_HEADERS, json=attempt)
        assert resp.status_code == 409 and "last admin" in resp.json["detail"]
    assert c.simulate_delete(f"/users/{me['id']}", headers=ADMIN_HEADERS).status_code == 409
    assert c.simulate_get("/auth/me", headers=bearer(admin["access_token"])).status_code == 200
    other = make_user(c, "second@example.com", role="admin")
    assert c.simulate_patch(f"/users/{me['id']}", headers=ADMIN_HEADERS, json={"role": "user"}).status_code == 200
    assert c.simulate_delete(f"/users/{other['id']}", headers=ADMIN_HEADERS).status_code == 409


# -- 12: rate limits ----------------------------------------------------------------------


def test_failures_from_one_address_do_not_lock_out_the_real_admin(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"login_attempts": 3, "login_address_attempts": 100})
    register_admin(c)
    make_user(c, "victim@example.com")
    shared = "10.9.9.9"  # the load balancer's address: everyone comes from it
    for _ in range(10):  # an attacker guesses another account's password through the balancer
        resp = c.simulate_post(
            "/auth/login", json={"email": "victim@example.com", "password": "guess-guess"}, remote_addr=shared
        )
        assert resp.status_code in (401, 429)
    assert resp.status_code == 429 and resp.headers["Retry-After"]
    # The admin, from the same address, still logs in; and successes are never counted.
    for _ in range(6):
        ok = c.simulate_post("/auth/login", json={"email": "ada@example.com", "password": PASSWORD}, remote_addr=shared)
        assert ok.status_code == 200
    # The attacked account is locked for the guessing address (per account and address), not for
    # its owner elsewhere: a valid password is never refused for someone else's failures (issue 39).
    right = {"email": "victim@example.com", "password": PASSWORD}
    assert c.simulate_post("/auth/login", json=right, remote_addr=shared).status_code == 429
    assert c.simulate_post("/auth/login", json=right, remote_addr="10.8.8.8").status_code == 200


def test_per_address_limit_on_failed_logins(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"login_attempts": 100, "login_address_attempts": 4})
    register_admin(c)
    codes = [
        c.simulate_post(
            "/auth/login", json={"email": f"nobody{i}@example.com", "password": "x" * 9}, remote_addr="10.7.7.7"
        ).status_code
        for i in range(6)
    ]
    assert codes[:4] == [401] * 4 and codes[4:] == [429, 429]
    other = c.simulate_post(
        "/auth/login", json={"email": "ada@example.com", "password": PASSWORD}, remote_addr="10.6.6.6"
    )
    assert other.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"X-API-Key": "svcsk_guess"},
        {"X-API-Key": "not-the-admin-key"},
        {"Authorization": "Bearer not.a.jwt"},
    ],
)
def test_wrong_keys_and_tokens_are_throttled_per_address(tmp_path: Path, headers: dict[str, str]) -> None:
    c = client(tmp_path / "data", auth={"failed_auth_attempts": 5})
    codes = [
        c.simulate_get("/memories", params={"user_id": "u"}, headers=headers, remote_addr="10.5.5.5").status_code
        for _ in range(8)
    ]
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}
    # Another address is unaffected, and valid credentials from it work.
    assert c.simulate_get("/memories", params={"user_id": "u"}, headers=ADMIN_HEADERS).status_code == 200


def test_wrong_platform_tokens_are_throttled(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"failed_auth_attempts": 3})
    codes = [
        c.simulate_post(
            "/v3/memories/search/",
            json={"query": "q", "filters": {"user_id": "u"}},
            headers={"Authorization": "Token m0-guess"},
            remote_addr="10.4.4.4",
        ).status_code
        for _ in range(5)
    ]
    assert codes[:3] == [401] * 3 and set(codes[3:]) == {429}


def test_forwarded_for_names_the_client_only_with_trusted_hops(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"failed_auth_attempts": 2, "trusted_proxy_hops": 1})
    bad = {"X-API-Key": "svcsk_guess"}
    for _ in range(3):
        c.simulate_get("/memories", headers={**bad, "X-Forwarded-For": "203.0.113.7"}, remote_addr="10.0.0.2")
    blocked = c.simulate_get("/memories", headers={**bad, "X-Forwarded-For": "203.0.113.7"}, remote_addr="10.0.0.2")
    assert blocked.status_code == 429
    # Another client behind the same balancer is not blocked.
    fine = c.simulate_get(
        "/memories",
        params={"user_id": "u"},
        headers={**ADMIN_HEADERS, "X-Forwarded-For": "203.0.113.8"},
        remote_addr="10.0.0.2",
    )
    assert fine.status_code == 200


# -- 15: sessions -------------------------------------------------------------------------


def test_password_change_keeps_the_callers_session_and_signs_out_the_others(c: falcon.testing.TestClient) -> None:
    register_admin(c)
    bob = make_user(c, "bob@example.com")
    other = login(c, "bob@example.com")
    resp = c.simulate_post(
        "/auth/change-password",
        headers=bearer(bob["access_token"]),
        json={"current_password": PASSWORD, "new_password": "the-new-password"},
    )
    assert resp.status_code == 200, resp.text
    # The caller's session goes on: its access token and its refresh token.
    assert c.simulate_get("/auth/me", headers=bearer(bob["access_token"])).status_code == 200
    assert c.simulate_post("/auth/refresh", json={"refresh_token": bob["refresh_token"]}).status_code == 200
    # The other session's access token dies at once (not in 15 minutes), and its refresh token too.
    assert c.simulate_get("/auth/me", headers=bearer(other["access_token"])).status_code == 401
    assert c.simulate_post("/auth/refresh", json={"refresh_token": other["refresh_token"]}).status_code == 401


def test_refresh_reuse_revokes_access_tokens_at_once(c: falcon.testing.TestClient) -> None:
    admin = register_admin(c)
    rotated = c.simulate_post("/auth/refresh", json={"refresh_token": admin["refresh_token"]}).json
    assert c.simulate_get("/auth/me", headers=bearer(rotated["access_token"])).status_code == 200
    replay = c.simulate_post("/auth/refresh", json={"refresh_token": admin["refresh_token"]})
    assert replay.status_code == 401
    assert c.simulate_get("/auth/me", headers=bearer(rotated["access_token"])).status_code == 401


def test_logout_ends_this_session_only_or_every_session(c: falcon.testing.TestClient) -> None:
    register_admin(c)
    make_user(c, "bob@example.com")
    one, two = login(c, "bob@example.com"), login(c, "bob@example.com")
    assert c.simulate_post("/auth/logout", headers=bearer(one["access_token"])).status_code == 200
    assert c.simulate_get("/auth/me", headers=bearer(one["access_token"])).status_code == 401
    assert c.simulate_post("/auth/refresh", json={"refresh_token": one["refresh_token"]}).status_code == 401
    assert c.simulate_get("/auth/me", headers=bearer(two["access_token"])).status_code == 200
    everywhere = c.simulate_post("/auth/logout", headers=bearer(two["access_token"]), json={"everywhere": True})
    assert everywhere.status_code == 200
    three = login(c, "bob@example.com")
    assert c.simulate_get("/auth/me", headers=bearer(two["access_token"])).status_code == 401
    assert c.simulate_get("/auth/me", headers=bearer(three["access_token"])).status_code == 200
    assert c.simulate_post("/auth/logout", headers=ADMIN_HEADERS).status_code == 401
    # Signing out another login of one's own by its refresh token; never someone else's.
    four, five = login(c, "bob@example.com"), login(c, "bob@example.com")
    by_token = c.simulate_post(
        "/auth/logout", headers=bearer(four["access_token"]), json={"refresh_token": five["refresh_token"]}
    )
    assert by_token.status_code == 200
    assert c.simulate_get("/auth/me", headers=bearer(five["access_token"])).status_code == 401
    assert c.simulate_get("/auth/me", headers=bearer(four["access_token"])).status_code == 200
    admin_login = login(c, "ada@example.com")
    foreign = c.simulate_post(
        "/auth/logout", headers=bearer(four["access_token"]), json={"refresh_token": admin_login["refresh_token"]}
    )
    assert foreign.status_code == 403
    assert c.simulate_get("/auth/me", headers=bearer(admin_login["access_token"])).status_code == 200


def test_account_changes_need_a_session_and_the_password(c: falcon.testing.TestClient) -> None:
    register_admin(c)
    bob = make_user(c, "bob@example.com")
    key = c.simulate_post("/api-keys", headers=bearer(bob["access_token"]), json={}).json["key"]
    by_key = c.simulate_patch("/auth/me", headers={"X-API-Key": key}, json={"email": "mallory@example.com"})
    assert by_key.status_code == 401
    by_key_pw = c.simulate_post(
        "/auth/change-password",
        headers={"X-API-Key": key},
        json={"current_password": PASSWORD, "new_password": "x" * 12},
    )
    assert by_key_pw.status_code == 401
    no_pw = c.simulate_patch("/auth/me", headers=bearer(bob["access_token"]), json={"email": "mallory@example.com"})
    assert no_pw.status_code == 400 and "current_password" in no_pw.json["detail"]
    wrong = c.simulate_patch(
        "/auth/me",
        headers=bearer(bob["access_token"]),
        json={"email": "mallory@example.com", "current_password": "wrong-password"},
    )
    assert wrong.status_code == 401
    ok = c.simulate_patch(
        "/auth/me",
        headers=bearer(bob["access_token"]),
        json={"email": "bobby@example.com", "current_password": PASSWORD},
    )
    assert ok.status_code == 200 and ok.json["email"] == "bobby@example.com"
    renamed = c.simulate_patch("/auth/me", headers=bearer(bob["access_token"]), json={"name": "Bobby"})
    assert renamed.status_code == 200


# -- 16: weak JWT secret ------------------------------------------------------------------


def test_short_jwt_secret_warns_at_startup(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="memorist.http"):
        client(tmp_path / "data", auth={"jwt_secret": "x"})
    assert any("JWT_SECRET is shorter than 32 bytes" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level("WARNING", logger="memorist.http"):
        client(tmp_path / "data2")
    assert not any("JWT_SECRET" in r.getMessage() for r in caplog.records)


# -- 17: AUTH_DISABLED answers --------------------------------------------------------------


def test_auth_disabled_answers_me_and_api_keys_sensibly(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"disabled": True})
    me = c.simulate_get("/auth/me")
    assert me.status_code == 200 and me.json["role"] == "admin" and me.json["id"] == "anonymous"
    assert c.simulate_get("/api-keys").status_code == 200 and c.simulate_get("/api-keys").json == []
    made = c.simulate_post("/api-keys", json={"label": "x"})
    assert made.status_code == 409 and "AUTH_DISABLED" in made.json["detail"]
