"""The app factory: settings in, WSGI app out.

``create_app`` loads plugins, opens the database, builds the engine and wires
both HTTP surfaces. It does nothing at import time; only :mod:`memorist.wsgi`
calls it on import, for gunicorn.
"""

from __future__ import annotations

import logging
from typing import Any

import falcon

from ..auth.api_keys import ApiKeyStore
from ..auth.rate_limit import RateLimiter
from ..auth.tokens import TokenService
from ..auth.users import UserStore
from ..db import Database
from ..events import EventStore
from ..plugins import Plugins, load_plugins
from ..registry import ProviderRegistry
from ..settings import Settings
from ..worker import AddWorker
from . import errors
from .auth import Authenticator, AuthenticatorMiddleware
from .dashboard import add_routes as add_dashboard_routes
from .docs import DocsAsset, DocsPage
from .health import HealthResource, RootResource
from .middleware import RequestIdMiddleware
from .openapi import OpenAPIBuilder, OpenAPIResource
from .platform.routes import add_routes as add_platform_routes
from .request_log import RequestLog, RequestLogMiddleware
from .runtime import Runtime
from .selfhosted.auth_routes import AuthServices
from .selfhosted.routes import add_routes as add_selfhosted_routes
from .selfhosted.users import DisabledUsers
from .services import AppServices

log = logging.getLogger("memorist.http")


def create_app(settings: Settings, plugins: Plugins | None = None) -> falcon.App:
    """Build the WSGI app serving both HTTP surfaces from ``settings``."""
    plugins = plugins or load_plugins()
    registry = ProviderRegistry.from_plugins(plugins)
    db = Database(settings.database_url)
    db.upgrade()
    plugins.hook.database_ready(db=db)
    runtime = Runtime(settings, plugins, db)
    services = AppServices(settings=settings, plugins=plugins, registry=registry, db=db, runtime=runtime)

    auth_settings = settings.auth
    users = UserStore(db)
    api_keys = ApiKeyStore(db)
    secret = auth_settings.jwt_secret.get_secret_value() if auth_settings.jwt_secret else None
    tokens = TokenService(db, secret, auth_settings.access_token_minutes, auth_settings.refresh_token_days)
    limiter = RateLimiter(db, auth_settings.login_attempts, auth_settings.login_window_seconds)
    disabled = DisabledUsers(db)
    authenticator = Authenticator(auth_settings, tokens, api_keys, users, disabled.is_disabled)
    for warning in authenticator.startup_warnings():
        log.warning(warning)
    auth = AuthServices(auth_settings, users, tokens, limiter, settings.limits, disabled.is_disabled)
    request_log = RequestLog(db, settings.request_log.retention_days)
    events = event_store(db, settings)
    services.events = events
    if settings.queue.workers:
        worker = AddWorker(
            lambda: runtime.memory, events, threads=settings.queue.workers, poll_seconds=settings.queue.poll_seconds
        )
        worker.start()
        services.worker = worker

    middleware: list[Any] = [RequestIdMiddleware(), AuthenticatorMiddleware(authenticator)]
    if settings.request_log.enabled:
        middleware.append(RequestLogMiddleware(request_log))
    app = falcon.App(middleware=middleware)
    app.req_options.strip_url_path_trailing_slash = False
    app.req_options.auto_parse_qs_csv = False
    errors.install(app)
    routes = RouteTable(app, OpenAPIBuilder("Memorist"))
    services.add_route = routes.add
    routes.add("/", RootResource())
    routes.add("/health", HealthResource(runtime))
    add_selfhosted_routes(routes.add, services, auth, api_keys, request_log)
    add_platform_routes(routes.add, services, users)
    app.add_route("/openapi.json", OpenAPIResource(routes.openapi))
    app.add_route("/docs", DocsPage())
    app.add_route("/docs/static/{name}", DocsAsset())
    add_dashboard_routes(app.add_route)
    plugins.hook.configure_app(app=app, services=services)
    return app


def event_store(db: Database, settings: Settings) -> EventStore:
    q = settings.queue
    return EventStore(
        db,
        lease_seconds=q.lease_seconds,
        max_attempts=q.max_attempts,
        backoff_seconds=q.backoff_seconds,
        max_pending=q.max_pending,
    )


class RouteTable:
    """Adds a route to the app and to the OpenAPI document at once."""

    def __init__(self, app: falcon.App, openapi: OpenAPIBuilder) -> None:
        self._app = app
        self.openapi = openapi

    def add(self, path: str, resource: object) -> None:
        self._app.add_route(path, resource)
        self.openapi.add(path, resource)
