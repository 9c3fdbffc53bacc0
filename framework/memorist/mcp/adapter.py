"""The one place the MCP tools reach Memorist: the operations layer, with the connection's confinement.

Every tool goes through :class:`MemoryAccess`. The operations layer
(:mod:`memorist.operations`) owns the rules every door shares (the scope
rule, confinement to the organization and project, validation of an update,
what an add stored, merged and skipped); the caller's role and its user/agent
pins (:class:`~memorist.operations.Caller`) are checked there too, the same as
on every door. This module adds what is MCP's own: the scope a call ran in, and
compact results for a model's context window: the REST response models projected by
:meth:`~memorist.operations.wire.WireModel.compact` (no nulls, no hashes, times to the
second, 4-decimal scores), so a field the REST answer gains reaches MCP as well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..engine.supersession import Links
from ..operations import AddInput, Caller, EntityIds, ListInput, Operations, SearchInput, UpdateInput
from ..operations.confine import entity_tally
from ..operations.results import AddedMemory, AddResult
from ..operations.wire import EntityOut, HistoryEntry, MemoryItem, MergedInput, SearchResult, SkippedPart
from ..records import MemoryRecord


def compact(record: MemoryRecord, links: Links | None = None) -> dict[str, Any]:
    """A memory as a model needs it (:meth:`MemoryItem.compact`); with ``links``, the older
    memories it replaced and what replaced it, when there are any."""
    return MemoryItem.of(record, links).compact()


def compact_add(result: AddResult, ids: Mapping[str, str]) -> dict[str, Any]:
    """What an add did, as the models' compact projections: ``stored`` (id and text), ``merged``
    (``into`` the memory that already says it) and ``skipped``, with the scope it ran in."""
    out: dict[str, Any] = {"stored": [AddedMemory.of(r).compact(drop=("event",)) for r in result.stored]}
    if result.merged:
        out["merged"] = [MergedInput.of(m).compact() for m in result.merged]
    if result.skipped:
        out["skipped"] = [SkippedPart.of(s).compact() for s in result.skipped]
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
        change = UpdateInput(text=text, metadata=dict(metadata) if metadata is not None else None, timestamp=timestamp)
        change.check()  # before the ownership lookup, as on every door
        operations = self._operations()
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
        as_of: str | None = None,
        reference_date: str | None = None,
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
            as_of=as_of,
            reference_date=reference_date,
        )
        hits = self._operations().search(caller, request)
        return {"results": [SearchResult.of_hit(hit).compact() for hit in hits], "scope": ids}

    def list(
        self,
        caller: Caller,
        requested: Mapping[str, str | None],
        *,
        page: int,
        page_size: int,
        latest_only: bool = False,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        ids = caller.ids(requested)
        request = ListInput(ids=EntityIds(**ids), page=page, page_size=page_size, latest_only=latest_only, as_of=as_of)
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
        events = [HistoryEntry.of(row).compact() for row in operations.history(caller, memory_id)]
        return {"memory_id": memory_id, "events": events}

    def entities(self, caller: Caller) -> dict[str, Any]:
        """Users, agents, runs and apps with memory counts, as far as the caller may see them."""
        operations = self._operations()
        if not caller.pinned:
            return {"entities": [EntityOut.of(c).compact() for c in operations.entities(caller)]}
        # A confined caller sees only the identifiers that occur in its own memories.
        counts, seen, total = entity_tally(caller, lambda page: operations.list_memories(caller, page))
        out: dict[str, Any] = {
            "entities": [{"type": c.entity_type, "id": c.entity_id, "memories": c.total} for c in counts]
        }
        if total > seen:
            out["note"] = f"counted from the newest {seen} of {total} memories"
        return out
