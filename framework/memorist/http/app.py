"""The app factory: a kernel (or settings) in, WSGI app out.

The kernel (:mod:`memorist.kernel.core`) assembles the system (the operations
layer, the tenancy, the authentication stores); ``create_app`` only adds the
HTTP parts: the authenticator over the kernel's stores, middleware, error
handlers, both surfaces' routes and the OpenAPI document. It does nothing at import time; only
:mod:`memorist.wsgi` calls it on import, for gunicorn.
"""

from __future__ import annotations

import logging
from typing import Any

import falcon

from ..auth.passwords import dummy_hash
from ..auth.warnings import secret_warnings
from ..config.settings import Settings
from ..kernel.core import Kernel
from ..mcp.http import add_mcp_route
from ..observability import logs as observability_logs
from ..observability import tracing
from ..plugin.manager import Plugins
from . import errors
from .auth import Authenticator, AuthenticatorMiddleware
from .dashboard import add_routes as add_dashboard_routes
from .declaration import LimitsMiddleware
from .docs import DocsAsset, DocsPage
from .health import HealthResource, ReadyResource, RootResource
from .hosts import HostAllowList, OpenServerGuard
from .middleware import RequestIdMiddleware
from .openapi import OpenAPIBuilder, OpenAPIResource
from .platform.routes import add_routes as add_platform_routes
from .request_log import RequestLog, RequestLogMiddleware
from .selfhosted.auth_routes import AuthServices
from .selfhosted.routes import add_routes as add_selfhosted_routes
from .telemetry import TelemetryMiddleware, add_metrics_route

log = logging.getLogger("memorist.http")


def create_app(
    settings: Settings | Kernel, plugins: Plugins | None = None
) -> falcon.App[falcon.Request, falcon.Response]:
    """Build the WSGI app serving both HTTP surfaces from a kernel (or from ``settings``)."""
    base = settings.settings if isinstance(settings, Kernel) else settings
    for warning in secret_warnings(base.auth):  # first: before the model load's own output
        log.warning(warning)
    kernel = settings if isinstance(settings, Kernel) else Kernel.build(settings, plugins)
    settings = kernel.settings
    observability_logs.configure(settings.observability)
    tracing.configure(settings.observability)  # None (and no import) unless an exporter is set
    services = kernel.context
    db = kernel.db

    auth_settings = settings.auth
    dummy_hash()  # made once per worker at boot, so the first unknown-email login costs what the others do
    stores = kernel.auth
    users, api_keys = stores.users, stores.api_keys
    authenticator = Authenticator(auth_settings, stores.tokens, api_keys, users, stores.throttle)
    auth = AuthServices(
        auth_settings, users, stores.tokens, stores.login_limiter, settings.limits, stores.address_limiter
    )
    request_log = RequestLog(db, settings.request_log.retention_days)
    kernel.start_workers()

    middleware: list[Any] = [
        RequestIdMiddleware(),
        TelemetryMiddleware(),
        LimitsMiddleware(settings.limits),
        AuthenticatorMiddleware(authenticator),
    ]
    if auth_settings.disabled:  # an open server: no web page may drive it
        middleware.insert(1, OpenServerGuard(HostAllowList(settings.server.host, settings.server.allowed_hosts)))
    if settings.request_log.enabled:
        middleware.append(RequestLogMiddleware(request_log))
    app = falcon.App(middleware=middleware)
    app.req_options.strip_url_path_trailing_slash = False
    app.req_options.auto_parse_qs_csv = False
    errors.install(app)
    routes = RouteTable(app, OpenAPIBuilder("Memorist"))
    services.add_route = routes.add
    routes.add("/", RootResource())
    routes.add("/health", HealthResource(kernel.runtime))
    routes.add("/ready", ReadyResource())
    add_selfhosted_routes(routes.add, services, auth, api_keys, request_log)
    add_platform_routes(routes.add, services, users)
    add_mcp_route(app, kernel.operations, kernel.tenancy, settings.limits.max_body_bytes)
    app.add_route("/openapi.json", OpenAPIResource(routes.openapi))
    add_metrics_route(app, settings.observability, db, kernel.runtime)
    app.add_route("/docs", DocsPage())
    app.add_route("/docs/static/{name}", DocsAsset())
    add_dashboard_routes(app.add_route)
    kernel.plugins.hook.configure_app(app=app, context=services)
    return app


class RouteTable:
    """Adds a route to the app and to the OpenAPI document at once."""

    def __init__(self, app: falcon.App[falcon.Request, falcon.Response], openapi: OpenAPIBuilder) -> None:
        self._app = app
        self.openapi = openapi

    def add(self, path: str, resource: object) -> None:
        self._app.add_route(path, resource)
        self.openapi.add(path, resource)


__all__ = ["RouteTable", "create_app"]
