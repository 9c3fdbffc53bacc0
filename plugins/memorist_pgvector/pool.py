"""Pooled psycopg 3 connections for the store, from the same URL the kernel uses.

SQLAlchemy's ``QueuePool`` does the pooling (thread-safe checkout, overflow,
pre-ping after a server restart) and parses the URL exactly like
:class:`memorist.db.Database`; the store then talks to the raw psycopg
connection, because it needs binary vector parameters, ``executemany`` in
pipeline mode and hand-written SQL rather than an ORM.

psycopg, pgvector and SQLAlchemy's engine are imported when a pool is built,
never when the plugin is loaded: the plugin registers even where the
``postgres`` extra is not installed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memorist.plugin_api import ConfigurationError

_READY = "memorist_pgvector_ready"


def engine_url(url: str) -> Any:
    """``url`` as a SQLAlchemy URL with the psycopg 3 driver; refuses non-PostgreSQL URLs."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise ConfigurationError(f"vector_store 'pgvector': invalid database URL ({exc})") from None
    if parsed.get_backend_name() != "postgresql":
        shown = parsed.render_as_string(hide_password=True)
        raise ConfigurationError(f"vector_store 'pgvector' needs a PostgreSQL database URL, got '{shown}'")
    return parsed.set(drivername="postgresql+psycopg")


class ConnectionPool:
    """Hands out psycopg connections, one transaction per checkout."""

    def __init__(self, url: str, size: int, overflow: int) -> None:
        parsed = engine_url(url)  # a wrong URL is the first thing to say, driver or not
        try:
            import pgvector.psycopg  # noqa: F401 - fail here, with a useful message
            import psycopg  # noqa: F401
        except ImportError as exc:
            raise ConfigurationError(
                "vector_store 'pgvector' needs psycopg 3 and pgvector: pip install 'memorist[postgres]'"
            ) from exc
        from sqlalchemy import create_engine

        self._engine = create_engine(parsed, pool_size=size, max_overflow=overflow, pool_pre_ping=True)
        self._pid = os.getpid()
        #: Set once the ``vector`` type exists: connections then get its adapters.
        self.vector_ready = False

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A psycopg connection in a transaction: committed on success, rolled back on error."""
        if os.getpid() != self._pid:
            # A forked child must not share the parent's sockets: start its own pool.
            self._engine.dispose(close=False)
            self._pid = os.getpid()
        proxy = self._engine.raw_connection()
        try:
            conn: Any = proxy.driver_connection
            if self.vector_ready and not proxy.info.get(_READY):
                self._prepare(conn)
                proxy.info[_READY] = True
            try:
                yield conn
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
        finally:
            proxy.close()

    def _prepare(self, conn: Any) -> None:
        """Per-connection setup: binary vector adapters, and Python-compatible float output."""
        from pgvector.psycopg import register_vector

        register_vector(conn)
        # Shortest round-trip float8 text, as Python's repr() (metadata 'contains' relies on it).
        conn.execute("SET extra_float_digits = 1")
        conn.commit()

    def dispose(self) -> None:
        self._engine.dispose()
