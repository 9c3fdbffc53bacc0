"""``Host`` and ``Origin`` checking while authentication is off: no web page drives an open server.

With ``AUTH_DISABLED=true`` anyone who can reach the server may use it, and a web
page can make a browser reach a server on the visitor's own machine or network:
its site's name is re-pointed (DNS rebinding) to ``127.0.0.1`` or a LAN address,
and the page's requests are then same-origin, ``Host: evil.example`` and all. So
while authentication is off, only requests whose ``Host`` is an IP address (a
rebinding page always sends its own *name*), ``localhost`` or a ``*.localhost``
name (browsers resolve those to loopback themselves), the bound ``server.host``
or a name in ``server.allowed_hosts`` are served; others answer 403 naming the
setting. ``/health`` stays open for load-balancer probes (it tells nothing).

A page on another site can also send a "simple" cross-origin ``POST`` (no body,
or ``text/plain``) without the browser asking first; such a ``POST /reset``
needs no body at all. Browsers name the page's origin in ``Origin`` on every
such request, so a ``POST``/``PUT``/``PATCH``/``DELETE`` whose ``Origin`` is not
this server's own (``scheme://`` + ``Host``) answers 403; clients that are not
browsers send no ``Origin`` and are not affected. (JSON bodies must also be
declared ``application/json`` on every server: :func:`.parsing.require_json_media_type`.)

With authentication on, neither page has credentials to send (they are headers,
never cookies), so any ``Host`` and ``Origin`` are served.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

import falcon

from ..errors import MemoristError

#: Paths served whatever the ``Host`` (probes that reveal nothing).
OPEN_PATHS = frozenset({"/health", "/ready"})
#: Methods a cross-origin page can make a browser send that change something.
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class HostNotAllowed(MemoristError):
    status = 403


def host_name(header: str) -> str:
    """The name or address of a ``Host`` header, without its port or IPv6 brackets, lowercased."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    name, _, port = value.rpartition(":")
    if name and port.isdigit():
        value = name
    return value.rstrip(".")


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostAllowList:
    """Which ``Host`` names an open (auth-disabled) server answers."""

    def __init__(self, bound_host: str, allowed: Iterable[str]) -> None:
        names = {host_name(bound_host)} | {host_name(a) for a in allowed if a.strip()}
        self._exact = {n for n in names if not n.startswith("*.")} | {"localhost"}
        self._suffixes = tuple(n[1:] for n in names if n.startswith("*.")) + (".localhost",)

    def allows(self, header: str) -> bool:
        name = host_name(header)
        return is_ip(name) or name in self._exact or name.endswith(self._suffixes)


class OpenServerGuard:
    """With ``AUTH_DISABLED=true``: 403 for an unlisted ``Host`` name and for another site's ``Origin``."""

    def __init__(self, allow: HostAllowList) -> None:
        self._allow = allow

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        if req.path in OPEN_PATHS:
            return
        header = req.get_header("Host") or ""
        if not self._allow.allows(header):
            shown = host_name(header)[:100] or "(none)"
            raise HostNotAllowed(
                f"Host '{shown}' is not served while AUTH_DISABLED=true (a web page could reach an open "
                "server through DNS rebinding): use an IP address or localhost, or list the name in "
                "server.allowed_hosts (MEMORIST_SERVER__ALLOWED_HOSTS='[\"name\"]')"
            )
        origin = req.get_header("Origin")
        if origin is not None and req.method in UNSAFE_METHODS and not same_origin(origin, header):
            raise HostNotAllowed(
                f"a {req.method} from the web page at '{origin[:100]}' is refused while AUTH_DISABLED=true: "
                "only this server's own pages (and clients that send no Origin) may change anything"
            )


def same_origin(origin: str, host_header: str) -> bool:
    """Whether an ``Origin`` header names the server at ``host_header`` (``null`` never does)."""
    parts = urlsplit(origin.strip().lower())
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc == host_header.strip().lower()
