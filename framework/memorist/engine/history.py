"""The history of every memory: add, update and delete, kept after deletion."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.schema import history
from ..records import MemoryRecord, as_utc, utcnow

#: Longest source message an ADD row keeps: each fact of a message keeps it once, so a long
#: message split into many memories must not multiply its bytes without bound.
MAX_INPUT = 4_000
#: Built once (every add writes history rows; building a statement costs more than running it).
_INSERT = insert(history)


class HistoryLog:
    """Append-only log of memory events in the relational database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    def row(
        event: str,
        memory: MemoryRecord,
        previous: MemoryRecord | None = None,
        actor: str | None = None,
        role: str | None = None,
        input: str | None = None,
    ) -> dict[str, Any]:
        """A history row; ``input``: an ADD's source message (cut to :data:`MAX_INPUT` characters)."""
        if input is not None and len(input) > MAX_INPUT:
            input = input[: MAX_INPUT - 1] + "…"
        return {
            "id": str(uuid.uuid4()),
            "memory_id": memory.id,
            "org_id": memory.org_id,
            "project_id": memory.project_id,
            "event": event,
            "old_memory": previous.text if previous else None,
            "new_memory": None if event == "DELETE" else memory.text,
            "old_metadata": previous.metadata if previous else None,
            "new_metadata": None if event == "DELETE" else memory.metadata,
            "actor": actor,
            "role": role,
            "created_at": utcnow(),
            "input": input,
        }

    def record(self, rows: Sequence[dict[str, Any]], conn: Connection | None = None) -> None:
        if not rows:
            return
        if conn is not None:
            conn.execute(_INSERT, list(rows))
            return
        with self._db.begin() as c:
            c.execute(_INSERT, list(rows))

    def for_memory(self, memory_id: str) -> list[dict[str, Any]]:
        """Events of one memory, oldest first."""
        with self._db.connect() as conn:
            rows = conn.execute(
                select(history).where(history.c.memory_id == memory_id).order_by(history.c.created_at, history.c.id)
            ).mappings()
            out = []
            for r in rows:
                item = dict(r)
                item["created_at"] = as_utc(item["created_at"])
                out.append(item)
            return out

    def clear(self, org_id: str | None = None, project_id: str | None = None) -> None:
        stmt = delete(history)
        if org_id is not None:
            stmt = stmt.where(history.c.org_id == org_id)
        if project_id is not None:
            stmt = stmt.where(history.c.project_id == project_id)
        with self._db.begin() as conn:
            conn.execute(stmt)
