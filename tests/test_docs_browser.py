"""``/docs`` in a real headless Chromium with the network cut off.

The issue asks that the API explorer load with no network, list the routes, and accept a Bearer
token or an API key through its Authorize control. Only a browser running Swagger UI's JavaScript
can show that: the HTML page itself is an empty ``<div>`` until the bundle has fetched
``/openapi.json`` and rendered it (and it renders an error box instead of the operations when it
cannot read the document).

Chromium is driven over its DevTools protocol on ``--remote-debugging-pipe`` (two file
descriptors, NUL-separated JSON) with only the standard library: no websocket client, no
Playwright and no browser download, so the test needs nothing but Debian's ``chromium``
package. Every host but 127.0.0.1 resolves to nothing, and every request the page makes is
recorded and checked to have gone to this server.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import secrets
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from memorist.testing.inprocess import AppServer

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_HINT = "install Debian's Chromium: `apt-get update && apt-get install -y chromium` (as root)"

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
RENDER_TIMEOUT = 30.0

# Swagger UI has rendered once it shows operations, or has given up once it shows its error box.
PROBLEM_SELECTOR = ".version-pragma, .errors-wrapper, .loading-container h4"
RENDERED_JS = f"document.querySelectorAll('.opblock').length > 0 || !!document.querySelector('{PROBLEM_SELECTOR}')"
OPERATIONS_JS = """
[...document.querySelectorAll('.opblock')].map(block => [
  (block.querySelector('.opblock-summary-method') || {}).textContent || '',
  (block.querySelector('.opblock-summary-path') || {}).dataset?.path || '',
])
"""
# Each security scheme of the Authorize dialog: its <h4> reads "<name> (http, Bearer)" or "<name> (apiKey)".
SCHEMES_JS = """
[...document.querySelectorAll('.modal-ux h4')].filter(h => h.querySelector('code')).map(h => [
  h.querySelector('code').textContent.trim(),
  h.textContent.replace(/\\s+/g, ' ').trim(),
  !!h.parentElement.querySelector('input'),
])
"""


def require_chromium() -> None:
    """Fail, never skip, without the browser: a skipped check would let a broken /docs land."""
    if not (CHROMIUM.exists() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(f"{CHROMIUM} not found: the /docs tests drive a real browser; {INSTALL_HINT}", pytrace=False)


class DevTools:
    """A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``.

    Chromium reads commands from its fd 3 and writes replies and events to its fd 4, each message
    a JSON object ended by a NUL byte. That is all a test needs, with no dependency.
    """

    def __init__(self, process: subprocess.Popen[bytes], to_browser: int, from_browser: int) -> None:
        self.process = process
        self._out = to_browser
        self._in = from_browser
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._in], [], [], remaining)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise ConnectionError(f"Chromium closed its DevTools pipe (exit code {self.process.poll()})")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        """Send one command and wait for its reply, keeping every event that arrives meanwhile."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._out, data) :]
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method} failed: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def drain(self) -> None:
        """Collect the events already written (a cheap round trip flushes them)."""
        self.send("Browser.getVersion")


