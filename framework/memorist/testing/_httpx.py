"""httpx transports onto an in-process :class:`~memorist.testing.inprocess.AppServer`.

Why a module of its own: httpx is only needed by tests that drive an
httpx-based client (the platform client), so nothing else imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import falcon.testing
import httpx


class AppServer(Protocol):
    """What the transports need of :class:`~memorist.testing.inprocess.AppServer` (a Protocol,
    so this module does not import the one that imports it: no import cycle)."""

    def simulate(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None
    ) -> falcon.testing.Result: ...


def _answer(server: AppServer, request: httpx.Request, body: bytes) -> httpx.Response:
    result = server.simulate(request.method, str(request.url), dict(request.headers), body)
    return httpx.Response(
        status_code=result.status_code,
        headers=list(result.headers.items()),
        content=result.content,
        request=request,
    )


class SyncTransport(httpx.BaseTransport):
    def __init__(self, server: AppServer) -> None:
        self._server = server

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return _answer(self._server, request, request.read())


class AsyncTransport(httpx.AsyncBaseTransport):
    """Answers on the event loop's thread: the app is synchronous, and a test has one client at a time."""

    def __init__(self, server: AppServer) -> None:
        self._server = server

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return _answer(self._server, request, await request.aread())
