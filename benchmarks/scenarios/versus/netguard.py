"""Refuse and record every outbound connection but loopback, for the length of a benchmark run.

Why: mem0 OSS insists on building an LLM client even with ``infer=False``; the
comparison is only fair (and only offline) if that client is never used and
nothing else (telemetry, a model hub) phones home either. Patching
``socket.socket.connect`` catches every Python-level client (requests, httpx,
the OpenAI SDK, posthog): a refused attempt is recorded and raises, so it can
neither slow a timing down silently nor reach the network.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain"}


def _is_loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # a UNIX socket path
        return True
    host = address[0] if isinstance(address, tuple) and address else ""
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class NetGuard:
    """Records every ``connect`` attempt; refuses non-loopback ones and ``forbidden_ports`` on loopback."""

    def __init__(self, forbidden_ports: set[int] | None = None) -> None:
        self.forbidden_ports = forbidden_ports or set()
        self.refused: list[str] = []
        self.loopback: int = 0

    def check(self, address: Any) -> None:
        port = address[1] if isinstance(address, tuple) and len(address) > 1 else None
        if not _is_loopback(address) or port in self.forbidden_ports:
            self.refused.append(repr(address))
            raise ConnectionRefusedError(f"benchmark network guard: connection to {address!r} refused")
        self.loopback += 1


@contextmanager
def guarded(forbidden_ports: set[int] | None = None) -> Iterator[NetGuard]:
    """Inside the block, ``socket.socket.connect``/``connect_ex`` go through a :class:`NetGuard`."""
    guard = NetGuard(forbidden_ports)
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def connect(self: socket.socket, address: Any) -> None:
        guard.check(address)
        original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        guard.check(address)
        return original_connect_ex(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    try:
        yield guard
    finally:
        socket.socket.connect = original_connect  # type: ignore[method-assign]
        socket.socket.connect_ex = original_connect_ex  # type: ignore[method-assign]
