"""The app factory: a kernel (or settings) in, WSGI app out.

The kernel (:mod:`memorist.kernel.core`) assembles the system: the operations
layer, the tenancy, the authentication stores and what the serving doors share over
them (:class:`memorist.kernel.serving.Serving`: the authenticator, the account
services, the request log, the metrics' state). ``create_app`` builds none of it;
it mounts middleware, error handlers, both surfaces' routes, ``/mcp`` and the
OpenAPI document over the kernel's parts. It does nothing at import time; only
:mod:`memorist.wsgi` calls it on import, for gunicorn.
"""

from __future__ import annotations

import logging
from typing import Any

import falcon

from ..config.settings import Settings
from ..kernel.core import Kernel
from ..mcp.http import add_mcp_route
from ..plugin.manager import Plugins
from . import errors
from .auth import AuthenticatorMiddleware
from .dashboard import add_routes as add_dashboard_routes
from .declaration import LimitsMiddleware
from .docs import DocsAsset, DocsPage
from .health import HealthResource, ReadyResource, RootResource
from .hosts import HostAllowList, OpenServerGuard
from .middleware import RequestIdMiddleware
from .openapi import OpenAPIBuilder, OpenAPIResource
from .platform.routes import add_routes as add_platform_routes
from .request_log import RequestLogMiddleware
from .selfhosted.routes import add_routes as add_selfhosted_routes
from .telemetry import MetricsResource, TelemetryMiddleware

log = logging.getLogger("memorist.http")


def create_app(
    settings: Settings | Kernel, plugins: Plugins | None = None
) -> falcon.App[falcon.Request, falcon.Response]:
    """Mount both HTTP surfaces over a kernel (built from ``settings`` when given those)."""
    kernel = settings if isinstance(settings, Kernel) else Kernel.build(settings, plugins)
    kernel.start_serving()
    settings = kernel.settings
    serving = kernel.serving

    app = falcon.App(middleware=middleware(kernel))
    app.req_options.strip_url_path_trailing_slash = False
    app.req_options.auto_parse_qs_csv = False
    errors.install(app)
    routes = RouteTable(app, OpenAPIBuilder("Memorist"))
    routes.add("/", RootResource())
    routes.add("/health", HealthResource(kernel.runtime))
    routes.add("/ready", ReadyResource())
    add_selfhosted_routes(routes.add, kernel)
    add_platform_routes(routes.add, kernel)
    add_mcp_route(app, kernel.operations, kernel.tenancy, settings.limits.max_body_bytes)
    app.add_route("/openapi.json", OpenAPIResource(routes.openapi))
    if serving.metrics_state is not None:
        app.add_route("/metrics", MetricsResource(settings.observability, serving.metrics_state))
    app.add_route("/docs", DocsPage())
    app.add_route("/docs/static/{name}", DocsAsset())
    add_dashboard_routes(app.add_route)
    kernel.plugins.hook.configure_app(app=app, context=kernel.context.with_routes(routes.add))
    return app


def middleware(kernel: Kernel) -> list[Any]:
    """Every request's middleware, in order, over the kernel's serving parts."""
    settings = kernel.settings
    found: list[Any] = [
        RequestIdMiddleware(),
        TelemetryMiddleware(),
        LimitsMiddleware(settings.limits),
        AuthenticatorMiddleware(kernel.serving.authenticator),
    ]
    if settings.auth.disabled:  # an open server: no web page may drive it
        found.insert(1, OpenServerGuard(HostAllowList(settings.server.host, settings.server.allowed_hosts)))
    if settings.request_log.enabled:
        found.append(RequestLogMiddleware(kernel.serving.request_log))
    return found


class RouteTable:
    """Adds a route to the app and to the OpenAPI document at once."""

    def __init__(self, app: falcon.App[falcon.Request, falcon.Response], openapi: OpenAPIBuilder) -> None:
        self._app = app
        self.openapi = openapi

    def add(self, path: str, resource: object) -> None:
        self._app.add_route(path, resource)
        self.openapi.add(path, resource)


__all__ = ["RouteTable", "create_app", "middleware"]
