"""``/docs`` in a real headless Chromium (Playwright on Debian's ``chromium``) with no network but this server.

The issue asks that the API explorer load with no network, list the routes, and accept a Bearer
token or an API key through its Authorize control. Only a browser running Swagger UI's JavaScript
can show that: the HTML page itself is an empty ``<div>`` until the bundle has fetched
``/openapi.json`` and rendered it (and it renders an error box instead of the operations when it
cannot read the document). The fixtures of :mod:`tests.browser` refuse every host but 127.0.0.1
and record each request, so each test also proves nothing left the machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from memorist.testing.inprocess import AppServer
from memorist.testing.server import bearer
from playwright.sync_api import Page, Request, expect

from tests import browser as pw
from tests.browser import NetworkGuard, require_chromium

# The Playwright fixtures of tests/browser/__init__.py (Debian's chromium, the network guard), for this module.
browser_type_launch_args = pw.browser_type_launch_args
context = pw.context
network_guard = pw.network_guard
playwright = pw.playwright
browser_type = pw.browser_type
browser = pw.browser
browser_context_args = pw.browser_context_args


# Routes the issue names; the test also checks that *every* route of /openapi.json is listed.
EXPECTED_OPERATIONS = {
    ("GET", "/memories"),
    ("POST", "/memories"),
    ("POST", "/search"),
    ("GET", "/configure"),
    ("POST", "/configure"),
    ("POST", "/auth/login"),
    ("GET", "/api-keys"),
    ("POST", "/api-keys"),
    ("GET", "/requests"),
    ("DELETE", "/entities/{entity_type}/{entity_id}"),
}
RENDER_TIMEOUT_MS = 30_000
# Swagger UI has rendered once it shows operations, or has given up once it shows its error box.
PROBLEM_SELECTOR = ".version-pragma, .errors-wrapper, .loading-container h4"
OPERATIONS_JS = """
() => [...document.querySelectorAll('.opblock')].map(block => [
  (block.querySelector('.opblock-summary-method') || {}).textContent || '',
  (block.querySelector('.opblock-summary-path') || {}).dataset?.path || '',
])
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """The app as a `memorist serve` worker builds it, on a loopback socket from this process (the page
    is the subject, not gunicorn), with the hashing test embedder so no model loads."""
    srv = AppServer(tmp_path_factory.mktemp("docs-server") / "data").start().listening()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def credentials(server: AppServer) -> dict[str, str]:
    """A first admin's access token and an API key of theirs, made through the API itself."""
    body = {"name": "Docs Tester", "email": "docs@example.com", "password": "correct horse 42"}
    resp = server.post("/auth/register", json=body)
    assert resp.status_code == 201, resp.text
    token = resp.json()["access_token"]
    resp = server.post("/api-keys", json={"label": "docs-browser"}, headers=bearer(token))
    assert resp.status_code == 201, resp.text
    return {"bearerAuth": token, "apiKeyAuth": resp.json()["key"]}


def open_docs(page: Page, url: str) -> None:
    """Load the explorer, wait for Swagger UI to render, and fail with its own words if it could not."""
    page.goto(url)
    # A locator, not wait_for_function: the page's CSP allows no string evaluation ('unsafe-eval').
    page.locator(f".opblock, {PROBLEM_SELECTOR}").first.wait_for(timeout=RENDER_TIMEOUT_MS)
    problem = page.locator(PROBLEM_SELECTOR)
    assert problem.count() == 0, f"Swagger UI could not render /openapi.json:\n{problem.first.inner_text()}"


def scheme_block(page: Page, scheme: str):  # type: ignore[no-untyped-def]
    """The Authorize dialog's part for one security scheme (its <h4> names it in a <code>)."""
    name = page.locator("h4 code", has_text=re.compile(rf"^{scheme}$"))
    return page.locator(".modal-ux form", has=name)


def test_chromium_is_installed() -> None:
    """Reported as a plain failure (the fixture-based tests below show as setup errors)."""
    require_chromium()


def test_docs_renders_every_route_with_no_network(
    page: Page, server: AppServer, network_guard: NetworkGuard, tmp_path: Path
) -> None:
    """Swagger UI loads from the server's own assets, reads /openapi.json and lists each operation."""
    try:
        open_docs(page, f"{server.url}/docs")
    finally:  # the picture helps most when the page did not render
        page.screenshot(path=tmp_path / "docs.png", full_page=True)
    assert (tmp_path / "docs.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shown = {(method.strip().upper(), path) for method, path in page.evaluate(OPERATIONS_JS)}
    document = requests.get(f"{server.url}/openapi.json", timeout=10).json()
    documented = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    assert EXPECTED_OPERATIONS <= documented
    assert shown == documented, f"missing: {sorted(documented - shown)}; extra: {sorted(shown - documented)}"
    expect(page.locator("button.btn.authorize")).to_be_visible()
    network_guard.assert_no_script_errors()
    network_guard.assert_local_only()
    served = [u for u in network_guard.requested if u.startswith(f"{server.url}/docs/static/")]
    assert served, "the explorer's assets did not come from this server"


def test_authorize_dialog_offers_bearer_token_and_api_key(page: Page, server: AppServer) -> None:
    """The Authorize dialog has an input for each way in: a Bearer JWT and an X-API-Key key."""
    open_docs(page, f"{server.url}/docs")
    page.locator("button.btn.authorize").click()
    for scheme, kind in (("bearerAuth", "http, Bearer"), ("apiKeyAuth", "apiKey")):
        block = scheme_block(page, scheme)
        expect(block.locator("h4")).to_contain_text(kind)
        expect(block.locator("input")).to_be_visible()
    expect(page.locator(".modal-ux")).to_contain_text("X-API-Key")


@pytest.mark.parametrize(
    ("scheme", "header", "other"),
    [("bearerAuth", "authorization", "x-api-key"), ("apiKeyAuth", "x-api-key", "authorization")],
)
def test_authorize_then_try_it_out_calls_the_api(
    page: Page,
    server: AppServer,
    credentials: dict[str, str],
    network_guard: NetworkGuard,
    scheme: str,
    header: str,
    other: str,
) -> None:
    """A credential typed into Authorize is what "Execute" sends, and the server accepts it (200)."""
    secret = credentials[scheme]
    open_docs(page, f"{server.url}/docs")
    page.locator("button.btn.authorize").click()
    block = scheme_block(page, scheme)
    block.locator("input").fill(secret)  # real input events, which React's controlled inputs need
    block.locator("button[type=submit]").click()
    expect(block).to_contain_text("Authorized")
    page.locator(".modal-ux .btn-done").first.click()

    operation = page.locator("#operations-configure-get_configure")
    operation.locator("button.opblock-summary-control").click()  # expands the operation
    with page.expect_request(lambda r: r.url.split("?")[0] == f"{server.url}/configure") as sent_info:
        operation.locator("button.execute").click()
    status = operation.locator(".live-responses-table .response-col_status").filter(has_text=re.compile(r"^\d{3}"))
    expect(status.first).to_have_text(re.compile("^200"))

    sent: Request = sent_info.value
    headers = sent.all_headers()
    expected = f"Bearer {secret}" if scheme == "bearerAuth" else secret
    assert headers.get(header) == expected, headers
    assert other not in headers, headers
    network_guard.assert_local_only()
