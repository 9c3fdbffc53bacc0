"""Built-in plugin: the embedded LanceDB vector store (the default ``vector_store``).

Keeps memories, their vectors and a native BM25 full-text index in one
directory under the data dir, so a single-machine install needs no database
server. Registered through the ``memorist`` entry-point group like any
third-party plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memorist.hookspecs import hookimpl

if TYPE_CHECKING:
    from memorist.providers import VectorStore

    from .store import LanceDBVectorStore

__all__ = ["LanceDBVectorStore"]
#: Provider classes, imported on first use: loading plugins (every command does) stays cheap.
_LAZY = {"LanceDBVectorStore": ".store"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(name)


@hookimpl
def register_vector_stores(register: Callable[[type[VectorStore]], None]) -> None:
    from .store import LanceDBVectorStore

    register(LanceDBVectorStore)
