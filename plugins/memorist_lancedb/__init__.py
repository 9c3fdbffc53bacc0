"""Built-in plugin: the embedded LanceDB vector store (the default ``vector_store``).

Keeps memories, their vectors and a native BM25 full-text index in one
directory under the data dir, so a single-machine install needs no database
server. Registered through the ``memorist`` entry-point group like any
third-party plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable

from memorist.plugin_api import VectorStore, hookimpl

from .store import LanceDBVectorStore

__all__ = ["LanceDBVectorStore"]


@hookimpl
def register_vector_stores(register: Callable[[type[VectorStore]], None]) -> None:
    register(LanceDBVectorStore)
