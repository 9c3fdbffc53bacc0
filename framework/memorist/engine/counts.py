"""Memory counts per entity (user, agent, run, app) of a project, for ``/entities``.

Kept in the relational database and adjusted in the same transaction as the
history rows, so every node sees the same figures without scanning the store.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..db.schema import scope_counts
from ..records import ENTITY_SCOPE_FIELDS, ENTITY_TYPES, MemoryRecord, as_utc, utcnow

# Built once: every add runs these, and building a statement costs more than SQLite running it.
_KEY = and_(
    scope_counts.c.org_id == bindparam("p_org"),
    scope_counts.c.project_id == bindparam("p_project"),
    scope_counts.c.entity_type == bindparam("p_kind"),
    scope_counts.c.entity_id == bindparam("p_value"),
)
_BUMP = (
    update(scope_counts)
    .where(_KEY)
    .values(total=scope_counts.c.total + bindparam("p_change"), updated_at=bindparam("p_now"))
)
_CREATE = insert(scope_counts)


@dataclass(frozen=True)
class EntityCount:
    entity_type: str
    entity_id: str
    total: int
    created_at: datetime
    updated_at: datetime


class ScopeCounts:
    def __init__(self, db: Database) -> None:
        self._db = db

    def adjust(self, conn: Connection, records: Iterable[MemoryRecord], delta: int) -> None:
        """Add ``delta`` per record to each entity the record belongs to."""
        changes: Counter[tuple[str, str, str, str]] = Counter()
        for record in records:
            for field in ENTITY_SCOPE_FIELDS:
                value = getattr(record, field)
                if value is not None:
                    changes[(record.org_id, record.project_id, ENTITY_TYPES[field], value)] += delta
        now = utcnow()
        for (org, project, kind, value), change in sorted(changes.items()):
            bump = {
                "p_org": org,
                "p_project": project,
                "p_kind": kind,
                "p_value": value,
                "p_change": change,
                "p_now": now,
            }
            if conn.execute(_BUMP, bump).rowcount:
                continue
            row = {"org_id": org, "project_id": project, "entity_type": kind, "entity_id": value}
            try:
                with conn.begin_nested():
                    conn.execute(_CREATE, {**row, "total": max(change, 0), "created_at": now, "updated_at": now})
            except IntegrityError:  # created concurrently: apply the change to it
                conn.execute(_BUMP, bump)
        if delta < 0:
            conn.execute(delete(scope_counts).where(scope_counts.c.total <= 0))

    def list(self, org_id: str, project_id: str) -> list[EntityCount]:
        with self._db.connect() as conn:
            rows = conn.execute(
                select(scope_counts)
                .where(scope_counts.c.org_id == org_id, scope_counts.c.project_id == project_id)
                .order_by(scope_counts.c.updated_at.desc(), scope_counts.c.entity_type, scope_counts.c.entity_id)
            ).mappings()
            return [
                EntityCount(
                    r["entity_type"], r["entity_id"], int(r["total"]), as_utc(r["created_at"]), as_utc(r["updated_at"])
                )
                for r in rows
            ]

    def clear(self) -> None:
        with self._db.begin() as conn:
            conn.execute(delete(scope_counts))