class Page:
    """One tab in its own browser context, so that no test sees another's stored authorization."""

    def __init__(self, devtools: DevTools) -> None:
        self.devtools = devtools
        self.context = devtools.send("Target.createBrowserContext")["browserContextId"]
        target = devtools.send("Target.createTarget", {"url": "about:blank", "browserContextId": self.context})
        attached = devtools.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        self.session: str = attached["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable")

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.devtools.send(method, params, session=self.session)

    def close(self) -> None:
        self.devtools.send("Target.disposeBrowserContext", {"browserContextId": self.context})

    def events(self, method: str) -> list[dict[str, Any]]:
        self.devtools.drain()
        return [
            e["params"]
            for e in self.devtools.events
            if e.get("sessionId") == self.session and e.get("method") == method
        ]

    def evaluate(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise RuntimeError(f"page script failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def wait_for(self, expression: str, what: str, timeout: float = RENDER_TIMEOUT) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        text = self.evaluate("document.body ? document.body.innerText.slice(0, 2000) : ''")
        raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}; the page shows:\n{text}")

    def open_docs(self, url: str) -> None:
        """Load the explorer, wait for Swagger UI to render, and fail with its own words if it could not."""
        navigation = self.send("Page.navigate", {"url": url})
        assert not navigation.get("errorText"), f"Chromium could not load {url}: {navigation['errorText']}"
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'", "the page load")
        self.wait_for(RENDERED_JS, "Swagger UI to render")
        problem = self.evaluate(f"(e => e ? e.innerText : '')(document.querySelector({json.dumps(PROBLEM_SELECTOR)}))")
        assert not problem, f"Swagger UI could not render /openapi.json:\n{problem}"

    def click(self, selector: str) -> None:
        found = self.evaluate(f"(e => e ? (e.click(), true) : false)(document.querySelector({json.dumps(selector)}))")
        assert found, f"nothing on the page matches {selector!r}"

    def type_into(self, selector: str, text: str) -> None:
        """Type as a user does (real input events), which React's controlled inputs need."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text})

    def screenshot(self, path: Path) -> None:
        size = self.send("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
        path.write_bytes(base64.b64decode(shot["data"]))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The whole app with the hashing test embedder, on a real loopback socket (the browser needs one)."""
    tmp = tmp_path_factory.mktemp("docs-server")
    with AppServer(tmp / "data", env={"JWT_SECRET": secrets.token_urlsafe(30)[:40]}) as app:
        yield app.listen()


@pytest.fixture(scope="module")
def credentials(server: str) -> dict[str, str]:
    """A first admin's access token and an API key of theirs, made through the API itself."""
    resp = requests.post(
        f"{server}/auth/register",
        timeout=10,
        json={"name": "Docs Tester", "email": "docs@example.com", "password": "correct horse 42"},
    )
    assert resp.status_code == 201, resp.text
    token = resp.json()["access_token"]
    resp = requests.post(
        f"{server}/api-keys", json={"label": "docs-browser"}, timeout=10, headers={"Authorization": f"Bearer {token}"}
    )
    assert resp.status_code == 201, resp.text
    return {"bearerAuth": token, "apiKeyAuth": resp.json()["key"]}


@pytest.fixture(scope="module")
def browser() -> Iterator[DevTools]:
    """Headless Chromium that can reach 127.0.0.1 only. A missing browser fails: CI installs it."""
    require_chromium()
    profile = tempfile.mkdtemp(prefix="memorist-chromium-")
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def wire_pipe() -> None:  # in the child: the DevTools pipe must be fds 3 (commands) and 4 (replies)
        read_end = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        write_end = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.dup2(read_end, 3)
        os.dup2(write_end, 4)

    args = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # no host but this one
        "--window-size=1280,1600",
        f"--user-data-dir={profile}",
        "--remote-debugging-pipe",
        "about:blank",
    ]
    process = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=wire_pipe,
        close_fds=False,
    )
    os.close(to_browser_r)
    os.close(from_browser_w)
    devtools = DevTools(process, to_browser_w, from_browser_r)
    try:
        devtools.send("Browser.getVersion", timeout=60)
        yield devtools
    finally:
        try:
            devtools.send("Browser.close", timeout=10)
        except (OSError, TimeoutError, RuntimeError):
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(to_browser_w)
        os.close(from_browser_r)
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: DevTools, server: str) -> Iterator[Page]:
    tab = Page(browser)
    try:
        yield tab
    finally:
        tab.close()


def assert_local_only(page: Page, server: str) -> None:
    """Every request the page made went to this server: the explorer needs no network at all."""
    urls = [e["request"]["url"] for e in page.events("Network.requestWillBeSent")]
    assert urls, "the page made no request at all"
    elsewhere = [u for u in urls if not u.startswith((f"{server}/", "data:", "blob:", "about:"))]
    assert not elsewhere, f"/docs fetched from outside the server: {elsewhere}"
    failed = [e.get("errorText") for e in page.events("Network.loadingFailed") if not e.get("canceled")]
    assert not failed, f"requests of /docs failed: {failed}"


def test_chromium_is_installed() -> None:
    """Reported as a plain failure (the fixture-based tests below show as setup errors)."""
    require_chromium()


