"""The outbound guard: where server-side requests (webhooks, provider base URLs) may go.

A URL a tenant or an admin supplies at runtime must not turn the server into a
proxy into its own network: loopback (``127.0.0.1``, ``[::1]``, ``localhost``,
``0x7f000001``), private, link-local (the cloud metadata service at
``169.254.169.254``), shared, multicast, reserved and unspecified addresses are
refused unless the operator allow-lists them (``security.outbound_allow``:
hosts, addresses or CIDR ranges).

The check is on the *resolved* addresses, not the spelling (``0x7f000001`` and
``2130706433`` both resolve to 127.0.0.1), and the connection then goes to the
address that was checked (resolve-then-connect): a DNS answer that changes
between the check and the connection (rebinding) cannot swap in an internal
address. :func:`pinned_connection` does this for ``http.client`` (webhooks),
:class:`GuardedTransport` for ``httpx`` (the OpenAI client).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .errors import MemoristError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT: not "private" to Python, not public either


class OutboundRefused(MemoristError):
    """A URL whose host is, or resolves to, an address outbound requests may not reach."""

    status = 400


def is_internal(address: IPAddress) -> bool:
    """Whether ``address`` is anything but a public unicast address."""
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is not None:
            return is_internal(mapped)
    return (
        address.is_loopback
        or address.is_private
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or (isinstance(address, ipaddress.IPv4Address) and address in _SHARED)
        or not address.is_global
    )


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (``address``) and what to call the host (``host``)."""

    scheme: str
    host: str
    port: int
    address: str
    path: str


class OutboundGuard:
    def __init__(self, allow: Iterable[str] = (), resolver: Any = None) -> None:
        self._networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        self._hosts: set[str] = set()
        for item in allow:
            item = item.strip().lower().strip("[]")
            if not item:
                continue
            try:
                self._networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                self._hosts.add(item.rstrip("."))
        self._resolve = resolver or _getaddrinfo

    def allows(self, host: str, address: IPAddress) -> bool:
        if host.lower().rstrip(".") in self._hosts:
            return True
        if any(address in network for network in self._networks):
            return True
        return not is_internal(address)

    def check(self, url: str, field: str = "url") -> Target:
        """The target of ``url`` if every address its host resolves to may be reached, else 400 naming ``field``."""
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError:
            raise OutboundRefused(f"{field}: not a valid URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise OutboundRefused(f"{field}: an absolute http:// or https:// URL is required")
        host = parts.hostname
        port = port or (443 if parts.scheme == "https" else 80)
        addresses = self.resolve(host, port, field)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return Target(parts.scheme, host, port, addresses[0], path)

    def resolve(self, host: str, port: int, field: str = "url") -> list[str]:
        """Every address of ``host``, checked; refuses if any one is internal (no partial trust)."""
        try:
            found = self._resolve(host, port)
        except OSError:
            raise OutboundRefused(f"{field}: the host '{host}' does not resolve") from None
        if not found:
            raise OutboundRefused(f"{field}: the host '{host}' does not resolve")
        for text in found:
            address = ipaddress.ip_address(text.split("%", 1)[0])
            if not self.allows(host, address):
                raise OutboundRefused(
                    f"{field}: '{host}' resolves to {address}, an internal address outbound requests may not "
                    "reach (an operator can allow it with security.outbound_allow)"
                )
        return found


def _getaddrinfo(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for info in infos:
        text = str(info[4][0])
        if text not in seen:
            seen.append(text)
    return seen


# -- http.client, pinned -------------------------------------------------------------------


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        # The certificate is checked against the host name, while the socket goes to the checked address.
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def pinned_connection(target: Target, timeout: float) -> http.client.HTTPConnection:
    """An ``http.client`` connection to ``target.address`` sending ``Host: target.host``."""
    if target.scheme == "https":
        return _PinnedHTTPSConnection(target.host, target.port, target.address, timeout)
    return _PinnedHTTPConnection(target.host, target.port, target.address, timeout)


# -- httpx, pinned ---------------------------------------------------------------------------


def guarded_transport(guard: OutboundGuard, **kwargs: Any) -> Any:
    """An ``httpx.HTTPTransport`` that checks and pins every request's host (see :class:`GuardedTransport`)."""
    import httpx

    class GuardedTransport(httpx.HTTPTransport):
        """Resolves and checks the host of each request, then connects to that very address.

        The URL's host is replaced by the checked address; the ``Host`` header
        (set when the request was built) and the TLS server name
        (``sni_hostname``) keep the real host, so certificates still verify.
        """

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            host = request.url.host
            port = request.url.port or (443 if request.url.scheme == "https" else 80)
            address = guard.resolve(host, port, "base_url")[0]
            if address != host:
                request.extensions = {**request.extensions, "sni_hostname": host}
                request.url = request.url.copy_with(host=address)
            return super().handle_request(request)

    return GuardedTransport(**kwargs)
