"""Running one queued add (the worker's door onto the operations layer).

Processing an event is idempotent. Before writing vectors the ids about to be
written are noted on the event; the relational rows (history, entity links,
counts) and ``SUCCEEDED`` with the shaped results commit in one transaction.
A worker killed in between leaves the event RUNNING with an expired lease; the
next worker deletes the noted vectors and redoes the add, so the memories are
stored exactly once. Memory ids derive from the event id, so a redo of a
deterministic extraction writes the same ids.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection

from ..engine.memory import Memory
from ..engine.outcome import AddOutcome
from ..events import Event, EventStore
from .results import AddResult


class LeaseLost(Exception):
    """Another worker took the event over (this one was too slow); its work is discarded."""


def run_add_event(memory: Memory, events: EventStore, event: Event, owner: str) -> AddResult:
    """Process ``event`` (claimed by ``owner``) on ``memory``; raises :class:`LeaseLost` when overtaken."""
    request = memory.add_request(**{**event.payload, "id_seed": event.id})

    def plan(ids: list[str]) -> None:
        if not events.plan(event, owner, ids):
            raise LeaseLost(event.id)

    def commit(conn: Connection, outcome: AddOutcome) -> None:
        if not events.succeed(conn, event, owner, AddResult.of(outcome).event_results()):
            raise LeaseLost(event.id)  # rolls the relational rows back

    return AddResult.of(memory.add_durably(request, discard=event.planned_ids or (), plan=plan, commit=commit))
