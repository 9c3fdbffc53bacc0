"""What keeps an add's duplicate check and its writes atomic, and its history complete.

Two guarantees the add pipeline (:mod:`.add`) leans on here:

1. **Stored once.** The duplicate rule reads the scope, then writes what it did not
   find. Two identical adds racing (threads, worker processes, two servers on one
   data directory or PostgreSQL) would both read "absent" and both write. So the
   read and the writes run under a lock on the add's scope
   (:class:`memorist.db.locks.NamedLocks`); extraction, the slow part, runs before.
2. **No memory without history.** A memory is written to the vector store, then its
   history row (and counts, graph links) to the relational database: two stores,
   no shared transaction. Before the vector write, a synchronous add leaves an
   *intent* (a ``kv`` row: its scopes, actor, time); the relational commit deletes
   it in the same transaction as the history rows. A process killed in between
   leaves the intent behind, and :meth:`AddGuard.recover` (run when an engine
   opens) writes the missing rows for the memories of those scopes written since
   the intent, under the same scope lock, so a live add is never "recovered".
   (Queued adds need no intent: their event notes the planned ids and a retry
   redoes the add.)
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.locks import Held, NamedLocks
from ..db.schema import history, kv
from ..filters import And, Condition
from ..plugin.contracts import VectorStore
from ..records import MemoryRecord, Scope, utcnow
from .scope import exact_scope

log = logging.getLogger(__name__)

#: ``kv`` keys of open intents: ``add-intent/<uuid>``.
INTENT_PREFIX = "add-intent/"
#: Memories written this long before an intent's time still count as its own (clock steps).
_MARGIN = timedelta(seconds=5)
#: Most memories one recovered intent's scope is searched for (an add stores far fewer).
_RECOVER_ROWS = 10_000

# The intent's two statements, built once: every synchronous add runs both, and building a
# statement with its values inline (coercion, cache key) cost more than SQLite running it.
_OPEN_INTENT = insert(kv)
_CLOSE_INTENT = delete(kv).where(kv.c.key == bindparam("p_key"))

#: ``commit(conn, scope, actor, records)``: the add's relational rows for ``records``.
CommitRows = Callable[[Connection, Scope, "str | None", list[MemoryRecord]], None]


def lock_name(scope: Scope) -> str:
    """One scope's lock name: every field of the exact scope (the duplicate rule's reach)."""
    return "scope:" + json.dumps(scope.model_dump(), sort_keys=True, separators=(",", ":"))


class AddGuard:
    """The scope locks and intents of :mod:`.add` (see the module docstring)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.locks = NamedLocks(db)

    @contextmanager
    def hold(self, scopes: Sequence[Scope]) -> Iterator[Held]:
        """Exclusive use of ``scopes`` for a duplicate check and the writes it decides."""
        with self.locks.hold(lock_name(s) for s in scopes) as held:
            yield held

    def open_intent(self, held: Held, scopes: Sequence[Scope], actor: str | None) -> str:
        """Note, durably, that memories of ``scopes`` are about to be written (before the vector write)."""
        key = f"{INTENT_PREFIX}{uuid.uuid4()}"
        now = utcnow()
        value = {"scopes": [s.model_dump() for s in scopes], "actor": actor, "at": now.isoformat()}
        with held.begin() as conn:
            conn.execute(_OPEN_INTENT, {"key": key, "value": value, "updated_at": now})
        return key

    @staticmethod
    def close_intent(conn: Connection, key: str) -> None:
        """In the transaction of the history rows: the add is whole."""
        conn.execute(_CLOSE_INTENT, {"p_key": key})

    def pending(self) -> list[tuple[str, dict[str, Any]]]:
        with self._db.connect() as conn:
            rows = conn.execute(
                select(kv.c.key, kv.c.value).where(kv.c.key >= INTENT_PREFIX, kv.c.key < INTENT_PREFIX[:-1] + "0")
            ).all()
        return [(str(key), dict(value)) for key, value in rows]

    def recover(self, store: VectorStore, commit: CommitRows) -> int:
        """Complete the adds a killed process left between its vector write and its history rows.

        Returns how many memories got their rows. Each intent is handled under its scopes'
        locks: an add still running elsewhere holds them, and its own commit removes its intent.
        """
        recovered = 0
        for key, value in self.pending():
            scopes = [Scope(**s) for s in value.get("scopes", [])]
            with self.hold(scopes) as held:
                with held.begin() as conn:
                    if conn.execute(select(kv.c.key).where(kv.c.key == key)).first() is None:
                        continue  # the add finished after all
                since = datetime.fromisoformat(value["at"]) - _MARGIN
                found = []
                for scope in scopes:
                    where = And((exact_scope(scope), Condition("updated_at", "gte", since)))
                    found.append((scope, store.list(where, 0, _RECOVER_ROWS)))
                with held.begin() as conn:
                    for scope, records in found:
                        missing = self._without_history(conn, records)
                        if missing:
                            commit(conn, scope, value.get("actor"), missing)
                            recovered += len(missing)
                    self.close_intent(conn, key)
        if recovered:
            log.warning("wrote the missing history of %d memories an interrupted add had stored", recovered)
        return recovered

    @staticmethod
    def _without_history(conn: Connection, records: list[MemoryRecord]) -> list[MemoryRecord]:
        ids = [r.id for r in records]
        known: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            known.update(conn.execute(select(history.c.memory_id).where(history.c.memory_id.in_(chunk))).scalars())
        return [r for r in records if r.id not in known]
