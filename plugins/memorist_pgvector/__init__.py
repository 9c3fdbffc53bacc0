"""Built-in plugin: the PostgreSQL + pgvector vector store (``vector_store: pgvector``).

Keeps memories, their vectors and a full-text index in one PostgreSQL table,
so every node of a multi-node install shares one store, next to the
relational tables the kernel already keeps there. Registered through the
``memorist`` entry-point group like any third-party plugin; psycopg and
pgvector are imported only when a store is built, so the plugin loads (and
lists the provider) even where the ``postgres`` extra is not installed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memorist.plugin_api import LazyExports, hookimpl

if TYPE_CHECKING:
    from memorist.plugin_api import VectorStore

    from .store import PgVectorStore

#: The provider classes, imported when a hook registers them (or on first attribute access):
#: loading the plugin to read its hooks imports none of them.
_exports = LazyExports(__name__, {"PgVectorStore": ".store"})

__all__ = ["PgVectorStore"]


@hookimpl
def register_vector_stores(register: Callable[[type[VectorStore]], None]) -> None:
    register(_exports.load("PgVectorStore"))


def __getattr__(name: str) -> Any:
    return _exports.attribute(name)
