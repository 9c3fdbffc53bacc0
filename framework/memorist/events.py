"""The durable event queue of asynchronous adds.

An add is acknowledged (``PENDING`` with an event id) only after its whole
payload is committed. Workers claim an event with a lease: a conditional
UPDATE that only one claimant can win (on PostgreSQL the candidate is picked
with ``FOR UPDATE SKIP LOCKED``; on SQLite the write lock serializes claims
across processes). A worker that dies leaves a lease that expires, and
another worker takes the event over. Failures retry with exponential backoff
up to ``max_attempts``, then the event is ``FAILED`` with the error.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.engine import Connection

from .db import Database
from .db.schema import events
from .errors import MemoristError, NotFoundError
from .records import as_utc, utcnow

PENDING, RUNNING, SUCCEEDED, FAILED = "PENDING", "RUNNING", "SUCCEEDED", "FAILED"


class QueueFull(MemoristError):
    """Back-pressure: the queue is longer than its bound; retry later."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Event:
    id: str
    org_id: str
    project_id: str
    event_type: str
    status: str
    payload: dict[str, Any]
    results: list[dict[str, Any]] | None
    planned_ids: list[str] | None
    error: str | None
    attempts: int
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None
    finished_at: datetime | None

    @classmethod
    def from_row(cls, row: Any) -> Event:
        return cls(
            id=row["id"],
            org_id=row["org_id"],
            project_id=row["project_id"],
            event_type=row["event_type"],
            status=row["status"],
            payload=row["payload"],
            results=row["results"],
            planned_ids=row["planned_ids"],
            error=row["error"],
            attempts=row["attempts"],
            created_at=as_utc(row["created_at"]),
            updated_at=as_utc(row["updated_at"]),
            started_at=as_utc(row["started_at"]),
            finished_at=as_utc(row["finished_at"]),
        )

    @property
    def latency_ms(self) -> float | None:
        if self.finished_at is None:
            return None
        return round((self.finished_at - self.created_at).total_seconds() * 1000, 3)


