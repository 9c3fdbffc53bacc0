"""The Falcon WSGI application serving both HTTP surfaces."""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    # Lazy: a plugin importing ``memorist.http.parsing`` (webhooks) must not build the whole
    # app's import graph at plugin load; ``memorist mcp`` starts faster for it.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
