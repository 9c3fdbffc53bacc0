"""WSGI entry for gunicorn: ``gunicorn memorist.wsgi:app``.

The only module that builds the app at import time; it reads settings from
``MEMORIST_CONFIG`` and the environment.
"""

from __future__ import annotations

from .http import create_app
from .settings import load_settings

app = create_app(load_settings())
