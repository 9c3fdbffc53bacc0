"""Named locks that hold across threads and processes sharing one database.

Why: a check-then-write (the add's duplicate rule reads the scope, then writes
what it did not find) is only atomic if no other writer of the same scope runs
between the read and the write, whether that writer is another thread, another
worker process, or another server on the same data directory or PostgreSQL.

- SQLite: ``flock`` on a file per stripe beside the database
  (``<db>.locks/<n>.lock``); each hold opens its own file description, so two
  threads of one process exclude each other as two processes do, and the kernel
  drops the lock of a killed process.
- PostgreSQL: session advisory locks (``pg_advisory_lock``) on one pooled
  connection, released explicitly at the end (and by the server if the process
  dies and its connection closes). The holder's transactions run on that same
  connection (:meth:`Held.begin`), so a hold costs one connection, never two.

Names hash onto :data:`STRIPES` stripes: two names may share one (they then
wait for each other, which is correct, only slower). Several names are taken in
stripe order, so two holders of overlapping sets never deadlock.
"""

from __future__ import annotations

import fcntl
import os
import threading
import zlib
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Connection

from .engine import Database

#: Stripes names hash onto (files on SQLite, advisory lock keys on PostgreSQL).
STRIPES = 256
#: First key of the two-int advisory locks ("memorist scope").
_NAMESPACE = 0x4D53


def stripes(names: Iterable[str]) -> list[int]:
    """The sorted distinct stripes of ``names``."""
    return sorted({zlib.crc32(name.encode("utf-8", "surrogatepass")) % STRIPES for name in names})


class Held:
    """A hold's way to run transactions: on its own connection (PostgreSQL) or a new one (SQLite)."""

    def __init__(self, db: Database, conn: Connection | None) -> None:
        self._db = db
        self._conn = conn

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        if self._conn is None:
            with self._db.begin() as conn:
                yield conn
            return
        with self._conn.begin():
            yield self._conn


class NamedLocks:
    """:meth:`hold` a set of names exclusively, across threads and processes of one database."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._dir: Path | None = None
        self._memory: list[threading.Lock] | None = None
        if db.is_sqlite:
            path = db.url.split("///", 1)[-1]
            if path and path != ":memory:":
                self._dir = Path(f"{path}.locks")
            else:  # one process only: thread locks are enough
                self._memory = [threading.Lock() for _ in range(STRIPES)]

    @contextmanager
    def hold(self, names: Iterable[str]) -> Iterator[Held]:
        wanted = stripes(names)
        if not self._db.is_sqlite:
            with self._db.engine.connect() as conn:
                try:
                    with conn.begin():
                        for stripe in wanted:
                            conn.execute(text("SELECT pg_advisory_lock(:ns, :key)"), {"ns": _NAMESPACE, "key": stripe})
                    yield Held(self._db, conn)
                finally:
                    if conn.in_transaction():
                        conn.rollback()
                    with conn.begin():
                        conn.execute(text("SELECT pg_advisory_unlock_all()"))
            return
        with ExitStack() as stack:
            for stripe in wanted:
                if self._memory is not None:
                    stack.enter_context(self._memory[stripe])
                else:
                    stack.enter_context(self._file_lock(stripe))
            yield Held(self._db, None)

    @contextmanager
    def _file_lock(self, stripe: int) -> Iterator[None]:
        assert self._dir is not None
        self._dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._dir / f"{stripe}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the description releases the flock
