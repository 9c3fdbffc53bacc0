"""Issue 39, item 4: with ``AUTH_DISABLED=true`` no web page may drive the server.

The red team planted a memory from a page on another site (a ``text/plain`` POST,
which browsers send without a CORS preflight) and wiped the store with ``POST
/reset``; any ``Host`` was served, so DNS rebinding reached it too. JSON bodies
must now be declared ``application/json`` (415), and an open server serves only
IP addresses, localhost names and ``server.allowed_hosts`` (403 otherwise) and
refuses a change sent from another origin (403). The browser itself is in
``test_security_browser.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import falcon.testing

from tests.security_kit import ADMIN_HEADERS, client

PLANT = {"messages": [{"role": "user", "content": "Ich wohne in Graz."}], "user_id": "eve", "infer": False}


def stored(c: falcon.testing.TestClient, host: str = "127.0.0.1") -> list[str]:
    resp = c.simulate_get("/memories", params={"user_id": "eve"}, headers=ADMIN_HEADERS, host=host)
    assert resp.status_code == 200, resp.text
    return [m["memory"] for m in resp.json["results"]]


def test_a_json_body_must_be_declared_json(tmp_path: Path) -> None:
    c = client(tmp_path / "data")
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        resp = c.simulate_post(
            "/memories",
            body=json.dumps(PLANT),
            headers={**ADMIN_HEADERS, **({"Content-Type": content_type} if content_type else {})},
        )
        assert resp.status_code == 415, (content_type, resp.text)
        assert "Content-Type must be application/json" in resp.json["detail"]
    assert stored(c) == []
    ok = c.simulate_post(
        "/memories",
        body=json.dumps(PLANT),
        headers={**ADMIN_HEADERS, "Content-Type": "application/json; charset=utf-8"},
    )
    assert ok.status_code == 200 and stored(c) == ["Ich wohne in Graz."]


def test_open_server_refuses_text_plain_writes_and_foreign_origins(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"disabled": True})
    host = {"Host": "127.0.0.1:8765"}
    planted = c.simulate_post("/memories", body=json.dumps(PLANT), headers={**host, "Content-Type": "text/plain"})
    assert planted.status_code == 415
    assert c.simulate_post("/memories", json=PLANT, headers=host).status_code == 200
    # POST /reset has no body: a page elsewhere sends it as a simple request, with its Origin.
    for origin in ("http://127.0.0.1:9999", "https://evil.example", "null"):
        wiped = c.simulate_post("/reset", headers={**host, "Origin": origin})
        assert wiped.status_code == 403 and "AUTH_DISABLED" in wiped.json["detail"], origin
    assert stored(c) == ["Ich wohne in Graz."]
    # The server's own pages (same origin) and clients without Origin still work.
    assert (
        c.simulate_post(
            "/search", json={"query": "Graz", "user_id": "eve"}, headers={**host, "Origin": "http://127.0.0.1:8765"}
        ).status_code
        == 200
    )
    assert c.simulate_post("/reset", headers=host).status_code == 200
    assert stored(c) == []


def test_open_server_serves_only_its_own_host_names(tmp_path: Path) -> None:
    c = client(tmp_path / "data", auth={"disabled": True}, server={"allowed_hosts": ["memory.lan", "*.corp.example"]})
    for name in ("evil.example", "evil.example:8000", "127.0.0.1.nip.io", "memory.lan.evil.example"):
        resp = c.simulate_get("/memories", params={"user_id": "eve"}, host=name)
        assert resp.status_code == 403, name
        assert "server.allowed_hosts" in resp.json["detail"]
    for name in (
        "127.0.0.1",
        "127.0.0.1:8000",
        "[::1]:8000",
        "10.1.2.3",
        "localhost:8000",
        "app.localhost",
        "memory.lan:80",
        "m.corp.example",
    ):
        assert c.simulate_get("/memories", params={"user_id": "eve"}, host=name).status_code == 200, name
    assert c.simulate_get("/health", host="probe.internal").status_code == 200


def test_with_authentication_on_any_host_is_served(tmp_path: Path) -> None:
    c = client(tmp_path / "data")
    resp = c.simulate_get("/memories", params={"user_id": "eve"}, headers=ADMIN_HEADERS, host="memorist.example.com")
    assert resp.status_code == 200


# -- item 3: an open server hands out no credentials ---------------------------------------


def test_open_server_neither_lists_nor_mints_platform_keys(tmp_path: Path) -> None:
    data = tmp_path / "data"
    secured = client(data)
    made = secured.simulate_post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN_HEADERS,
        json={"org_name": "Acme", "project_name": "Web", "email": "owner@acme.example"},
    )
    assert made.status_code == 201, made.text
    key_id = secured.simulate_get("/api/v1/admin/keys/", headers=ADMIN_HEADERS).json["results"][0]["id"]
    bob = secured.simulate_post(
        "/auth/users",
        headers=ADMIN_HEADERS,
        json={"name": "Bob", "email": "bob@example.com", "password": "correct horse 42", "role": "user"},
    ).json["id"]

    c = client(data, auth={"disabled": True})  # the same database, now served with auth off
    attempts = [
        c.simulate_get("/api/v1/admin/keys/"),
        c.simulate_post(
            "/api/v1/admin/bootstrap/",
            json={"org_name": "Mine", "project_name": "P", "email": "owner@acme.example"},
        ),
        c.simulate_delete(f"/api/v1/admin/keys/{key_id}/"),
        c.simulate_get("/users"),
        c.simulate_get("/auth/users"),
        c.simulate_post(
            "/auth/users", json={"name": "Eve", "email": "eve@example.com", "password": "x" * 12, "role": "admin"}
        ),
        c.simulate_post(f"/users/{bob}/password", json={"password": "taken over 1234"}),
        c.simulate_get(f"/users/{bob}/api-keys"),
        c.simulate_patch(f"/users/{bob}", json={"role": "admin"}),
        c.simulate_delete(f"/users/{bob}"),
    ]
    for resp in attempts:
        assert resp.status_code == 403, resp.text
        assert "AUTH_DISABLED=true" in resp.json["detail"] and "memorist admin" in resp.json["detail"]
        assert "owner@acme.example" not in resp.text and "bob@example.com" not in resp.text
    # Nothing changed: the owner's key still works, Bob's password is his own, no account was added.
    ping = secured.simulate_get("/v1/ping/", headers={"Authorization": f"Token {made.json['key']}"})
    assert ping.status_code == 200, ping.text
    login = secured.simulate_post("/auth/login", json={"email": "bob@example.com", "password": "correct horse 42"})
    assert login.status_code == 200
    assert [u["email"] for u in secured.simulate_get("/users", headers=ADMIN_HEADERS).json] == ["bob@example.com"]
    # Memories stay open, as AUTH_DISABLED promises.
    assert c.simulate_post("/memories", json=PLANT).status_code == 200


def test_docs_and_dashboard_forbid_framing(tmp_path: Path) -> None:
    c = client(tmp_path / "data")
    for path in ("/docs", "/dashboard", "/docs/static/swagger-ui-bundle.js"):
        resp = c.simulate_get(path)
        assert resp.status_code == 200, path
        assert resp.headers["X-Frame-Options"] == "DENY", path
        assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"], path
    assert "persistAuthorization: false" in c.simulate_get("/docs").text
