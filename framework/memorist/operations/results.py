"""How results look on the wire: memory items, search hits, add results, history rows, entities, events.

Every door shapes its answers with these functions, so a field added or fixed
here reaches the self-hosted API, the platform API, the queue's event results,
the dashboard and MCP at once. Where the two surfaces' contracts differ (the
platform's history rows carry ``input``/``metadata``/``updated_at``), both
shapes are defined here, side by side.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..engine.counts import EntityCount
from ..engine.hits import SearchHit
from ..engine.outcome import AddOutcome, Merged, Skipped
from ..engine.supersession import Links
from ..events import Event
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord

#: Fields of one stored memory in each door's add answer.
ADDED_SELFHOSTED = ("id", "memory", "event")
ADDED_PLATFORM = ("id", "memory", "event", "data", "user_id", "created_at", "observed_at")
ADDED_EVENT = (
    "id",
    "data",
    "event",
    "user_id",
    "agent_id",
    "run_id",
    "app_id",
    "categories",
    "created_at",
    "observed_at",
)


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def memory_item(record: MemoryRecord, links: Links | None = None) -> dict[str, Any]:
    """A stored memory on the wire; with ``links`` (get, list), its place among its fact's
    versions: ``linked_memory_ids`` (the older memories it superseded), ``superseded_by`` and
    ``superseded_at`` (null while it is current). Search results never carry them."""
    item: dict[str, Any] = {
        "id": record.id,
        "memory": record.text,
        "hash": record.hash,
        "metadata": record.metadata,
        "categories": record.categories,
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
        "expiration_date": iso(record.expires_at),
        "observed_at": iso(record.observed_at),
        "attributed_to": record.attributed_to,
    }
    for name in ENTITY_SCOPE_FIELDS:
        item[name] = getattr(record, name)
    if links is not None:
        item.update(links.wire())
    return item


def search_result(hit: SearchHit) -> dict[str, Any]:
    item = memory_item(hit.record)
    item["score"] = round(hit.score, 6)
    if hit.details is not None:
        item["score_details"] = hit.details
    return item


def pick(item: dict[str, Any], fields: Iterable[str] | None) -> dict[str, Any]:
    """Only the requested ``fields`` of an item (``id`` always stays); all of it when none are named."""
    wanted = list(fields or ())
    if not wanted:
        return item
    return {k: v for k, v in item.items() if k in wanted or k == "id"}


def added_item(record: MemoryRecord, fields: tuple[str, ...]) -> dict[str, Any]:
    """One stored memory of an add, with the fields a door's contract lists."""
    full: dict[str, Any] = {
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
    return {name: full[name] for name in fields}


def merged_item(merged: Merged) -> dict[str, Any]:
    """A fact the add did not store because ``memory_id`` already says it (docs/memory-rules.md)."""
    return {
        "memory": merged.text,
        "event": "MERGED",
        "memory_id": merged.memory_id,
        "matched_memory": merged.matched_memory,
        "reason": merged.reason,
        "similarity": round(merged.similarity, 4),
        "source_message": merged.source_message,
    }


def skipped_item(skipped: Skipped) -> dict[str, Any]:
    return {
        "memory": skipped.text,
        "event": "SKIPPED",
        "reason": skipped.reason,
        "source_message": skipped.source_message,
    }


@dataclass
class AddResult:
    """What an add did: ``stored`` memories plus what was ``merged`` or ``skipped`` (and why)."""

    stored: list[MemoryRecord]
    merged: list[Merged] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @classmethod
    def of(cls, outcome: AddOutcome) -> AddResult:
        return cls(list(outcome.stored), list(outcome.merged), list(outcome.skipped))

    def wire(self, fields: tuple[str, ...]) -> dict[str, Any]:
        """``{"results": [...]}`` plus ``merged`` / ``skipped`` when the add had any (every door)."""
        out: dict[str, Any] = {"results": [added_item(r, fields) for r in self.stored]}
        if self.merged:
            out["merged"] = [merged_item(m) for m in self.merged]
        if self.skipped:
            out["skipped"] = [skipped_item(s) for s in self.skipped]
        return out

    def event_results(self) -> list[dict[str, Any]]:
        """The ``results`` of a finished queued add: stored items, then merged and skipped ones."""
        wire = self.wire(ADDED_EVENT)
        return [*wire["results"], *wire.get("merged", []), *wire.get("skipped", [])]


def history_entry(row: dict[str, Any]) -> dict[str, Any]:
    """A history row as the self-hosted API (and the dashboard) shows it."""
    return {
        "id": row["id"],
        "memory_id": row["memory_id"],
        "event": row["event"],
        "old_memory": row["old_memory"],
        "new_memory": row["new_memory"],
        "old_metadata": row["old_metadata"],
        "new_metadata": row["new_metadata"],
        "actor": row["actor"],
        "role": row["role"],
        "created_at": iso(row["created_at"]),
        "input": row.get("input"),
        "linked_memory_ids": row.get("linked_memory_ids", []),
        "superseded_by": row.get("superseded_by"),
    }


def history_entry_v1(row: dict[str, Any]) -> dict[str, Any]:
    """A history row as the platform client reads it (``GET /v1/memories/{id}/history/``)."""
    return {
        "id": row["id"],
        "memory_id": row["memory_id"],
        "event": row["event"],
        "old_memory": row["old_memory"],
        "new_memory": row["new_memory"],
        "input": row.get("input"),
        "metadata": row["new_metadata"],
        "actor": row["actor"],
        "created_at": iso(row["created_at"]),
        "updated_at": iso(row["created_at"]),
        "linked_memory_ids": row.get("linked_memory_ids", []),
        "superseded_by": row.get("superseded_by"),
    }


def entity_row(count: EntityCount, *, named: bool = False) -> dict[str, Any]:
    """A user/agent/run/app with its memory count; ``named`` adds the platform's ``name``."""
    row: dict[str, Any] = {"id": count.entity_id}
    if named:
        row["name"] = count.entity_id
    row.update(
        type=count.entity_type,
        total_memories=count.total,
        created_at=iso(count.created_at),
        updated_at=iso(count.updated_at),
    )
    return row


#: The platform's three event states. RUNNING is the queue's internal lease state: a client polling
#: ``while status == "PENDING"`` must keep waiting while a worker holds the event, so it shows as PENDING.
SHOWN_STATUS = {"PENDING": "PENDING", "RUNNING": "PENDING", "SUCCEEDED": "SUCCEEDED", "FAILED": "FAILED"}


def event_view(event: Event) -> dict[str, Any]:
    """An add event as the platform shows it: PENDING until the memories are committed, then
    SUCCEEDED/FAILED (:data:`SHOWN_STATUS`). ``results`` are the stored memories (as before);
    what the add merged or skipped is in ``merged`` / ``skipped``, present when there was any."""
    items = event.results or []
    view: dict[str, Any] = {
        "id": event.id,
        "event_type": event.event_type,
        "status": SHOWN_STATUS.get(event.status, event.status),
        "results": [i for i in items if i.get("event") not in ("MERGED", "SKIPPED")],
        "error": event.error,
        "attempts": event.attempts,
        "latency": event.latency_ms,
        "created_at": iso(event.created_at),
        "updated_at": iso(event.updated_at),
        "started_at": iso(event.started_at),
        "finished_at": iso(event.finished_at),
    }
    for key, kind in (("merged", "MERGED"), ("skipped", "SKIPPED")):
        if found := [i for i in items if i.get("event") == kind]:
            view[key] = found
    return view
