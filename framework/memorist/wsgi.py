"""WSGI entry for gunicorn: ``gunicorn memorist.wsgi:app``.

The only module that builds the app at import time; it reads settings from
``MEMORIST_CONFIG`` and the environment.
"""

from __future__ import annotations

from .config.settings import load_settings
from .http import create_app
from .plugin.manager import load_plugins

_plugins = load_plugins()
app = create_app(load_settings(sections=_plugins.settings_sections()), _plugins)
