"""Built-in plugin: the embedded LanceDB vector store (the default ``vector_store``).

Keeps memories, their vectors and a native BM25 full-text index in one
directory under the data dir, so a single-machine install needs no database
server. Registered through the ``memorist`` entry-point group like any
third-party plugin; the kernel never imports it by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import LazyExports, hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import VectorStore

    from .store import LanceDBVectorStore

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(__name__, {"LanceDBVectorStore": ".store"})

__all__ = ["LanceDBVectorStore"]


@hookimpl
def register_vector_stores(register: Callable[[type[VectorStore]], None]) -> None:
    register(_exports.load("LanceDBVectorStore"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
