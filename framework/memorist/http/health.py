"""``GET /health``, ``GET /ready`` and ``GET /``: open, cheap, and enough to tell what a node runs.

``/health`` is liveness, ``/ready`` readiness. A worker of ``memorist serve`` answers both
before its engine is built (``ready: false`` and 503, from :mod:`memorist.serve.startup`);
these resources answer once it is, so here the engine is always ready.
"""

from __future__ import annotations

import falcon

from .. import __version__
from ..kernel.runtime import Runtime
from .dashboard import wants_html
from .declaration import operation
from .selfhosted.admin_models import HealthOut, ReadyOut, RootOut


class HealthResource:
    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @operation("Liveness, version and the components in use", auth="open", tags=("service",), response=HealthOut)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {
            "status": "ok",
            "version": __version__,
            "ready": True,
            "components": self._runtime.memory.components.describe(),
        }


class ReadyResource:
    @operation(
        "Readiness: 200 once this worker's engine is built (503 with Retry-After while it starts)",
        auth="open",
        tags=("service",),
        response=ReadyOut,
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"status": "ready"}


class RootResource:
    @operation(
        "Service name, version and where the API explorer is (a browser asking for HTML goes to /dashboard)",
        auth="open",
        tags=("service",),
        response=RootOut,
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.vary = ["Accept"]
        if wants_html(req):
            raise falcon.HTTPFound("/dashboard", headers={"Vary": "Accept"})
        resp.media = {
            "name": "memorist",
            "version": __version__,
            "docs": "/docs",
            "openapi": "/openapi.json",
            "dashboard": "/dashboard",
        }
