"""The app factory: settings in, WSGI app out.

``create_app`` loads plugins, builds the engine and wires resources. It does
nothing at import time; only :mod:`memorist.wsgi` calls it on import, for
gunicorn.
"""

from __future__ import annotations

import falcon

from ..engine.memory import Memory
from ..plugins import Plugins, load_plugins
from ..settings import Settings
from . import errors
from .health import HealthResource
from .middleware import RequestIdMiddleware
from .services import AppServices


def create_app(settings: Settings, plugins: Plugins | None = None) -> falcon.App:
    """Build the WSGI app serving both HTTP surfaces from ``settings``."""
    plugins = plugins or load_plugins()
    memory = Memory.from_settings(settings, plugins)
    services = AppServices(settings=settings, plugins=plugins, memory=memory)

    app = falcon.App(middleware=[RequestIdMiddleware()])
    app.req_options.strip_url_path_trailing_slash = False
    errors.install(app)
    app.add_route("/health", HealthResource(memory.components))
    plugins.hook.configure_app(app=app, services=services)
    return app
