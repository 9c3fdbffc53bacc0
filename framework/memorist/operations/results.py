"""What an add did and what a queued add shows: the add answers' models and :class:`AddResult`.

The stored memories of an add appear in three contracts, each a model here whose declared
fields *are* the contract (no field list beside it): :class:`AddedMemory` (self-hosted REST,
the Python import), :class:`AddedMemoryV3` (platform) and :class:`AddedMemoryEvent` (a queued
add's results, shown by the events routes). Every one is cut from the same full item, so a
value fixed in :func:`added_fields` reaches all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field

from ..engine.outcome import AddOutcome, Merged, Skipped
from ..queue.event_records import Event
from ..records import MemoryRecord
from .wire import MergedInput, SkippedPart, WireModel, iso


def added_fields(record: MemoryRecord) -> dict[str, Any]:
    """Every field any add answer may show of one stored memory."""
    return {
        "id": record.id,
        "memory": record.text,
        "event": "ADD",
        "data": {"memory": record.text},
        "user_id": record.user_id,
        "agent_id": record.agent_id,
        "run_id": record.run_id,
        "app_id": record.app_id,
        "categories": record.categories,
        "created_at": iso(record.created_at),
        "observed_at": iso(record.observed_at),
    }


class Added(WireModel):
    """A memory an add stored; a subclass's declared fields are the door's contract."""

    @classmethod
    def of(cls, record: MemoryRecord) -> Added:
        full = added_fields(record)
        return cls(**{name: full[name] for name in cls.model_fields})


class AddedMemory(Added):
    """Self-hosted REST: what was stored, by id."""

    id: str
    memory: str
    event: Literal["ADD"]


class AddedMemoryV3(Added):
    """The platform client's add item."""

    id: str
    memory: str
    event: Literal["ADD"]
    data: dict[str, Any]
    user_id: str | None
    created_at: str | None = None
    observed_at: str | None = None


class AddedMemoryEvent(Added):
    """One stored memory in a finished queued add's ``results``."""

    id: str
    data: dict[str, Any]
    event: Literal["ADD"]
    user_id: str | None
    agent_id: str | None
    run_id: str | None
    app_id: str | None
    categories: list[str]
    created_at: str | None
    observed_at: str | None


@dataclass
class AddResult:
    """What an add did: ``stored`` memories plus what was ``merged`` or ``skipped`` (and why)."""

    stored: list[MemoryRecord]
    merged: list[Merged] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @classmethod
    def of(cls, outcome: AddOutcome) -> AddResult:
        return cls(list(outcome.stored), list(outcome.merged), list(outcome.skipped))

    def wire(self, item: type[Added]) -> dict[str, Any]:
        """``{"results": [...]}`` plus ``merged`` / ``skipped`` when the add had any (every door);
        ``item`` is the door's model of a stored memory."""
        out: dict[str, Any] = {"results": [item.of(r).wire() for r in self.stored]}
        if self.merged:
            out["merged"] = [MergedInput.of(m).wire() for m in self.merged]
        if self.skipped:
            out["skipped"] = [SkippedPart.of(s).wire() for s in self.skipped]
        return out

    def event_results(self) -> list[dict[str, Any]]:
        """The ``results`` of a finished queued add: stored items, then merged and skipped ones."""
        wire = self.wire(AddedMemoryEvent)
        return [*wire["results"], *wire.get("merged", []), *wire.get("skipped", [])]


#: The platform's three event states. RUNNING is the queue's internal lease state: a client polling
#: ``while status == "PENDING"`` must keep waiting while a worker holds the event, so it shows as PENDING.
SHOWN_STATUS = {"PENDING": "PENDING", "RUNNING": "PENDING", "SUCCEEDED": "SUCCEEDED", "FAILED": "FAILED"}


class EventOut(WireModel):
    """A queued add: PENDING until its memories are committed, then SUCCEEDED or FAILED.
    ``results`` are the memories it stored; what it merged or skipped is in ``merged`` /
    ``skipped``, present when there was any."""

    id: str
    event_type: str
    status: Literal["PENDING", "SUCCEEDED", "FAILED"] = Field(
        description="PENDING until the memories are committed and listable (a worker's lease shows as PENDING)"
    )
    results: list[dict[str, Any]]
    error: str | None
    attempts: int
    latency: float | None
    created_at: str | None
    updated_at: str | None
    started_at: str | None
    finished_at: str | None
    merged: list[MergedInput] | None = None
    skipped: list[SkippedPart] | None = None

    @classmethod
    def of(cls, event: Event) -> EventOut:
        items = event.results or []
        extra: dict[str, Any] = {}
        # Stored rows are shown as stored (model_construct: a row from an older release is not refused).
        for key, kind, model in (("merged", "MERGED", MergedInput), ("skipped", "SKIPPED", SkippedPart)):
            if found := [model.model_construct(**i) for i in items if i.get("event") == kind]:
                extra[key] = found
        return cls(
            id=event.id,
            event_type=event.event_type,
            status=SHOWN_STATUS.get(event.status, event.status),
            results=[i for i in items if i.get("event") not in ("MERGED", "SKIPPED")],
            error=event.error,
            attempts=event.attempts,
            latency=event.latency_ms,
            created_at=iso(event.created_at),
            updated_at=iso(event.updated_at),
            started_at=iso(event.started_at),
            finished_at=iso(event.finished_at),
            **extra,
        )
