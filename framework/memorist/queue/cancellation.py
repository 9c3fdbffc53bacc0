"""Stopping the queued and running adds of an entity whose memories are being deleted.

Kept apart from :mod:`.events` (the queue's producers, claims and readers) because it
is one protocol between two parties that never meet: a delete of every memory of an
entity, and the workers running that entity's adds. No add accepted before the delete
may bring a memory back after it:

- a queued (``PENDING``) add is cancelled outright (``FAILED``, :data:`CANCELLED_ERROR`);
- a running one cannot be stopped from the deleting process, so it is flagged
  (``cancel_requested``). Every write its worker makes requires
  :func:`may_proceed`, so its next one -- noting the ids it is about to write, or
  committing -- is refused; the worker asks :func:`cancel_requested` why, removes
  what it wrote, and ends the add with :func:`end_cancelled`
  (:data:`CANCELLED_RUNNING_ERROR`).

:class:`~.events.EventStore` offers these as its methods; the lease conditions
(:func:`held`, :func:`may_proceed`) are shared with its other worker writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, select, update
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.schema import events
from ..records import utcnow
from .event_records import CANCELLED_ERROR, CANCELLED_RUNNING_ERROR, FAILED, PENDING, RUNNING, SUCCEEDED, Event


@dataclass(frozen=True)
class Cancellation:
    """What :meth:`EventStore.cancel_queued` stopped of one entity's adds."""

    #: Queued adds ended FAILED at once.
    queued: int
    #: Running adds asked to stop (their workers end them FAILED).
    running: int
    #: Memory ids those adds noted before writing: vectors that may be in the store although
    #: no relational row (history, count, entity link) records them, since no such add committed.
    unfinished_ids: tuple[str, ...]


def held(event: Event, owner: str) -> Any:
    """The event is still running under ``owner``'s lease."""
    return and_(events.c.id == event.id, events.c.lease_owner == owner, events.c.status == RUNNING)


def may_proceed(event: Event, owner: str) -> Any:
    """Held, and no delete of the add's entity has asked it to stop: what every write of a worker requires."""
    return and_(held(event, owner), events.c.cancel_requested == 0)


def cancel_requested(db: Database, event: Event, owner: str, conn: Connection | None = None) -> bool:
    """Whether ``owner`` still holds ``event`` and a delete of its entity asked it to stop: why
    a worker's write was refused, when it was not a lost lease. ``conn``: read in the caller's
    transaction (the one its commit ran in)."""
    query = select(events.c.id).where(held(event, owner), events.c.cancel_requested == 1)
    if conn is not None:
        return conn.execute(query).first() is not None
    with db.connect() as own:
        return own.execute(query).first() is not None


def end_cancelled(db: Database, event: Event, owner: str) -> bool:
    """FAILED (:data:`CANCELLED_RUNNING_ERROR`) for a running add stopped by a delete of its
    entity, once its worker removed what it wrote; False if the lease was lost meanwhile."""
    now = utcnow()
    with db.begin() as conn:
        return bool(
            conn.execute(
                update(events)
                .where(held(event, owner))
                .values(
                    status=FAILED,
                    error=CANCELLED_RUNNING_ERROR,
                    lease_owner=None,
                    lease_expires_at=None,
                    finished_at=now,
                    updated_at=now,
                )
            ).rowcount
        )


def _matches(payload: dict[str, Any], ids: dict[str, str]) -> bool:
    """Whether a queued add's payload is one of the entities a delete names: every concrete id
    equal, and (when wildcards are given) at least one of the wildcard types present."""
    wild = [f for f, v in ids.items() if v == "*"]
    if not all(payload.get(f) == v for f, v in ids.items() if v != "*"):
        return False
    return not wild or any(payload.get(f) is not None for f in wild)


def cancel_queued(db: Database, org_id: str, project_id: str, ids: dict[str, str]) -> Cancellation:
    """Stop every add of the entity ``ids`` names accepted so far: its memories are being
    deleted, and no add accepted before the delete may bring one back.

    A PENDING add is FAILED at once (:data:`CANCELLED_ERROR`). A RUNNING one cannot be
    stopped from here, so it is flagged (``cancel_requested``): its worker's next write
    (``plan`` before writing vectors, ``succeed`` committing) is refused, and the
    worker removes what it wrote and ends it FAILED (:data:`CANCELLED_RUNNING_ERROR`).

    The candidates are read first and each update requires the status it expects, so an
    add claimed (PENDING to RUNNING) or failed back to PENDING in between is caught by the
    other. The noted ids are read last, in the same transaction: a worker's ``plan`` waits
    for it and is then refused, so no stopped add writes ids the caller was not given.
    """
    now = utcnow()
    waiting_or_running = and_(
        events.c.org_id == org_id, events.c.project_id == project_id, events.c.status.in_((PENDING, RUNNING))
    )
    with db.begin() as conn:
        rows = conn.execute(select(events.c.id, events.c.payload).where(waiting_or_running)).all()
        doomed = [row.id for row in rows if _matches(row.payload or {}, ids)]
        if not doomed:
            return Cancellation(queued=0, running=0, unfinished_ids=())
        queued = conn.execute(
            update(events)
            .where(events.c.id.in_(doomed), events.c.status == PENDING)
            .values(status=FAILED, error=CANCELLED_ERROR, finished_at=now, updated_at=now)
        ).rowcount
        running = conn.execute(
            update(events)
            .where(events.c.id.in_(doomed), events.c.status == RUNNING)
            .values(cancel_requested=1, updated_at=now)
        ).rowcount
        # Not a SUCCEEDED one (finished between the read and the updates): its ids are stored memories.
        noted = conn.execute(
            select(events.c.planned_ids).where(events.c.id.in_(doomed), events.c.status != SUCCEEDED)
        ).scalars()
        planned = sorted({memory_id for memory_ids in noted for memory_id in memory_ids or ()})
    return Cancellation(queued=int(queued or 0), running=int(running or 0), unfinished_ids=tuple(planned))
