"""Memorist: an open long-term memory service for AI applications."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("memorist")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"

__all__ = ["Memory", "__version__"]


def __getattr__(name: str) -> object:
    # Lazy: ``import memorist`` stays cheap for the CLI and plugin authors.
    if name == "Memory":
        from .api import Memory

        return Memory
    raise AttributeError(name)
