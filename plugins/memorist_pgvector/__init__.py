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

from memorist.plugin_api import VectorStore, hookimpl

from .store import PgVectorStore

__all__ = ["PgVectorStore"]


@hookimpl
def register_vector_stores(register: Callable[[type[VectorStore]], None]) -> None:
    register(PgVectorStore)
