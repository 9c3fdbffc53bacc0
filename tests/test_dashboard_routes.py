"""The dashboard's server side in-process: the shell and assets, the / redirect, and the /users routes."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import falcon.testing
import pytest
from memorist.http import create_app
from memorist.http.dashboard import STATIC
from memorist.plugins import load_plugins
from memorist.settings import load_settings

from .conftest import ROOT, fast_settings
from .plugins import hashing

SECRET = "dashboard-test-secret-0123456789abcdef"
ADMIN_KEY = {"X-API-Key": "dashboard-admin-key-0123456789"}
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.fixture
def client(tmp_path: Path) -> falcon.testing.TestClient:
    auth = {"jwt_secret": SECRET, "admin_api_key": ADMIN_KEY["X-API-Key"], "login_attempts": 1000}
    settings = load_settings(None, fast_settings(tmp_path, auth=auth))
    return falcon.testing.TestClient(create_app(settings, load_plugins({}, extra=[hashing])))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_browser_asking_for_root_goes_to_the_dashboard(client: falcon.testing.TestClient) -> None:
    resp = client.simulate_get("/", headers={"Accept": BROWSER_ACCEPT})
    assert resp.status_code == 302 and resp.headers["Location"] == "/dashboard"
    assert "Accept" in resp.headers["Vary"]
    for accept in (None, "*/*", "application/json"):
        resp = client.simulate_get("/", headers={"Accept": accept} if accept else {})
        assert resp.status_code == 200 and resp.json["dashboard"] == "/dashboard", accept


def test_shell_is_served_with_a_strict_content_security_policy(client: falcon.testing.TestClient) -> None:
    resp = client.simulate_get("/dashboard")
    assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("text/html")
    csp = resp.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert resp.headers["X-Frame-Options"] == "DENY"
    assert '<script type="module" src="/dashboard/static/app.js">' in resp.text
    assert client.simulate_get("/dashboard/").headers["Location"] == "/dashboard"


def referenced_assets() -> set[str]:
    """Every asset the shell links and every module any module imports."""
    names = set(re.findall(r"/dashboard/static/([\w.-]+)", (STATIC / "index.html").read_text()))
    for script in STATIC.glob("*.js"):
        names |= set(re.findall(r'from "\./([\w.-]+)"', script.read_text()))
    return names


def test_every_referenced_asset_is_served_with_its_type(client: falcon.testing.TestClient) -> None:
    names = referenced_assets()
    assert {"app.js", "api.js", "style.css", "favicon.svg", "memories.js"} <= names
    types = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    for name in names:
        resp = client.simulate_get(f"/dashboard/static/{name}")
        assert resp.status_code == 200, name
        assert resp.headers["Content-Type"].startswith(types[Path(name).suffix]), (name, resp.headers["Content-Type"])
        assert resp.headers["X-Content-Type-Options"] == "nosniff"


def test_an_unchanged_asset_costs_a_304(client: falcon.testing.TestClient) -> None:
    first = client.simulate_get("/dashboard/static/app.js")
    etag = first.headers["ETag"]
    again = client.simulate_get("/dashboard/static/app.js", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    other = client.simulate_get("/dashboard/static/app.js", headers={"If-None-Match": '"stale"'})
    assert other.status_code == 200 and other.content == first.content


@pytest.mark.parametrize("name", ["index.html", "..%2F__init__.py", "nope.js", "%2e%2e%2fresources.py"])
def test_unknown_assets_are_404(client: falcon.testing.TestClient, name: str) -> None:
    assert client.simulate_get(f"/dashboard/static/{name}").status_code == 404


def test_assets_name_no_other_host() -> None:
    """Offline by construction: no asset loads anything from elsewhere (the SVG namespace is a name, not a fetch)."""
    for path in STATIC.iterdir():
        urls = set(re.findall(r"https?://[^\s\"')]+", path.read_text())) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{path.name} refers to {urls}"


def test_assets_are_package_data() -> None:
    """A wheel carries the dashboard: pyproject lists its static folder as package data."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "http/dashboard/static/*" in pyproject["tool"]["setuptools"]["package-data"]["memorist"]


def test_setup_status_tells_the_dashboard_about_the_auth_mode(client: falcon.testing.TestClient) -> None:
    assert client.simulate_get("/auth/setup-status").json == {
        "needsSetup": True,
        "authDisabled": False,
        "jwtConfigured": True,
    }


# -- /users ----------------------------------------------------------------------------------------


def register(client: falcon.testing.TestClient) -> str:
    body = {"name": "Ada", "email": "ada@example.com", "password": "correct horse"}
    resp = client.simulate_post("/auth/register", json=body)
    assert resp.status_code == 201
    return str(resp.json["access_token"])


def create(client: falcon.testing.TestClient, token: str, email: str, role: str = "user") -> str:
    body = {"name": email.split("@")[0], "email": email, "password": "long password", "role": role}
    resp = client.simulate_post("/auth/users", headers=bearer(token), json=body)
    assert resp.status_code == 201, resp.text
    return str(resp.json["id"])


def login(client: falcon.testing.TestClient, email: str, password: str = "long password") -> falcon.testing.Result:
    return client.simulate_post("/auth/login", json={"email": email, "password": password})


def test_users_list_role_and_state(client: falcon.testing.TestClient) -> None:
    admin = register(client)
    create(client, admin, "bob@example.com")
    listed = client.simulate_get("/users", headers=bearer(admin)).json["results"]
    assert [(u["email"], u["role"], u["disabled"]) for u in listed] == [
        ("ada@example.com", "admin", False),
        ("bob@example.com", "user", False),
    ]
    assert set(listed[0]) == {"id", "email", "name", "role", "disabled", "created_at"}


def test_a_disabled_account_loses_every_credential_at_once(client: falcon.testing.TestClient) -> None:
    admin = register(client)
    bob = create(client, admin, "bob@example.com")
    session = login(client, "bob@example.com").json
    key = client.simulate_post("/api-keys", headers=bearer(session["access_token"]), json={"label": "k"}).json["key"]
    tenant = {"org_name": "O", "project_name": "P", "email": "bob@example.com", "org_id": "o1", "project_id": "p1"}
    platform = client.simulate_post("/api/v1/admin/bootstrap/", headers=ADMIN_KEY, json=tenant)
    assert platform.status_code == 201, platform.text
    token_header = {"Authorization": f"Token {platform.json['key']}"}
    assert client.simulate_get("/v1/ping/", headers=token_header).status_code == 200
    resp = client.simulate_patch(f"/users/{bob}", headers=bearer(admin), json={"disabled": True})
    assert resp.status_code == 200 and resp.json["disabled"] is True
    assert client.simulate_get("/v1/ping/", headers=token_header).status_code == 401
    assert client.simulate_get("/auth/me", headers=bearer(session["access_token"])).status_code == 401
    assert client.simulate_get("/entities", headers={"X-API-Key": key}).status_code == 401
    assert client.simulate_post("/auth/refresh", json={"refresh_token": session["refresh_token"]}).status_code == 401
    assert login(client, "bob@example.com").status_code == 401
    assert client.simulate_patch(f"/users/{bob}", headers=bearer(admin), json={"disabled": False}).status_code == 200
    assert login(client, "bob@example.com").status_code == 200
    assert client.simulate_get("/entities", headers={"X-API-Key": key}).status_code == 200  # keys were kept


def test_role_change_and_the_last_admin_rule(client: falcon.testing.TestClient) -> None:
    admin = register(client)
    me = client.simulate_get("/auth/me", headers=bearer(admin)).json["id"]
    bob = create(client, admin, "bob@example.com")
    # Nobody can remove the last active admin, and an admin cannot lock themself out here.
    assert client.simulate_patch(f"/users/{me}", headers=bearer(admin), json={"role": "user"}).status_code == 409
    assert client.simulate_patch(f"/users/{me}", headers=bearer(admin), json={"disabled": True}).status_code == 409
    assert client.simulate_delete(f"/users/{me}", headers=bearer(admin)).status_code == 409
    resp = client.simulate_patch(f"/users/{me}", headers=ADMIN_KEY, json={"role": "user"})
    assert resp.status_code == 409 and "last active admin" in resp.json["detail"]
    assert client.simulate_patch(f"/users/{bob}", headers=bearer(admin), json={"role": "admin"}).json["role"] == "admin"
    bob_token = login(client, "bob@example.com").json["access_token"]
    assert client.simulate_get("/users", headers=bearer(bob_token)).status_code == 200  # bob is an admin now
    resp = client.simulate_patch(f"/users/{bob}", headers=bearer(admin), json={"role": "owner"})
    assert resp.status_code in (400, 422) and "role" in resp.text


def test_set_password_and_delete(client: falcon.testing.TestClient) -> None:
    admin = register(client)
    bob = create(client, admin, "bob@example.com")
    old_session = login(client, "bob@example.com").json
    short = client.simulate_post(f"/users/{bob}/password", headers=bearer(admin), json={"password": "short"})
    assert short.status_code in (400, 422) and "password" in short.json["detail"]
    assert login(client, "bob@example.com").status_code == 200  # nothing changed
    resp = client.simulate_post(f"/users/{bob}/password", headers=bearer(admin), json={"password": "brand new pass"})
    assert resp.status_code == 200
    assert login(client, "bob@example.com").status_code == 401
    assert login(client, "bob@example.com", "brand new pass").status_code == 200
    refreshed = client.simulate_post("/auth/refresh", json={"refresh_token": old_session["refresh_token"]})
    assert refreshed.status_code == 401  # signed out everywhere
    assert client.simulate_delete(f"/users/{bob}", headers=bearer(admin)).status_code == 200
    assert client.simulate_delete(f"/users/{bob}", headers=bearer(admin)).status_code == 404
    assert login(client, "bob@example.com", "brand new pass").status_code == 401
    assert [u["email"] for u in client.simulate_get("/users", headers=bearer(admin)).json["results"]] == [
        "ada@example.com"
    ]


def test_users_routes_are_for_admins(client: falcon.testing.TestClient) -> None:
    admin = register(client)
    bob = create(client, admin, "bob@example.com")
    user = login(client, "bob@example.com").json["access_token"]
    assert client.simulate_get("/users").status_code == 401
    assert client.simulate_get("/users", headers=bearer(user)).status_code == 403
    assert client.simulate_patch(f"/users/{bob}", headers=bearer(user), json={"role": "admin"}).status_code == 403
    assert client.simulate_delete(f"/users/{bob}", headers=bearer(user)).status_code == 403
    resp = client.simulate_patch("/users/no-such-id", headers=bearer(admin), json={"disabled": True})
    assert resp.status_code == 404
    resp = client.simulate_patch(f"/users/{bob}", headers=bearer(admin), json={"disabled": "yes please"})
    assert resp.status_code in (400, 422) and "disabled" in resp.text
