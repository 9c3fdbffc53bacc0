"""The dashboard's server side in-process: the shell and its assets, the / redirect, the setup-status flags."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import falcon.testing
import pytest
from memorist.config.settings import load_settings
from memorist.http import create_app
from memorist.http.dashboard import STATIC
from memorist.plugin.manager import load_plugins

from tests.conftest import ROOT, fast_settings
from tests.plugins import hashing

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


# -- what the dashboard asks the server to filter (issue 18) ----------------------------------------------------
def test_request_log_filters_run_in_the_database_before_the_limit(client: falcon.testing.TestClient) -> None:
    assert client.simulate_get("/memories/nope", headers=ADMIN_KEY).status_code == 404  # one old 4xx
    for _ in range(30):  # then many newer 2xx rows: client-side filtering of the newest 20 would lose the 404
        assert client.simulate_get("/health").status_code == 200
    newest = client.simulate_get("/requests", params={"limit": 20}, headers=ADMIN_KEY).json
    assert all(r["path"] != "/memories/nope" for r in newest)
    found = client.simulate_get("/requests", params={"limit": 20, "status": "4"}, headers=ADMIN_KEY).json
    assert [r["path"] for r in found] == ["/memories/nope"] and found[0]["status_code"] == 404
    exact = client.simulate_get("/requests", params={"status": "404", "path": "MEMORIES/"}, headers=ADMIN_KEY).json
    assert [r["path"] for r in exact] == ["/memories/nope"]  # the path match ignores case
    assert client.simulate_get("/requests", params={"status": "401"}, headers=ADMIN_KEY).json == []
    health = client.simulate_get("/requests", params={"path": "/health", "limit": 500}, headers=ADMIN_KEY).json
    assert len(health) == 30 and {r["status_code"] for r in health} == {200}
    assert client.simulate_get("/requests", params={"path": "%"}, headers=ADMIN_KEY).json == []  # '%' is literal
    for bad in ({"status": "4x"}, {"status": "6"}, {"status": "4000"}):
        resp = client.simulate_get("/requests", params=bad, headers=ADMIN_KEY)
        assert resp.status_code == 422 and "status" in resp.text, bad


def test_memories_text_lists_those_containing_every_word_newest_first(client: falcon.testing.TestClient) -> None:
    texts = ["Alice moved to Lisbon", "alice visits LISBON in spring", "Bob moved to Porto", "Alice likes tea"]
    for text in texts:
        body = {"messages": [{"role": "user", "content": text}], "user_id": "alice", "infer": False}
        assert client.simulate_post("/memories", json=body, headers=ADMIN_KEY).status_code == 200
    page = client.simulate_get("/memories", params={"user_id": "alice", "text": "lisbon ALICE"}, headers=ADMIN_KEY)
    assert page.status_code == 200, page.text
    assert [r["memory"] for r in page.json["results"]] == ["alice visits LISBON in spring", "Alice moved to Lisbon"]
    assert page.json["count"] == 2
    second = client.simulate_get(
        "/memories", params={"user_id": "alice", "text": "alice", "page": 2, "page_size": 2}, headers=ADMIN_KEY
    ).json
    assert second["count"] == 3 and [r["memory"] for r in second["results"]] == ["Alice moved to Lisbon"]
    none = client.simulate_get("/memories", params={"user_id": "alice", "text": "paris"}, headers=ADMIN_KEY).json
    assert none == {"results": [], "count": 0, "page": 1, "page_size": 100}
