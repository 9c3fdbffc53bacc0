"""Memorist: an open long-term memory service for AI applications.

``from memorist import Memory`` is the mem0-compatible API (dictionaries in and out,
see :mod:`memorist.python.memory`); ``AsyncMemory`` is its asyncio twin; ``Engine`` (also
``TypedMemory``) is the typed engine underneath, answering records and ``SearchHit``
objects. Everything is imported lazily: ``import memorist`` stays cheap for the
command line and for plugin authors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    __version__: str

if TYPE_CHECKING:
    from .python.engine import Engine
    from .python.memory import AsyncMemory, Memory

    TypedMemory = Engine

__all__ = ["AsyncMemory", "Engine", "Memory", "TypedMemory", "__version__"]


def _version() -> str:
    # Read on first use: importlib.metadata's scan of installed distributions costs every start.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memorist")
    except PackageNotFoundError:  # running from a source tree without installing
        return "0.0.0"


def __getattr__(name: str) -> object:
    if name == "__version__":
        value = _version()
        globals()["__version__"] = value
        return value
    if name in ("Memory", "AsyncMemory"):
        from .python import memory as facade

        return getattr(facade, name)
    if name in ("Engine", "TypedMemory"):
        from .python.engine import Engine

        return Engine
    raise AttributeError(name)
