"""Creating the SQLAlchemy engine and running migrations, safely across processes."""

from __future__ import annotations

import fcntl
import os
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection
from sqlalchemy.pool import NullPool, QueuePool

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_ADVISORY_LOCK_ID = 7_311_042  # arbitrary, constant: "memorist migrations"
#: Alembic's ``context`` and ``op`` are process-wide proxies: two threads migrating at once,
#: even different databases (an engine built in the background beside another), would run
#: one's operations on the other's connection. The file and advisory locks order processes.
_ALEMBIC_IN_THIS_PROCESS = threading.Lock()


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _config(conn: Connection, name: str | None = None, versions: Path | None = None) -> Config:
    from alembic.config import Config  # Alembic (and Mako, Pygments) load for a migration only

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # One path per option, split on os.pathsep: the legacy default splits on spaces and
    # commas, which breaks a plugin installed under a directory with a space in its name.
    config.set_main_option("path_separator", "os")
    if versions is not None:
        config.set_main_option("version_locations", str(versions))
    config.attributes["connection"] = conn
    config.attributes["version_table"] = f"alembic_version_{name}" if name else "alembic_version"
    return config


def _sqlite_engine(url: str, path: str, pool_size: int, pool_timeout: float, echo: bool) -> Engine:
    """A pooled engine for a SQLite file; ``NullPool`` for an in-memory database.

    Why pool: opening a SQLite connection runs four pragmas, and closing the last one
    of a process checkpoints the WAL; with a connection per transaction that cost
    ~2 ms of every add (three transactions). Pooled connections must not cross a
    fork (two processes on one file handle), so a forked child forgets the parent's
    pool without closing its connections (:func:`os.register_at_fork`).
    """
    if not path or path == ":memory:":
        return create_engine(url, poolclass=NullPool, echo=echo)
    engine = create_engine(
        url, poolclass=QueuePool, pool_size=pool_size, max_overflow=4 * pool_size, pool_timeout=pool_timeout, echo=echo
    )
    ref = weakref.ref(engine)

    def forget_in_child() -> None:
        found = ref()
        if found is not None:
            found.dispose(close=False)

    os.register_at_fork(after_in_child=forget_in_child)
    return engine


#: Longest wait for a free pooled connection. Past it SQLAlchemy raises ``TimeoutError``,
#: which the HTTP error path answers 503 with ``Retry-After`` (a busy server, not a bug):
#: a request should not sit for SQLAlchemy's default 30 s before being told to come back.
POOL_TIMEOUT_SECONDS = 10.0


class Database:
    """One SQLAlchemy engine plus the migration entry point."""

    def __init__(
        self, url: str, *, pool_size: int = 5, pool_timeout: float = POOL_TIMEOUT_SECONDS, echo: bool = False
    ) -> None:
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        #: Per thread: the DB-API connection :meth:`kept_connection` keeps outside the pool.
        self._kept = threading.local()
        if self.is_sqlite:
            path = url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.engine: Engine = _sqlite_engine(url, path, pool_size, pool_timeout, echo)
            event.listen(self.engine, "connect", _sqlite_pragmas)
        else:
            self.engine = create_engine(
                url,
                pool_size=pool_size,
                max_overflow=pool_size,
                pool_timeout=pool_timeout,
                pool_pre_ping=True,
                echo=echo,
            )

    def kept_connection(self) -> Any:
        """This thread's own DB-API connection to the SQLite file, opened outside the pool and kept.

        For hot, fixed-SQL reads (a scope generation per search) where checking a pooled
        connection out costs more than the read. Outside the pool on purpose: a connection
        kept per thread and taken from the pool never went back, so every engine a
        ``POST /configure`` built took one more per serving thread until the pool (5 + 20)
        ran dry and requests failed after waiting 30 s (issue 39, item 10). One per thread
        per database, whatever number of engines reads through it; it closes with its thread
        (or :meth:`close_kept_connection`), and a forked child opens its own.
        """
        held: tuple[int, Any] | None = getattr(self._kept, "conn", None)
        if held is None or held[0] != os.getpid():
            cargs, cparams = self.engine.dialect.create_connect_args(self.engine.url)
            conn = self.engine.dialect.loaded_dbapi.connect(*cargs, **cparams)
            _sqlite_pragmas(conn, None)
            held = (os.getpid(), conn)
            self._kept.conn = held
        return held[1]

    def close_kept_connection(self) -> None:
        """Close the calling thread's kept connection, if it has one (others close with their threads)."""
        held: tuple[int, Any] | None = getattr(self._kept, "conn", None)
        self._kept.conn = None
        if held is not None and held[0] == os.getpid():
            held[1].close()

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A connection in a transaction, committed on success."""
        with self.engine.begin() as conn:
            yield conn

    @contextmanager
    def connect(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            yield conn

    def upgrade(self, plugins: Sequence[tuple[str, Path]] = ()) -> None:
        """Run Alembic migrations to head, one process at a time: the kernel's, then each plugin's.

        A plugin's revisions (``register_migrations``) keep their own version table,
        ``alembic_version_<name>``, so the kernel's history never names a plugin revision.
        """
        from alembic import command

        with _ALEMBIC_IN_THIS_PROCESS, self._migration_lock() as conn:
            command.upgrade(_config(conn), "head")
            for name, versions in plugins:
                command.upgrade(_config(conn, name, versions), "head")

    @contextmanager
    def _migration_lock(self) -> Iterator[Connection]:
        if self.is_sqlite:
            path = self.url.split("///", 1)[-1]
            lock_path = f"{path}.migrate.lock" if path and path != ":memory:" else os.devnull
            with open(lock_path, "a+") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                try:
                    with self.engine.begin() as conn:
                        yield conn
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)
            return
        with self.engine.begin() as conn:
            conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _ADVISORY_LOCK_ID})
            yield conn

    def dispose(self) -> None:
        self.engine.dispose()
