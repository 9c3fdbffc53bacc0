"""Issue 39, item 2: failure throttles never lock out a valid credential.

The red team sent 61 wrong ``X-API-Key`` values from one address; the user's own
valid key, the admin key, a dashboard session and ``/mcp`` then answered 429 from
that address (behind a proxy with ``trusted_proxy_hops=0``: for everyone). And 110
failed logins with random emails made the admin's correct password answer 429.
The credential is now checked first; only wrong ones are counted and refused.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.security_kit import ADMIN_HEADERS, PASSWORD, bearer, client, make_user, register_admin

PROXY = "10.9.9.9"  # a load balancer without trusted_proxy_hops: every client has this address
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def test_wrong_keys_from_one_address_do_not_refuse_valid_credentials_from_it(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"failed_auth_attempts": 60})
    register_admin(c)
    bob = make_user(c, "bob@example.com")
    key = c.simulate_post("/api-keys", json={"label": "bob"}, headers=bearer(bob["access_token"])).json["key"]
    codes = [
        c.simulate_get(
            "/memories", params={"user_id": "u"}, headers={"X-API-Key": f"svcsk_wrong{i}"}, remote_addr=PROXY
        ).status_code
        for i in range(61)
    ]
    assert codes[:60] == [401] * 60 and codes[60] == 429  # the guesser is still throttled
    assert c.simulate_get("/memories", headers={"X-API-Key": "svcsk_again"}, remote_addr=PROXY).status_code == 429

    platform = c.simulate_post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN_HEADERS,
        json={"org_name": "Acme", "project_name": "Web", "email": "owner@acme.example"},
    ).json["key"]
    ping = c.simulate_get("/v1/ping/", headers={"Authorization": f"Token {platform}"}, remote_addr=PROXY)
    assert ping.status_code == 200, ping.text
    for valid in ({"X-API-Key": key}, ADMIN_HEADERS, bearer(bob["access_token"])):
        resp = c.simulate_get("/memories", params={"user_id": "bob@example.com"}, headers=valid, remote_addr=PROXY)
        assert resp.status_code == 200, (valid, resp.status_code, resp.text)
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    mcp = c.simulate_post(
        "/mcp", body=json.dumps(initialize), headers={**MCP_HEADERS, "X-API-Key": key}, remote_addr=PROXY
    )
    assert mcp.status_code == 200, mcp.text


def test_failed_logins_with_random_emails_do_not_refuse_the_admins_password(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"login_address_attempts": 100})
    register_admin(c)
    codes = [
        c.simulate_post(
            "/auth/login", json={"email": f"nobody{i}@example.com", "password": "x" * 9}, remote_addr=PROXY
        ).status_code
        for i in range(110)
    ]
    assert codes[:100] == [401] * 100 and set(codes[100:]) == {429}
    ok = c.simulate_post("/auth/login", json={"email": "ada@example.com", "password": PASSWORD}, remote_addr=PROXY)
    assert ok.status_code == 200, ok.text
    wrong = c.simulate_post(
        "/auth/login", json={"email": "ada@example.com", "password": "nope-nope"}, remote_addr=PROXY
    )
    assert wrong.status_code == 429 and wrong.headers["Retry-After"]


def test_guessing_one_account_is_stopped_from_that_address_only(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"login_attempts": 3})
    register_admin(c)
    make_user(c, "victim@example.com")
    attacker = "203.0.113.9"
    for _ in range(3):
        guess = {"email": "victim@example.com", "password": "guess-guess"}
        assert c.simulate_post("/auth/login", json=guess, remote_addr=attacker).status_code == 401
    # From the guessing address even the right password is refused: the guess is never checked.
    right = {"email": "victim@example.com", "password": PASSWORD}
    refused = c.simulate_post("/auth/login", json=right, remote_addr=attacker)
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    # The owner, elsewhere, is not locked out by the attacker's failures.
    assert c.simulate_post("/auth/login", json=right, remote_addr="198.51.100.4").status_code == 200