def test_docs_renders_every_route_with_no_network(page: Page, server: str, tmp_path: Path) -> None:
    """Swagger UI loads from the server's own assets, reads /openapi.json and lists each operation."""
    try:
        page.open_docs(f"{server}/docs")
    finally:  # the picture helps most when the page did not render
        page.screenshot(tmp_path / "docs.png")
    assert (tmp_path / "docs.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shown = {(method.strip().upper(), path) for method, path in page.evaluate(OPERATIONS_JS)}
    document = requests.get(f"{server}/openapi.json", timeout=10).json()
    documented = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    assert EXPECTED_OPERATIONS <= documented
    assert shown == documented, f"missing: {sorted(documented - shown)}; extra: {sorted(shown - documented)}"
    assert page.evaluate("!!document.querySelector('button.btn.authorize')"), "no Authorize button"

    exceptions = [e["exceptionDetails"].get("text") for e in page.events("Runtime.exceptionThrown")]
    assert not exceptions, f"the page threw: {exceptions}"
    assert_local_only(page, server)


def test_authorize_dialog_offers_bearer_token_and_api_key(page: Page, server: str) -> None:
    """The Authorize dialog has an input for each way in: a Bearer JWT and an X-API-Key key."""
    page.open_docs(f"{server}/docs")
    page.click("button.btn.authorize")
    schemes = {
        name: (title, has_input)
        for name, title, has_input in page.wait_for(f"({SCHEMES_JS}).length && {SCHEMES_JS}", "the Authorize dialog")
    }
    assert "bearerAuth" in schemes and "apiKeyAuth" in schemes, schemes
    assert "http, Bearer" in schemes["bearerAuth"][0] and schemes["bearerAuth"][1], schemes
    assert "apiKey" in schemes["apiKeyAuth"][0] and schemes["apiKeyAuth"][1], schemes
    dialog = page.evaluate("document.querySelector('.modal-ux').innerText")
    assert "X-API-Key" in dialog, dialog


@pytest.mark.parametrize(
    ("scheme", "header", "other"),
    [("bearerAuth", "authorization", "x-api-key"), ("apiKeyAuth", "x-api-key", "authorization")],
)
def test_authorize_then_try_it_out_calls_the_api(
    page: Page, server: str, credentials: dict[str, str], scheme: str, header: str, other: str
) -> None:
    """A credential typed into Authorize is what "Execute" sends, and the server accepts it (200)."""
    secret = credentials[scheme]
    page.open_docs(f"{server}/docs")
    page.click("button.btn.authorize")
    page.wait_for(f"({SCHEMES_JS}).length", "the Authorize dialog")
    index = page.evaluate(f"({SCHEMES_JS}).findIndex(s => s[0] === {json.dumps(scheme)})")
    assert index >= 0, f"no {scheme} in the Authorize dialog"
    page.evaluate(f"""(() => {{
        const h = [...document.querySelectorAll('.modal-ux h4')].filter(h => h.querySelector('code'))[{index}];
        h.parentElement.querySelector('input').setAttribute('data-test-credential', '');
    }})()""")
    page.type_into("input[data-test-credential]", secret)
    # Swagger UI 4 has one form for all schemes, Swagger UI 5 one per scheme: submit the input's own.
    page.click("form:has(input[data-test-credential]) button[type=submit]")
    page.wait_for(
        f"""[...document.querySelectorAll('.modal-ux h4')].some(h =>
        h.querySelector('code')?.textContent.trim() === {json.dumps(scheme)}
        && /Authorized/.test(h.parentElement.innerText))""",
        f"{scheme} to be authorized",
    )
    page.click(".modal-ux .btn-done")

    block = "#operations-configure-get_configure"
    page.click(f"{block} button.opblock-summary-control")  # expands the operation
    page.wait_for(f"!!document.querySelector('{block} button.execute')", "the Execute button")
    page.click(f"{block} button.execute")
    status = page.wait_for(
        f"[...document.querySelectorAll('{block} .live-responses-table .response-col_status')]"
        ".map(e => e.textContent.trim()).find(t => /^[0-9][0-9][0-9]/.test(t))",
        "the response of GET /configure",
    )
    assert status.startswith("200"), f"GET /configure through the explorer answered {status}"

    sent = [
        e["request"]
        for e in page.events("Network.requestWillBeSent")
        if e["request"]["url"].split("?")[0] == f"{server}/configure"
    ]
    assert len(sent) == 1, sent
    headers = {k.lower(): v for k, v in sent[0]["headers"].items()}
    expected = f"Bearer {secret}" if scheme == "bearerAuth" else secret
    assert headers.get(header) == expected, headers
    assert other not in headers, headers
    assert_local_only(page, server)
