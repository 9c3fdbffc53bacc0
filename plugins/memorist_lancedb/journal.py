"""The write-behind journal: acknowledged upserts, durable before they reach the Lance table.

Why: one LanceDB ``merge_insert`` commits a table version, ~11 ms whatever its
size, and an add used to pay it before answering. A row appended to a SQLite
WAL file costs a fraction of a millisecond and survives ``kill -9`` (the WAL is
written before the commit returns; ``synchronous=NORMAL`` leaves out only the
fsync that guards against power loss, as the relational database does). A
background flusher then moves the pending rows into the table in batches: one
``merge_insert`` for hundreds of rows.

The journal is one file beside the table (``<table>.journal.sqlite``), shared by
every process that opens the directory. Any process may flush any row: a flush
takes an exclusive lock (a thread lock plus ``flock`` on ``<table>.journal.lock``),
reads every pending row, upserts the newest version of each id into the table
(idempotent by id), and only then deletes exactly the rows it read. A crash
between the two leaves rows that the next flush writes again, to the same
result. Rows are appended by SQLite's serialized writers with increasing
sequence numbers, so a reader that takes its journal snapshot *before* reading
the table sees every row in one or the other (a flush commits the table before
deleting journal rows); rows found in both are the same version or newer in the
journal, and the journal's wins.
"""

from __future__ import annotations

import fcntl
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from memorist.plugin_api import MemoryRecord

from .schema import pack_record, unpack_record

#: Sequence numbers per ``IN (...)`` clause (SQLite's variable limit is far above this).
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class Pending:
    """One journaled upsert: the record and its vector (float32)."""

    seq: int
    record: MemoryRecord
    vector: np.ndarray


class Journal:
    """Pending upserts in a SQLite file; :meth:`drain` hands them to the table and forgets them."""

    def __init__(self, path: Path, dimension: int) -> None:
        self.path = path
        self._dimension = dimension
        # One connection per store, used under a lock: the flusher thread and request threads share it.
        self._conn = sqlite3.connect(str(path), timeout=30.0, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS pending ("
            "seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, record TEXT NOT NULL, vector BLOB NOT NULL)"
        )
        self._lock = threading.Lock()
        #: Decoded rows by sequence number (rows only ever appear, then go at a drain).
        self._cache: dict[int, Pending] = {}
        self._drain_lock = threading.Lock()
        self._lock_path = path.resolve().with_suffix(".lock")  # a later chdir must not move it

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file this journal may leave beside the table: the database, SQLite's WAL and
        shared-memory files, and the flush lock."""
        return (self.path, *(self.path.with_name(self.path.name + s) for s in ("-wal", "-shm")), self._lock_path)

    # -- writes ----------------------------------------------------------------------------

    def append(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> int:
        """Journal ``records`` (one vector row each) in one transaction; the pending count after.

        Reads get the records back as the table would give them (decoded from the
        journal's own bytes: dates in UTC, no object shared with the caller).
        """
        rows = [
            (record.id, pack_record(record), np.ascontiguousarray(vectors[i], dtype=np.float32).tobytes())
            for i, record in enumerate(records)
        ]
        with self._lock:
            cursor = self._conn.cursor()
            cursor.execute("BEGIN IMMEDIATE")
            added: list[Pending] = []
            try:
                for row in rows:
                    cursor.execute("INSERT INTO pending (id, record, vector) VALUES (?, ?, ?)", row)
                    seq = int(cursor.lastrowid or 0)
                    added.append(self._decode(seq, row[1], row[2]))
                (count,) = cursor.execute("SELECT count(*) FROM pending").fetchone()
                cursor.execute("COMMIT")
            except BaseException:
                cursor.execute("ROLLBACK")
                raise
            self._cache.update((p.seq, p) for p in added)
            return int(count)

    # -- reads -----------------------------------------------------------------------------

    def has_pending(self) -> bool:
        with self._lock:
            return self._conn.execute("SELECT 1 FROM pending LIMIT 1").fetchone() is not None

    def snapshot(self) -> dict[str, Pending]:
        """The newest pending version of each id (every process's rows, not only this one's)."""
        return self._read()[0]

    def _read(self) -> tuple[dict[str, Pending], list[int]]:
        """The newest pending version of each id, and every pending sequence number read."""
        with self._lock:
            seqs = [int(s) for (s,) in self._conn.execute("SELECT seq FROM pending ORDER BY seq")]
            live = set(seqs)
            for gone in [s for s in self._cache if s not in live]:
                del self._cache[gone]
            unknown = [s for s in seqs if s not in self._cache]
            for chunk in _chunks(unknown):
                marks = ",".join("?" * len(chunk))
                for seq, _, packed, blob in self._conn.execute(
                    f"SELECT seq, id, record, vector FROM pending WHERE seq IN ({marks})", chunk
                ):
                    self._cache[int(seq)] = self._decode(int(seq), packed, blob)
            newest: dict[str, Pending] = {}
            for seq in seqs:
                entry = self._cache.get(seq)
                if entry is not None:
                    newest[entry.record.id] = entry
            return newest, seqs

    def _decode(self, seq: int, packed: str, blob: bytes) -> Pending:
        vector = np.frombuffer(blob, dtype=np.float32)
        if vector.shape[0] != self._dimension:
            raise ValueError(
                f"journal {self.path} holds a {vector.shape[0]}-dimensional vector; expected {self._dimension}"
            )
        return Pending(seq, unpack_record(packed), vector)

    # -- draining --------------------------------------------------------------------------

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        """One drain at a time: across threads (the lock) and processes (``flock``)."""
        with self._drain_lock, open(self._lock_path, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def drain(self, write: Callable[[list[MemoryRecord], np.ndarray], None]) -> int:
        """Hand every pending row (newest version per id) to ``write``, then delete the rows
        read; returns how many ids were written. ``write`` raising leaves the rows pending."""
        with self._exclusive():
            newest, seqs = self._read()
            if not newest:
                return 0
            entries = sorted(newest.values(), key=lambda p: p.seq)
            write([p.record for p in entries], np.stack([p.vector for p in entries]))
            with self._lock:
                cursor = self._conn.cursor()
                cursor.execute("BEGIN IMMEDIATE")
                try:
                    for chunk in _chunks(seqs):
                        cursor.execute(f"DELETE FROM pending WHERE seq IN ({','.join('?' * len(chunk))})", chunk)
                    cursor.execute("COMMIT")
                except BaseException:
                    cursor.execute("ROLLBACK")
                    raise
                for seq in seqs:
                    self._cache.pop(seq, None)
            return len(entries)

    def clear(self) -> None:
        """Forget every pending row (the store is being reset)."""
        with self._exclusive(), self._lock:
            self._conn.execute("DELETE FROM pending")
            self._cache.clear()


def _chunks(items: Sequence[int]) -> Iterator[list[int]]:
    for start in range(0, len(items), _CHUNK):
        yield list(items[start : start + _CHUNK])
