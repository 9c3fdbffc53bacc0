"""Running one queued add (the worker's door onto the operations layer).

Processing an event is idempotent. Before writing vectors the ids about to be
written are noted on the event; the relational rows (history, entity links,
counts) and ``SUCCEEDED`` with the shaped results commit in one transaction.
A worker killed in between leaves the event RUNNING with an expired lease; the
next worker deletes the noted vectors and redoes the add, so the memories are
stored exactly once. Memory ids derive from the event id, so a redo of a
deterministic extraction writes the same ids.

A delete of every memory of the add's entity may arrive while it runs
(:meth:`memorist.queue.events.EventStore.cancel_queued` flags the event). Noting the
ids and committing both require the flag unset, so the add stops at whichever
comes next: before noting, nothing is written; before committing, the relational
rows roll back and the vectors already written are removed. Either way the event
ends FAILED (:data:`memorist.queue.events.CANCELLED_RUNNING_ERROR`) and nothing it
extracted outlives the delete.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy.engine import Connection

from ..engine.memory import MemoryEngine
from ..engine.outcome import AddOutcome
from ..queue.events import Event, EventStore
from .results import AddResult

log = logging.getLogger("memorist.worker")


class LeaseLost(Exception):
    """Another worker took the event over (this one was too slow); its work is discarded."""


class AddCancelled(Exception):
    """The memories of the add's entity were deleted while it ran: it must leave nothing behind."""


def run_add_event(memory: MemoryEngine, events: EventStore, event: Event, owner: str) -> AddResult | None:
    """Process ``event`` (claimed by ``owner``) on ``memory``; raises :class:`LeaseLost` when overtaken.

    None when a delete of the add's entity cancelled it (the event is then FAILED, and what
    it wrote is gone).
    """
    # What an interrupted attempt may have written, then what this one notes: all of it goes if cancelled.
    written = list(event.planned_ids or ())
    if event.cancel_requested:  # flagged before this attempt: its last worker stopped or failed after the delete
        abandon(memory, events, event, owner, written)
        return None
    request = memory.add_request(**{**event.payload, "id_seed": event.id})

    def refusal(conn: Connection | None = None) -> Exception:
        """Why a conditional write was refused: the entity was deleted, or the lease was lost."""
        return AddCancelled(event.id) if events.cancel_requested(event, owner, conn) else LeaseLost(event.id)

    def plan(ids: list[str]) -> None:
        if not events.plan(event, owner, ids):
            raise refusal()
        written.extend(ids)

    def commit(conn: Connection, outcome: AddOutcome) -> None:
        if not events.succeed(conn, event, owner, AddResult.of(outcome).event_results()):
            raise refusal(conn)  # rolls the relational rows back

    try:
        outcome = memory.add_durably(request, discard=event.planned_ids or (), plan=plan, commit=commit)
    except AddCancelled:
        abandon(memory, events, event, owner, written)
        return None
    return AddResult.of(outcome)


def abandon(memory: MemoryEngine, events: EventStore, event: Event, owner: str, written: Sequence[str]) -> None:
    """End a cancelled add: the vectors it wrote go (its relational rows never committed), then
    the event is FAILED. In this order, so a worker dying in between leaves the event to be
    taken over and abandoned again rather than vectors no event accounts for."""
    removed = memory.drop_unrecorded(list(dict.fromkeys(written)))
    if events.end_cancelled(event, owner):
        log.info("event %s: cancelled while running, its entity was deleted (%d vectors removed)", event.id, removed)
    else:
        raise LeaseLost(event.id)
