"""What a worker answers while its kernel is built: liveness, readiness and a polite 503.

A worker of ``memorist serve`` serves :class:`memorist.serve.startup.StartingApp` from
its first moment; until its kernel and full app exist, this small app answers through
the same request middleware as the full one (:class:`~.middleware.RequestIdMiddleware`,
:class:`~.telemetry.TelemetryMiddleware`), so an orchestrator's probe of a starting
worker gets its ``X-Request-ID`` back and is counted in ``/metrics`` (route ``/health``)
like every later probe, instead of leaving no trace.
"""

from __future__ import annotations

from typing import Any

import falcon

from .middleware import RequestIdMiddleware
from .telemetry import TelemetryMiddleware

STARTING_DETAIL = "the server is starting: its engine is being built; retry shortly"
#: Seconds a client is asked to wait before asking again (``Retry-After``).
RETRY_SECONDS = "1"


class StartingHealth:
    """``GET /health`` while starting: alive (200), not ready."""

    def __init__(self, version: str) -> None:
        self._body = {"status": "ok", "version": version, "ready": False, "components": {}}

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = self._body
        resp.cache_control = ["no-store"]

    on_head = on_get


def not_yet(req: falcon.Request, resp: falcon.Response, **_: object) -> None:
    """``/ready`` and every request that waited its bound: 503 with ``Retry-After``."""
    resp.status = falcon.HTTP_503
    resp.media = {"detail": STARTING_DETAIL}
    resp.cache_control = ["no-store"]
    resp.set_header("Retry-After", RETRY_SECONDS)


class StartingReady:
    """``GET /ready`` while starting: not ready (a load balancer waits for 200)."""

    on_get = on_head = staticmethod(not_yet)


def starting_app(version: str) -> falcon.App[falcon.Request, falcon.Response]:
    """The answers of a starting worker (see the module docstring)."""
    middleware: list[Any] = [RequestIdMiddleware(), TelemetryMiddleware()]
    app = falcon.App(middleware=middleware)
    app.add_route("/health", StartingHealth(version))
    app.add_route("/ready", StartingReady())
    app.add_sink(not_yet)
    return app
