"""The Falcon WSGI application serving both HTTP surfaces."""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
