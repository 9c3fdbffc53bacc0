"""The one place the MCP tools reach the memory engine.

Every tool goes through :class:`MemoryAccess`, which applies the caller's
scope (:class:`~memorist.mcp.scope.Caller`) and shapes compact results. The
operations layer (``memorist.operations``) will own these rules for every
door; when it lands, this module is the only one that changes: its methods
become thin calls onto it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError, ValidationError
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord
from .scope import Caller

if TYPE_CHECKING:
    from ..engine.memory import Memory
    from ..engine.search import SearchHit

ENTITY_TYPES = {"user_id": "user", "agent_id": "agent", "run_id": "run", "app_id": "app"}
#: How many of a confined caller's memories ``list_entities`` reads to count its agents and runs.
ENTITY_SCAN_LIMIT = 5000


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value is not None else None


def compact(record: MemoryRecord) -> dict[str, Any]:
    """A memory as a model needs it: no hashes, no nulls, no empty fields."""
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
    return item


def compact_hit(hit: SearchHit) -> dict[str, Any]:
    item = compact(hit.record)
    item["score"] = round(hit.score, 4)
    if hit.details is not None:
        item["score_details"] = hit.details
    return item


class MemoryAccess:
    """Scope-checked memory operations for one server (stdio or HTTP)."""

    def __init__(self, engine: Callable[[], Memory]) -> None:
        #: Called per operation: the HTTP server's engine may be replaced by ``/configure``.
        self._engine = engine

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
        caller.require_write()
        ids = caller.ids(requested)
        if not ids:
            raise ValidationError("user_id: name whose memory this is (user_id, agent_id, run_id or app_id)")
        stored = self._engine().add(
            [dict(m) for m in messages],
            **ids,
            org_id=caller.org_id,
            project_id=caller.project_id,
            metadata=metadata,
            timestamp=timestamp,
            expiration_date=expiration_date,
            infer=infer,
            actor=caller.label,
        )
        out: dict[str, Any] = {"stored": [{"id": r.id, "memory": r.text} for r in stored], "scope": ids}
        if not stored:
            out["note"] = "nothing new was stored: no lasting facts found, or they are already remembered"
        return out

    def update(
        self,
        caller: Caller,
        memory_id: str,
        *,
        text: str | None,
        metadata: Mapping[str, Any] | None,
        timestamp: str | float | None,
    ) -> dict[str, Any]:
        caller.require_write()
        if text is None and metadata is None and timestamp is None:
            raise ValidationError("text: give text, metadata or timestamp to change")
        engine = self._engine()
        self._owned(engine, caller, memory_id)
        record = engine.update(
            memory_id,
            text=text,
            metadata=metadata,
            timestamp=timestamp,
            org_id=caller.org_id,
            project_id=caller.project_id,
            actor=caller.label,
        )
        return compact(record)

    def delete(self, caller: Caller, memory_id: str) -> dict[str, Any]:
        caller.require_write()
        engine = self._engine()
        self._owned(engine, caller, memory_id)
        record = engine.delete(memory_id, org_id=caller.org_id, project_id=caller.project_id, actor=caller.label)
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
    ) -> dict[str, Any]:
        ids: dict[str, Any] = caller.ids(requested)
        if not ids and not filters:
            raise ValidationError(
                "user_id: name whose memories to search (user_id, agent_id, run_id, app_id or filters)"
            )
        hits = self._engine().search(
            query,
            filters=filters,
            **ids,
            org_id=caller.org_id,
            project_id=caller.project_id,
            top_k=top_k,
            threshold=threshold,
            rerank=rerank,
            explain=explain,
        )
        return {"results": [compact_hit(h) for h in hits], "scope": ids}

    def list(self, caller: Caller, requested: Mapping[str, str | None], *, page: int, page_size: int) -> dict[str, Any]:
        ids: dict[str, Any] = caller.ids(requested)
        if not ids:
            raise ValidationError("user_id: name whose memories to list (user_id, agent_id, run_id or app_id)")
        result = self._engine().list(
            **ids, org_id=caller.org_id, project_id=caller.project_id, page=page, page_size=page_size
        )
        return {
            "results": [compact(r) for r in result.records],
            "total": result.total,
            "page": page,
            "page_size": page_size,
            "scope": ids,
        }

    def get(self, caller: Caller, memory_id: str) -> dict[str, Any]:
        return compact(self._owned(self._engine(), caller, memory_id))

    def history(self, caller: Caller, memory_id: str) -> dict[str, Any]:
        engine = self._engine()
        if caller.pinned:
            # History rows carry no user/agent: ownership is proven by the live memory.
            self._owned(engine, caller, memory_id)
        rows = engine.history(memory_id, org_id=caller.org_id, project_id=caller.project_id)
        events = []
        for row in rows:
            event: dict[str, Any] = {"event": row["event"], "at": _iso(row["created_at"])}
            if row["old_memory"] is not None:
                event["old_memory"] = row["old_memory"]
            if row["new_memory"] is not None:
                event["new_memory"] = row["new_memory"]
            if row["actor"]:
                event["actor"] = row["actor"]
            events.append(event)
        return {"memory_id": memory_id, "events": events}

    def entities(self, caller: Caller) -> dict[str, Any]:
        """Users, agents, runs and apps with memory counts, as far as the caller may see them."""
        engine = self._engine()
        if not caller.pinned:
            counts = engine.counts.list(caller.org_id, caller.project_id)
            return {
                "entities": [
                    {"type": c.entity_type, "id": c.entity_id, "memories": c.total, "updated_at": _iso(c.updated_at)}
                    for c in counts
                ]
            }
        # A confined caller sees only the identifiers that occur in its own memories.
        pinned: dict[str, Any] = dict(caller.pinned)
        tally: dict[tuple[str, str], int] = {}
        page, seen, total = 1, 0, 0
        while seen < ENTITY_SCAN_LIMIT:
            batch = engine.list(
                **pinned,
                org_id=caller.org_id,
                project_id=caller.project_id,
                page=page,
                page_size=1000,
            )
            total = batch.total
            for record in batch.records:
                for name in ENTITY_SCOPE_FIELDS:
                    if (value := getattr(record, name)) is not None:
                        tally[(ENTITY_TYPES[name], value)] = tally.get((ENTITY_TYPES[name], value), 0) + 1
            seen += len(batch.records)
            if len(batch.records) < 1000:
                break
            page += 1
        out: dict[str, Any] = {
            "entities": [{"type": t, "id": i, "memories": n} for (t, i), n in sorted(tally.items())],
        }
        if total > seen:
            out["note"] = f"counted from the newest {seen} of {total} memories"
        return out

    # -- helpers -----------------------------------------------------------------------
    @staticmethod
    def _owned(engine: Memory, caller: Caller, memory_id: str) -> MemoryRecord:
        try:
            record = engine.get(memory_id, org_id=caller.org_id, project_id=caller.project_id)
        except NotFoundError:
            raise NotFoundError(f"memory '{memory_id}' not found") from None
        return caller.check_owned(record)
