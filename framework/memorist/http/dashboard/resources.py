"""Serving the dashboard shell and its assets, with a strict Content-Security-Policy.

The policy allows scripts, styles, images and fetches from this origin only, so the page
works (and can only work) with no network beyond the server itself; it also keeps any
memory text rendered into the page from running as script.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Callable
from pathlib import Path

import falcon

STATIC = Path(__file__).resolve().parent / "static"
#: The assets the server hands out: a fixed set read at import (no path from the request reaches the disk).
ASSETS = frozenset(p.name for p in STATIC.iterdir() if p.is_file() and p.suffix in {".js", ".css", ".svg"})
CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
mimetypes.add_type("text/javascript", ".js")


def wants_html(req: falcon.Request) -> bool:
    """A browser navigating (``Accept: text/html...``); API clients send ``*/*`` or JSON."""
    accept = (req.get_header("Accept") or "").lower()
    return "text/html" in accept


class DashboardPage:
    """``GET /dashboard``: the shell; the screens are routed in the page (``#/memories`` ...)."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.content_type = falcon.MEDIA_HTML
        resp.cache_control = ["no-cache"]
        resp.set_headers(SECURITY_HEADERS)
        resp.data = (STATIC / "index.html").read_bytes()


class DashboardRedirect:
    """``GET /dashboard/`` and friends land on the one page."""

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        raise falcon.HTTPFound("/dashboard")


class DashboardAsset:
    """One static file, revalidated on every load by its ETag (a content hash): after a server
    upgrade no browser keeps an old module beside a new one, and an unchanged file costs a 304."""

    def on_get(self, req: falcon.Request, resp: falcon.Response, name: str) -> None:
        if name not in ASSETS:
            raise falcon.HTTPNotFound(description=f"no dashboard asset '{name}'")
        data = (STATIC / name).read_bytes()
        etag = falcon.ETag(hashlib.sha256(data).hexdigest()[:32])
        resp.cache_control = ["no-cache"]
        resp.etag = etag
        resp.set_headers(SECURITY_HEADERS)
        if req.if_none_match and any(tag == etag or tag == "*" for tag in req.if_none_match):
            resp.status = falcon.HTTP_304
            resp.content_type = None  # a 304 carries no body, so no Content-Type either
            return
        resp.content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        resp.data = data


def add_routes(add: Callable[[str, object], None]) -> None:
    """Mount the dashboard (not part of the API document: pass ``app.add_route``)."""
    add("/dashboard", DashboardPage())
    add("/dashboard/", DashboardRedirect())
    add("/dashboard/static/{name}", DashboardAsset())
