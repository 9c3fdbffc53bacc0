"""The durable event queue of asynchronous adds.

An add is acknowledged (``PENDING`` with an event id) only after its whole
payload is committed. Workers claim an event with a lease: a conditional
UPDATE that only one claimant can win (on PostgreSQL the candidate is picked
with ``FOR UPDATE SKIP LOCKED``; on SQLite the write lock serializes claims
across processes). A worker that dies leaves a lease that expires, and
another worker takes the event over. Failures retry with exponential backoff
up to ``max_attempts``, then the event is ``FAILED`` with the error.

A worker renews its lease while it processes (see :mod:`memorist.kernel.add_worker`), so
an add that takes longer than one lease is not taken over while it is still
being worked on. ``max_attempts`` is enforced when claiming too: an event whose
lease expired after its last attempt (the worker died or hung every time)
becomes ``FAILED`` with a fixed message instead of being claimed again, so no
event can be re-run forever.

Back-pressure has two budgets: the whole deployment (``max_pending``) and each
organization (``max_pending_per_org``), so one tenant's burst cannot refuse
every other tenant's adds. The tenant's budget is its organization's, shared by
all its projects: an OWNER may create projects at will, and a budget per project
would let one OWNER multiply it until the deployment's queue is full and a
fresh tenant's first add is refused. Organizations are made by a deployment
admin only. The 429 answer says which budget was hit, never how deep the queue
is. Claims take turns between projects: while other projects
have adds waiting, a project that already has an add running waits its turn.

A delete of every memory of an entity (:meth:`EventStore.cancel_queued`) stops
every add of that entity accepted before it: a queued one is cancelled outright,
a running one is flagged (``cancel_requested``) and its worker's next conditional
write -- noting the ids it is about to write, or committing -- is refused, so it
writes nothing, or removes what it wrote and never commits it. That protocol lives
in :mod:`.event_cancellation`.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.schema import events
from ..errors import NotFoundError
from ..records import utcnow
from . import cancellation as event_cancellation
from .cancellation import Cancellation, held, may_proceed
from .event_records import (  # re-exported: readers import them from here
    CANCELLED_ERROR,
    CANCELLED_RUNNING_ERROR,
    EXHAUSTED_ERROR,
    FAILED,
    PENDING,
    RUNNING,
    SUCCEEDED,
    Event,
    QueueFull,
)

__all__ = [
    "CANCELLED_ERROR",
    "CANCELLED_RUNNING_ERROR",
    "EXHAUSTED_ERROR",
    "FAILED",
    "PENDING",
    "RUNNING",
    "SUCCEEDED",
    "Cancellation",
    "Event",
    "EventStore",
    "QueueFull",
]


class EventStore:
    def __init__(
        self,
        db: Database,
        *,
        lease_seconds: float,
        max_attempts: int,
        backoff_seconds: float,
        max_pending: int,
        max_pending_per_org: int | None = None,
    ) -> None:
        self._db = db
        self.lease_seconds = lease_seconds
        self._lease = timedelta(seconds=lease_seconds)
        self.max_attempts = max_attempts
        self._backoff = backoff_seconds
        self._max_pending = max_pending
        self._max_per_org = max_pending_per_org or max_pending

    @classmethod
    def from_settings(cls, db: Database, queue: Any) -> EventStore:
        """From the ``queue`` section of the settings (:class:`memorist.config.settings.QueueSettings`)."""
        return cls(
            db,
            lease_seconds=queue.lease_seconds,
            max_attempts=queue.max_attempts,
            backoff_seconds=queue.backoff_seconds,
            max_pending=queue.max_pending,
            max_pending_per_org=queue.max_pending_per_org,
        )

    # -- producers -----------------------------------------------------------------
    def submit(self, org_id: str, project_id: str, payload: dict[str, Any], event_type: str = "ADD") -> Event:
        """Commit the event and its payload; only then may the caller acknowledge it.

        The budgets are checked before the insert, not atomically with it: concurrent
        submits may overshoot a budget by a few events, which back-pressure tolerates.
        """
        if self.backlog(org_id) >= self._max_per_org:
            raise QueueFull(
                "this organization has as many adds waiting as one organization may have, "
                "counted over all its projects (queue.max_pending_per_org); retry later",
                5,
            )
        if self.backlog() >= self._max_pending:
            raise QueueFull("the server has too many adds waiting; retry later", 5)
        return self._insert(org_id, project_id, payload, event_type, status=PENDING, attempts=0)

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
        return self._insert(org_id, project_id, payload, event_type, status=SUCCEEDED, attempts=1, results=results)

    def submit_many(self, org_id: str, project_id: str, payloads: list[dict[str, Any]]) -> list[Event]:
        """Queue a batch of adds, one event each, committed together: all acknowledged or none.

        The batch must fit the budgets whole (a 429 otherwise, nothing queued), so a client
        never holds a half-queued batch.
        """
        waiting = self.backlog(org_id)
        if waiting + len(payloads) > self._max_per_org:
            raise QueueFull(
                f"this batch of {len(payloads)} adds does not fit this organization's queue "
                f"({waiting} waiting over all its projects, queue.max_pending_per_org {self._max_per_org}); "
                "retry later or send smaller batches",
                5,
            )
        if self.backlog() + len(payloads) > self._max_pending:
            raise QueueFull("the server has too many adds waiting for this batch; retry later", 5)
        # One microsecond apart: workers claim the oldest first, so a batch is taken in its order.
        start = utcnow()
        rows = [
            self._row(org_id, project_id, p, "ADD", status=PENDING, attempts=0, now=start + timedelta(microseconds=i))
            for i, p in enumerate(payloads)
        ]
        return self._insert_rows(rows)

    def record_many(
        self, org_id: str, project_id: str, done: list[tuple[dict[str, Any], list[dict[str, Any]]]]
    ) -> list[Event]:
        """Finished events (see :meth:`record`) for a batch already stored, one per add, in one commit."""
        rows = [
            self._row(org_id, project_id, payload, "ADD", status=SUCCEEDED, attempts=1, results=results)
            for payload, results in done
        ]
        return self._insert_rows(rows)

    def _insert_rows(self, rows: list[dict[str, Any]]) -> list[Event]:
        if rows:
            with self._db.begin() as conn:
                conn.execute(insert(events), rows)
        return [Event.from_row(row) for row in rows]

    def _insert(
        self,
        org_id: str,
        project_id: str,
        payload: dict[str, Any],
        event_type: str,
        *,
        status: str,
        attempts: int,
        results: list[dict[str, Any]] | None = None,
    ) -> Event:
        """One new event row: queued (``PENDING``, no start yet) or born finished (``SUCCEEDED``)."""
        row = self._row(org_id, project_id, payload, event_type, status=status, attempts=attempts, results=results)
        return self._insert_rows([row])[0]

    def _row(
        self,
        org_id: str,
        project_id: str,
        payload: dict[str, Any],
        event_type: str,
        *,
        status: str,
        attempts: int,
        results: list[dict[str, Any]] | None = None,
        now: datetime | None = None,
    ) -> dict[str, Any]:
        now = now or utcnow()
        finished = status == SUCCEEDED
        row = {
            "id": str(uuid.uuid4()),
            "org_id": org_id,
            "project_id": project_id,
            "event_type": event_type,
            "status": status,
            "payload": payload,
            "results": results,
            "planned_ids": None,
            "error": None,
            "attempts": attempts,
            "lease_owner": None,
            "lease_expires_at": None,
            "available_at": now,
            "created_at": now,
            "updated_at": now,
            "started_at": now if finished else None,
            "finished_at": now if finished else None,
            "cancel_requested": 0,
        }
        return row

    def backlog(self, org_id: str | None = None, project_id: str | None = None) -> int:
        """Events waiting or running: in the whole deployment, one organization, or one project."""
        query = select(func.count()).select_from(events).where(events.c.status.in_((PENDING, RUNNING)))
        if org_id is not None:
            query = query.where(events.c.org_id == org_id)
        if project_id is not None:
            query = query.where(events.c.project_id == project_id)
        with self._db.connect() as conn:
            return int(conn.execute(query).scalar() or 0)

    # -- workers -------------------------------------------------------------------
    def _claimable(self, now: datetime) -> Any:
        return or_(
            and_(events.c.status == PENDING, events.c.available_at <= now),
            and_(events.c.status == RUNNING, events.c.lease_expires_at < now),
        )

    def _exhausted(self, now: datetime) -> Any:
        """Claimable, but the last attempt has been used: to be FAILED, never run again."""
        return and_(self._claimable(now), events.c.attempts >= self.max_attempts)

    def claim(self, owner: str) -> Event | None:
        """Lease the oldest claimable event to ``owner``; None when there is nothing to do.

        Events whose attempts are used up are marked FAILED first, in the same
        transaction, so they are never picked.
        """
        now = utcnow()
        with self._db.begin() as conn:
            # Look before writing: an UPDATE takes SQLite's write lock even when it matches nothing.
            if conn.execute(select(events.c.id).where(self._exhausted(now)).limit(1)).first() is not None:
                self._fail_exhausted(conn, now)
            runnable = and_(self._claimable(now), events.c.attempts < self.max_attempts)
            event_id = self._pick(conn, runnable, now)
            if event_id is None:
                return None
            won = conn.execute(
                update(events)
                .where(events.c.id == event_id, runnable)
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

    def _pick(self, conn: Connection, runnable: Any, now: datetime) -> str | None:
        """The oldest runnable event of a project none of whose events is running, else the oldest at all.

        Fair turns: a project with a thousand queued adds gets one worker while other
        projects have adds waiting, instead of every worker until its backlog is gone.
        The running projects are few (at most one per worker), so they are read first.
        """
        busy = conn.execute(
            select(events.c.org_id, events.c.project_id)
            .where(events.c.status == RUNNING, events.c.lease_expires_at >= now)
            .distinct()
        ).all()
        choices = [runnable]
        if busy:
            others = ~or_(*(and_(events.c.org_id == o, events.c.project_id == p) for o, p in busy))
            choices.insert(0, and_(runnable, others))
        for where in choices:
            pick = select(events.c.id).where(where).order_by(events.c.available_at).limit(1)
            if not self._db.is_sqlite:
                pick = pick.with_for_update(skip_locked=True)
            event_id = conn.execute(pick).scalar()
            if event_id is not None:
                return str(event_id)
        return None

    def _fail_exhausted(self, conn: Connection, now: datetime) -> None:
        conn.execute(
            update(events)
            .where(self._exhausted(now))
            .values(
                status=FAILED,
                error=EXHAUSTED_ERROR,
                lease_owner=None,
                lease_expires_at=None,
                finished_at=now,
                updated_at=now,
            )
        )

    def renew(self, event: Event, owner: str) -> bool:
        """Extend ``owner``'s lease (the heartbeat of a worker still processing); False if it was lost."""
        now = utcnow()
        with self._db.begin() as conn:
            return bool(
                conn.execute(
                    update(events).where(held(event, owner)).values(lease_expires_at=now + self._lease, updated_at=now)
                ).rowcount
            )

    def plan(self, event: Event, owner: str, memory_ids: list[str]) -> bool:
        """Note the memory ids about to be written (a retry cleans them up); False if the lease was
        lost or the entity's memories were deleted meanwhile (:meth:`cancel_requested` tells which)."""
        with self._db.begin() as conn:
            return bool(
                conn.execute(
                    update(events)
                    .where(may_proceed(event, owner))
                    .values(planned_ids=memory_ids, lease_expires_at=utcnow() + self._lease, updated_at=utcnow())
                ).rowcount
            )

    def succeed(self, conn: Connection, event: Event, owner: str, results: list[dict[str, Any]]) -> bool:
        """Mark done inside the caller's transaction (with the memories' relational rows); False,
        for the caller to roll back, if the lease was lost or the entity's memories were deleted
        meanwhile (:meth:`cancel_requested` tells which)."""
        now = utcnow()
        return bool(
            conn.execute(
                update(events)
                .where(may_proceed(event, owner))
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

    def cancel_requested(self, event: Event, owner: str, conn: Connection | None = None) -> bool:
        """Why :meth:`plan` or :meth:`succeed` refused, when it was not a lost lease
        (:func:`.event_cancellation.cancel_requested`)."""
        return event_cancellation.cancel_requested(self._db, event, owner, conn)

    def end_cancelled(self, event: Event, owner: str) -> bool:
        """End a running add a delete stopped (:func:`.event_cancellation.end_cancelled`)."""
        return event_cancellation.end_cancelled(self._db, event, owner)

    def cancel_queued(self, org_id: str, project_id: str, ids: dict[str, str]) -> Cancellation:
        """Stop every add of the entity ``ids`` names accepted so far: queued ones at once, running
        ones at their next write (:func:`.event_cancellation.cancel_queued`)."""
        return event_cancellation.cancel_queued(self._db, org_id, project_id, ids)

    def prune(self, older_than: timedelta) -> int:
        """Delete finished events (their stored payloads and results) older than ``older_than``."""
        cutoff = utcnow() - older_than
        with self._db.begin() as conn:
            done = and_(events.c.status.in_((SUCCEEDED, FAILED)), events.c.finished_at < cutoff)
            return int(conn.execute(delete(events).where(done)).rowcount or 0)

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
