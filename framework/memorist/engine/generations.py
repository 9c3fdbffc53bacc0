"""Scope generations: one counter per memory scope, shared by every process and node.

Search caches scopes in memory (:mod:`.scope_index`); a write anywhere must make
every copy stale. Each write path bumps the generation of every scope its records
belong to *after* the vector store shows the write (in the transaction of the
add's or update's relational rows, which commits after the vector write; in a
transaction of its own after a delete). A reader reads the generation *before*
loading a scope, so a snapshot is never cached under a generation newer than the
store state it saw: at worst it is reloaded once more than needed.

A scope is ``org/project`` plus one of user, agent, run or app (the scope a
search pins, see ``HybridSearch._pinned``); a record of user ``u`` and run
``r`` belongs to two. The ``*`` row is bumped by a reset (which empties every
scope, including those written before this table existed and so without a row).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..db.schema import scope_additions, scope_generations
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord

#: The row a reset bumps; every scope's generation includes it.
EVERYTHING = "*"

_READ_SQL = f"SELECT scope_key, generation FROM {scope_generations.name} WHERE scope_key IN (?, ?)"

# Built once: every add runs them, and building a statement costs more than SQLite running it.
_BUMP = (
    update(scope_generations)
    .where(scope_generations.c.scope_key == bindparam("p_key"))
    .values(generation=scope_generations.c.generation + 1)
)
_CREATE = scope_generations.insert()
_READ_MANY = select(scope_generations.c.scope_key, scope_generations.c.generation).where(
    scope_generations.c.scope_key.in_(bindparam("p_keys", expanding=True))
)
_NOTE_ADDITIONS = scope_additions.insert()

#: (generation of the scope's row, generation of the ``*`` row); (0, 0) before any write.
Generation = tuple[int, int]

#: Generations of additions kept per scope: a snapshot further behind reloads in full.
ADDITIONS_KEPT = 64
#: Older additions of a scope are deleted when its generation reaches a multiple of this
#: (one delete per this many adds, not one per add).
_PRUNE_EVERY = 32


def generation_key(org_id: str, project_id: str, field: str, value: str) -> str:
    """The key of one scope (``field`` is one of user_id, agent_id, run_id, app_id)."""
    return f"{org_id}/{project_id}/{field}={value}"


def record_keys(records: Iterable[MemoryRecord]) -> set[str]:
    """Keys of every scope the records belong to."""
    keys: set[str] = set()
    for record in records:
        for field in ENTITY_SCOPE_FIELDS:
            value = getattr(record, field)
            if value is not None:
                keys.add(generation_key(record.org_id, record.project_id, field, value))
    return keys


class ScopeGenerations:
    """Reads and bumps scope generations in the relational database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def read(self, key: str) -> Generation:
        """The scope's generation: one point query (two primary-key rows)."""
        if self.db.is_sqlite:
            rows = self._sqlite_read(key)
        else:
            with self.db.connect() as conn:
                rows = [(k, g) for k, g in conn.execute(_READ_MANY, {"p_keys": [key, EVERYTHING]}).all()]
        found = {str(k): int(g) for k, g in rows}
        return found.get(key, 0), found.get(EVERYTHING, 0)

    def _sqlite_read(self, key: str) -> list[tuple[Any, Any]]:
        """On SQLite, the thread's kept DB-API connection (:meth:`Database.kept_connection`,
        outside the pool) and fixed SQL: checking a pooled connection out, or building a
        SQLAlchemy statement, costs more than this read. The driver opens no transaction for
        a SELECT, so every read sees the latest commit."""
        cursor = self.db.kept_connection().cursor()
        try:
            cursor.execute(_READ_SQL, (key, EVERYTHING))
            return list(cursor.fetchall())
        finally:
            cursor.close()

    def close(self) -> None:
        """Close the calling thread's kept connection (others close with their threads)."""
        self.db.close_kept_connection()

    def bump(self, conn: Connection, records: Iterable[MemoryRecord]) -> dict[str, int]:
        """Bump every scope of ``records`` in the caller's transaction (after the store write);
        returns the generations the transaction wrote (with the ``*`` row's), for write-through."""
        keys = record_keys(records)
        self.bump_keys(conn, keys)
        if not keys:
            return {}
        rows = conn.execute(_READ_MANY, {"p_keys": sorted({*keys, EVERYTHING})}).all()
        return {str(k): int(g) for k, g in rows}

    def bump_added(self, conn: Connection, records: Iterable[MemoryRecord]) -> dict[str, int]:
        """``bump`` for an add: also notes, under each scope's new generation, the memories the
        scope gained, so that another process's snapshot can take just those (:meth:`additions`)."""
        records = list(records)
        bumped = self.bump(conn, records)
        gained: dict[str, list[str]] = {}
        for record in records:
            for key in record_keys([record]):
                gained.setdefault(key, []).append(record.id)
        if not gained:
            return bumped
        conn.execute(
            _NOTE_ADDITIONS,
            [{"scope_key": k, "generation": bumped[k], "memory_ids": json.dumps(ids)} for k, ids in gained.items()],
        )
        for key in gained:
            if bumped[key] % _PRUNE_EVERY == 0:
                conn.execute(
                    delete(scope_additions).where(
                        scope_additions.c.scope_key == key,
                        scope_additions.c.generation <= bumped[key] - ADDITIONS_KEPT,
                    )
                )
        return bumped

    def additions(self, key: str, after: int, upto: int) -> list[str] | None:
        """Ids of the memories the scope gained from generation ``after`` (exclusive) to ``upto``,
        oldest add first; None when a generation between is not an add's (an update, a delete,
        a purge) or no longer kept: then only a reload tells the scope's state."""
        if not 0 <= after < upto <= after + ADDITIONS_KEPT:
            return None
        query = (
            select(scope_additions.c.generation, scope_additions.c.memory_ids)
            .where(
                scope_additions.c.scope_key == key,
                scope_additions.c.generation > after,
                scope_additions.c.generation <= upto,
            )
            .order_by(scope_additions.c.generation)
        )
        with self.db.connect() as conn:
            rows = conn.execute(query).all()
        if len(rows) != upto - after:
            return None
        return [memory_id for _, ids in rows for memory_id in json.loads(ids)]

    def bump_keys(self, conn: Connection, keys: Iterable[str]) -> None:
        for key in sorted(keys):  # a fixed order: concurrent writers never deadlock on PostgreSQL
            if conn.execute(_BUMP, {"p_key": key}).rowcount:
                continue
            try:
                with conn.begin_nested():
                    conn.execute(_CREATE, {"scope_key": key, "generation": 1})
            except IntegrityError:  # created concurrently: bump that row
                conn.execute(_BUMP, {"p_key": key})

    def bump_now(self, records: Iterable[MemoryRecord]) -> None:
        """``bump`` in a transaction of its own (after a delete: the rows are gone from the store)."""
        keys = record_keys(records)
        if keys:
            with self.db.begin() as conn:
                self.bump_keys(conn, keys)

    def bump_everything(self) -> None:
        """After a reset: every scope, with or without a row of its own, is stale."""
        with self.db.begin() as conn:
            self.bump_keys(conn, [EVERYTHING])
