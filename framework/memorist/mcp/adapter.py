"""The one place the MCP tools reach Memorist: the operations layer, with the connection's confinement.

Every tool goes through :class:`MemoryAccess`. The operations layer
(:mod:`memorist.operations`) owns the rules every door shares (the scope
rule, confinement to the organization and project, validation of an update,
what an add stored, merged and skipped); the caller's role and its user/agent pins
(:class:`~memorist.operations.Caller`) are checked there too, the same as on
every door; this module adds what is MCP's own: compact result shapes for a
model's context window, with the scope a call ran in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ..engine.supersession import Links
from ..errors import ValidationError
from ..operations import AddInput, Caller, EntityIds, ListInput, Operations, SearchInput, UpdateInput
from ..operations.confine import entity_tally
from ..operations.results import AddResult
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value is not None else None


def compact(record: MemoryRecord, links: Links | None = None) -> dict[str, Any]:
    """A memory as a model needs it: no hashes, no nulls, no empty fields; with ``links``, the
    older memories it replaced and what replaced it, when there are any."""
    item: dict[str, Any] = {"id": record.id, "memory": record.text}
    for name in ENTITY_SCOPE_FIELDS:
        if (value := getattr(record, name)) is not None:
            item[name] = value
    if record.categories:
        item["categories"] = record.categories
    if record.metadata:
        item["metadata"] = record.metadata
    item["observed_at"] = _iso(record.observed_at)
    if record.updated_at != record.created_at:
        item["updated_at"] = _iso(record.updated_at)
    if record.expires_at is not None:
        item["expiration_date"] = _iso(record.expires_at)
    if links is not None and links.linked_memory_ids:
        item["linked_memory_ids"] = list(links.linked_memory_ids)
    if links is not None and links.superseded_by is not None:
        item["superseded_by"] = links.superseded_by
        item["superseded_at"] = _iso(links.superseded_at)
    return item


def compact_add(result: AddResult, ids: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"stored": [{"id": r.id, "memory": r.text} for r in result.stored]}
    if result.merged:
        out["merged"] = [{"memory": m.text, "into": m.memory_id, "reason": m.reason} for m in result.merged]
    if result.skipped:
        out["skipped"] = [{"memory": s.text, "reason": s.reason} for s in result.skipped]
    if not (result.stored or result.merged or result.skipped):
        out["note"] = "nothing was stored: no lasting facts found in the text"
    out["scope"] = dict(ids)
    return out


class MemoryAccess:
    """Scope-checked memory operations for one server (stdio or HTTP)."""

    def __init__(self, operations: Callable[[], Operations]) -> None:
        #: Called per tool call: stdio builds the kernel in the background and waits for it here.
        self._operations = operations

    # -- writes ------------------------------------------------------------------------
    def add(
        self,
        caller: Caller,
        messages: Sequence[Mapping[str, Any]],
        requested: Mapping[str, str | None],
        *,
        metadata: Mapping[str, Any] | None,
        timestamp: str | float | None,
        expiration_date: str | None,
        infer: bool,
    ) -> dict[str, Any]:
        ids = caller.ids(requested)
        request = AddInput(
            messages=[dict(m) for m in messages],
            ids=EntityIds(**ids),
            metadata=dict(metadata) if metadata is not None else None,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
        )
        operations = self._operations()
        operations.admit_add(request)  # the deployment's add limits (a clear error past them), as on every door
        return compact_add(operations.add(caller, request), ids)

    def update(
        self,
        caller: Caller,
        memory_id: str,
        *,
        text: str | None,
        metadata: Mapping[str, Any] | None,
        timestamp: str | float | None,
    ) -> dict[str, Any]:
        if text is None and metadata is None and timestamp is None:
            raise ValidationError("text: give text, metadata or timestamp to change")
        operations = self._operations()
        change = UpdateInput(text=text, metadata=dict(metadata) if metadata is not None else None, timestamp=timestamp)
        return compact(operations.update(caller, memory_id, change))

    def delete(self, caller: Caller, memory_id: str, *, delete_linked: bool = False) -> dict[str, Any]:
        operations = self._operations()
        record = operations.delete(caller, memory_id, delete_linked=delete_linked)
        return {"deleted": record.id, "memory": record.text}

    # -- reads -------------------------------------------------------------------------
    def search(
        self,
        caller: Caller,
        query: str,
        requested: Mapping[str, str | None],
        *,
        filters: Mapping[str, Any] | None,
        top_k: int,
        threshold: float,
        rerank: bool,
        explain: bool,
        latest_only: bool = False,
    ) -> dict[str, Any]:
        ids = caller.ids(requested)
        request = SearchInput(
            query=query,
            ids=EntityIds(**ids),
            filters=dict(filters) if filters else None,
            top_k=top_k,
            threshold=threshold,
            rerank=rerank,
            explain=explain,
            latest_only=latest_only,
        )
        hits = self._operations().search(caller, request)
        results = []
        for hit in hits:
            item = compact(hit.record)
            item["score"] = round(hit.score, 4)
            if hit.details is not None:
                item["score_details"] = hit.details
            results.append(item)
        return {"results": results, "scope": ids}

    def list(
        self,
        caller: Caller,
        requested: Mapping[str, str | None],
        *,
        page: int,
        page_size: int,
        latest_only: bool = False,
    ) -> dict[str, Any]:
        ids = caller.ids(requested)
        request = ListInput(ids=EntityIds(**ids), page=page, page_size=page_size, latest_only=latest_only)
        operations = self._operations()
        result = operations.list_memories(caller, request)
        links = operations.links(caller, result.records)
        return {
            "results": [compact(r, links[r.id]) for r in result.records],
            "total": result.total,
            "page": page,
            "page_size": page_size,
            "scope": ids,
        }

    def get(self, caller: Caller, memory_id: str) -> dict[str, Any]:
        operations = self._operations()
        record = operations.get(caller, memory_id)
        return compact(record, operations.links(caller, [record])[record.id])

    def history(self, caller: Caller, memory_id: str) -> dict[str, Any]:
        operations = self._operations()
        events = []
        for row in operations.history(caller, memory_id):
            event: dict[str, Any] = {"event": row["event"], "at": _iso(row["created_at"])}
            if row["old_memory"] is not None:
                event["old_memory"] = row["old_memory"]
            if row["new_memory"] is not None:
                event["new_memory"] = row["new_memory"]
            if row["actor"]:
                event["actor"] = row["actor"]
            if row.get("linked_memory_ids"):
                event["linked_memory_ids"] = row["linked_memory_ids"]
            if row.get("superseded_by"):
                event["superseded_by"] = row["superseded_by"]
            events.append(event)
        return {"memory_id": memory_id, "events": events}

    def entities(self, caller: Caller) -> dict[str, Any]:
        """Users, agents, runs and apps with memory counts, as far as the caller may see them."""
        operations = self._operations()
        if not caller.pinned:
            return {
                "entities": [
                    {"type": c.entity_type, "id": c.entity_id, "memories": c.total, "updated_at": _iso(c.updated_at)}
                    for c in operations.entities(caller)
                ]
            }
        # A confined caller sees only the identifiers that occur in its own memories.
        counts, seen, total = entity_tally(caller, lambda page: operations.list_memories(caller, page))
        out: dict[str, Any] = {
            "entities": [{"type": c.entity_type, "id": c.entity_id, "memories": c.total} for c in counts]
        }
        if total > seen:
            out["note"] = f"counted from the newest {seen} of {total} memories"
        return out
