"""The dashboard in a real headless Chromium (Playwright on Debian's ``chromium``) against ``memorist serve``.

One server for the module (gunicorn, hashing embedder, a JWT secret, one-minute access tokens);
each test gets a fresh browser context (its own sessionStorage), signs in through the page and
ends by asserting that no request left 127.0.0.1. axe-core checks each screen it visits.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Page, expect

from .browser import NetworkGuard, axe_violations, browser_type_launch_args, context, network_guard  # noqa: F401
from .server import ADMIN, ROOT, Server, bearer

pytestmark = pytest.mark.slow

#: This tree's code first in the server process too (an editable install may point at another checkout).
CODE_PATH = f"{ROOT}:{ROOT / 'framework'}:{ROOT / 'plugins'}"

EMAIL, PASSWORD = "ada@example.com", "correct horse battery"
#: Failed fetches the tests provoke on purpose log a console error; they are shown to the user.
EXPECTED_HTTP_ERRORS = ("the server responded with a status of",)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"PYTHONPATH": CODE_PATH, "MEMORIST_AUTH__ACCESS_TOKEN_MINUTES": "1", "MEMORIST_AUTH__LOGIN_ATTEMPTS": "1000"}
    srv = Server(tmp_path_factory.mktemp("dashboard") / "data", env=env, workers=1).start()
    yield srv
    srv.stop()


def no_serious_a11y(page: Page, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, f"axe-core on {where}:\n" + "\n".join(violations)


def sign_in(page: Page, server: Server, email: str = EMAIL, password: str = PASSWORD) -> None:
    page.goto(f"{server.url}/dashboard")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()


def api_token(server: Server) -> str:
    resp = server.post("/auth/login", json={"email": EMAIL, "password": PASSWORD})
    assert resp.status_code == 200, resp.text
    return str(resp.json()["access_token"])


# The tests run in file order: the first one creates the admin through the page.


def test_first_run_setup_creates_the_admin(page: Page, server: Server, network_guard: NetworkGuard) -> None:
    page.goto(f"{server.url}/")  # a browser asking for / lands on the dashboard
    assert page.url == f"{server.url}/dashboard"
    expect(page.get_by_role("heading", name="Welcome to Memorist")).to_be_visible()
    no_serious_a11y(page, "first-run setup")
    page.get_by_label("Name").fill("Ada")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create admin account").click()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    expect(page.locator("#who")).to_have_text(f"{EMAIL} (admin)")
    assert server.get("/auth/setup-status").json()["needsSetup"] is False
    no_serious_a11y(page, "memories (empty)")
    network_guard.assert_no_script_errors()


def test_sign_in_rejects_a_wrong_password_then_signs_in_and_out(
    page: Page, server: Server, network_guard: NetworkGuard
) -> None:
    page.goto(f"{server.url}/dashboard")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    no_serious_a11y(page, "sign in")
    page.get_by_label("Email").fill(EMAIL)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text("invalid email or password")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()
    refresh = page.evaluate("sessionStorage.getItem('memorist.refresh')")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
    page.reload()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()  # nothing kept the session alive
    assert refresh
    network_guard.assert_no_script_errors(EXPECTED_HTTP_ERRORS)
