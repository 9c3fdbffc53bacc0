"""Playwright fixtures for tests that drive a real headless Chromium (Debian's ``chromium``).

Import the fixtures into a test module (``from tests.browser import browser_type_launch_args, context``)
to override pytest-playwright's defaults: the browser is ``/usr/bin/chromium`` through
``executable_path`` (no browser download, ever), and every context aborts any request to a host
other than 127.0.0.1 and records each URL, so a test can assert that nothing left the machine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, BrowserType, Page, Playwright, Route, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
INSTALL_HINT = "install Debian's Chromium: `apt-get update && apt-get install -y chromium` (as root)"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # belt and braces beside the route guard
]
AXE = Path(__file__).resolve().parents[1] / "assets" / "axe-core" / "axe.min.js"
LOCAL_SCHEMES = ("data", "blob", "about")


def require_chromium() -> None:
    """Fail, never skip, without the browser: a skipped check would let a broken page land."""
    if not (CHROMIUM.exists() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(f"{CHROMIUM} not found: these tests drive a real browser; {INSTALL_HINT}", pytrace=False)


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    require_chromium()
    return {"executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS, "headless": True}


@dataclass
class NetworkGuard:
    """Every URL the pages of a context asked for, and those it refused (any host but 127.0.0.1)."""

    requested: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def route(self, route: Route) -> None:
        url = route.request.url
        self.requested.append(url)
        parts = urlsplit(url)
        if parts.scheme in LOCAL_SCHEMES or parts.hostname == "127.0.0.1":
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort("addressunreachable")

    def watch(self, page: Page) -> None:
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.page_errors.append(str(e)))

    def assert_local_only(self) -> None:
        """No request left the machine, and none was even attempted."""
        assert self.requested, "the page made no request at all"
        elsewhere = [u for u in self.requested if urlsplit(u).hostname not in (None, "127.0.0.1")]
        assert not elsewhere and not self.blocked, f"requests to other hosts: {elsewhere or self.blocked}"

    def assert_no_script_errors(self, allowed: tuple[str, ...] = ()) -> None:
        """No uncaught exception, and no console error except expected failed fetches (e.g. a 401 shown to the user)."""
        assert not self.page_errors, f"the page threw: {self.page_errors}"
        errors = [e for e in self.console_errors if not any(a in e for a in allowed)]
        csp = [e for e in errors if "Content Security Policy" in e or "Refused to" in e]
        assert not csp, f"the page broke its own Content-Security-Policy: {csp}"


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    """Playwright for one test module, stopped at its end (pytest-playwright keeps it for the session).

    A running sync Playwright keeps an asyncio loop running in this thread; a later test file in
    the same xdist worker that calls ``asyncio.run`` (the MCP and async-API tests) would fail.
    """
    with sync_playwright() as running:
        yield running


@pytest.fixture(scope="module")
def browser_context_args() -> dict[str, Any]:
    """No device emulation, base URL or video (pytest-playwright's session-scoped one needs Playwright)."""
    return {}


@pytest.fixture(scope="module")
def browser_type(playwright: Playwright, browser_name: str) -> BrowserType:
    found: BrowserType = getattr(playwright, browser_name)
    return found


@pytest.fixture(scope="module")
def browser(browser_type: BrowserType, browser_type_launch_args: dict[str, Any]) -> Iterator[Browser]:
    launched = browser_type.launch(**browser_type_launch_args)
    yield launched
    launched.close()


@pytest.fixture
def network_guard() -> NetworkGuard:
    return NetworkGuard()


@pytest.fixture
def context(new_context: Any, network_guard: NetworkGuard) -> Iterator[BrowserContext]:
    """A fresh context (own sessionStorage) whose every request goes through the guard."""
    ctx: BrowserContext = new_context(viewport={"width": 1280, "height": 900})
    ctx.route("**/*", network_guard.route)
    ctx.on("page", network_guard.watch)
    yield ctx
    network_guard.assert_local_only()


def axe_violations(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """Run axe-core (shipped in tests/assets) on the page; the serious and critical violations, readable.

    The source is evaluated through the DevTools protocol, so the page's strict CSP stays on.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text() + "\n;undefined")
    found = page.evaluate(
        """async () => {
            const result = await axe.run(document, {resultTypes: ['violations']});
            return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
              nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
        }"""
    )
    return [f"{v['impact']}: {v['id']} ({v['help']}) at {v['nodes']}" for v in found if v["impact"] in impacts]
