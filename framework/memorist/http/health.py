"""``GET /health`` and ``GET /``: open, cheap, and enough to tell what a node runs."""

from __future__ import annotations

import falcon

from .. import __version__
from ..runtime import Runtime
from .dashboard import wants_html
from .operations import operation
from .selfhosted.admin_models import HealthOut, RootOut


class HealthResource:
    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @operation("Liveness, version and the components in use", auth="open", tags=("service",), response=HealthOut)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {
            "status": "ok",
            "version": __version__,
            "components": self._runtime.memory.components.describe(),
        }


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