class EventStore:
    def __init__(
        self, db: Database, *, lease_seconds: float, max_attempts: int, backoff_seconds: float, max_pending: int
    ) -> None:
        self._db = db
        self._lease = timedelta(seconds=lease_seconds)
        self.max_attempts = max_attempts
        self._backoff = backoff_seconds
        self._max_pending = max_pending

    # -- producers -----------------------------------------------------------------
    def submit(self, org_id: str, project_id: str, payload: dict[str, Any], event_type: str = "ADD") -> Event:
        """Commit the event and its payload; only then may the caller acknowledge it."""
        waiting = self.backlog()
        if waiting >= self._max_pending:
            raise QueueFull(f"the add queue holds {waiting} events (limit {self._max_pending}); retry later", 5)
        now = utcnow()
        row = {
            "id": str(uuid.uuid4()),
            "org_id": org_id,
            "project_id": project_id,
            "event_type": event_type,
            "status": PENDING,
            "payload": payload,
            "results": None,
            "planned_ids": None,
            "error": None,
            "attempts": 0,
            "lease_owner": None,
            "lease_expires_at": None,
            "available_at": now,
            "created_at": now,
            "updated_at": now,
            "started_at": None,
            "finished_at": None,
        }
        with self._db.begin() as conn:
            conn.execute(insert(events).values(**row))
        return Event.from_row(row)

    def record(
        self,
        org_id: str,
        project_id: str,
        payload: dict[str, Any],
        results: list[dict[str, Any]],
        event_type: str = "ADD",
    ) -> Event:
        """A finished (``SUCCEEDED``) event for work already done synchronously (``infer=false`` adds).

        The platform acknowledges every add with an ``event_id``; a verbatim add is stored at
        once, so its event is born finished and never enters the queue (no lease, no worker).
        """
        now = utcnow()
        row = {
            "id": str(uuid.uuid4()),
            "org_id": org_id,
            "project_id": project_id,
            "event_type": event_type,
            "status": SUCCEEDED,
            "payload": payload,
            "results": results,
            "planned_ids": None,
            "error": None,
            "attempts": 1,
            "lease_owner": None,
            "lease_expires_at": None,
            "available_at": now,
            "created_at": now,
            "updated_at": now,
            "started_at": now,
            "finished_at": now,
        }
        with self._db.begin() as conn:
            conn.execute(insert(events).values(**row))
        return Event.from_row(row)

    def backlog(self) -> int:
        with self._db.connect() as conn:
            return int(
                conn.execute(
                    select(func.count()).select_from(events).where(events.c.status.in_((PENDING, RUNNING)))
                ).scalar()
                or 0
            )

    # -- workers -------------------------------------------------------------------
    def _claimable(self, now: datetime) -> Any:
        return or_(
            and_(events.c.status == PENDING, events.c.available_at <= now),
            and_(events.c.status == RUNNING, events.c.lease_expires_at < now),
        )

    def claim(self, owner: str) -> Event | None:
        """Lease the oldest claimable event to ``owner``; None when there is nothing to do."""
        now = utcnow()
        with self._db.begin() as conn:
            pick = select(events.c.id).where(self._claimable(now)).order_by(events.c.available_at).limit(1)
            if not self._db.is_sqlite:
                pick = pick.with_for_update(skip_locked=True)
            event_id = conn.execute(pick).scalar()
            if event_id is None:
                return None
            won = conn.execute(
                update(events)
                .where(events.c.id == event_id, self._claimable(now))
                .values(
                    status=RUNNING,
                    lease_owner=owner,
                    lease_expires_at=now + self._lease,
                    attempts=events.c.attempts + 1,
                    started_at=func.coalesce(events.c.started_at, now),
                    updated_at=now,
                )
            ).rowcount
            if not won:
                return None
            row = conn.execute(select(events).where(events.c.id == event_id)).mappings().one()
        return Event.from_row(row)

    def plan(self, event: Event, owner: str, memory_ids: list[str]) -> bool:
        """Note the memory ids about to be written (a retry cleans them up); False if the lease was lost."""
        with self._db.begin() as conn:
            return bool(
                conn.execute(
                    update(events)
                    .where(events.c.id == event.id, events.c.lease_owner == owner, events.c.status == RUNNING)
                    .values(planned_ids=memory_ids, lease_expires_at=utcnow() + self._lease, updated_at=utcnow())
                ).rowcount
            )

    def succeed(self, conn: Connection, event: Event, owner: str, results: list[dict[str, Any]]) -> bool:
        """Mark done inside the caller's transaction (with the memories' relational rows)."""
        now = utcnow()
        return bool(
            conn.execute(
                update(events)
                .where(events.c.id == event.id, events.c.lease_owner == owner, events.c.status == RUNNING)
                .values(
                    status=SUCCEEDED,
                    results=results,
                    error=None,
                    lease_owner=None,
                    lease_expires_at=None,
                    finished_at=now,
                    updated_at=now,
                )
            ).rowcount
        )

    def fail(self, event: Event, owner: str, error: str) -> str:
        """Retry later with backoff, or FAILED after the last attempt; returns the new status."""
        now = utcnow()
        final = event.attempts >= self.max_attempts
        values: dict[str, Any] = {
            "error": error[:4000],
            "lease_owner": None,
            "lease_expires_at": None,
            "updated_at": now,
        }
        if final:
            values.update(status=FAILED, finished_at=now)
        else:
            values.update(
                status=PENDING, available_at=now + timedelta(seconds=self._backoff * 2 ** (event.attempts - 1))
            )
        with self._db.begin() as conn:
            conn.execute(update(events).where(events.c.id == event.id, events.c.lease_owner == owner).values(**values))
        return FAILED if final else PENDING

    # -- readers -------------------------------------------------------------------
    def get(self, event_id: str, org_id: str | None = None, project_id: str | None = None) -> Event:
        query = select(events).where(events.c.id == event_id)
        if org_id is not None:
            query = query.where(events.c.org_id == org_id, events.c.project_id == project_id)
        with self._db.connect() as conn:
            row = conn.execute(query).mappings().first()
        if row is None:
            raise NotFoundError(f"event '{event_id}' not found")
        return Event.from_row(row)

    def list(self, org_id: str, project_id: str, offset: int, limit: int) -> tuple[list[Event], int]:
        scope = and_(events.c.org_id == org_id, events.c.project_id == project_id)
        with self._db.connect() as conn:
            total = int(conn.execute(select(func.count()).select_from(events).where(scope)).scalar() or 0)
            rows = conn.execute(
                select(events)
                .where(scope)
                .order_by(events.c.created_at.desc(), events.c.id)
                .offset(offset)
                .limit(limit)
            ).mappings()
            return [Event.from_row(r) for r in rows], total
