"""Response models: each one both serializes a result and documents it in /openapi.json.

A door turns a record into its answer with the model (``MemoryItem.of(record, links).wire()``),
never with a dict of its own, so a field exists on the wire only if a model declares it and a
field added or changed here reaches every door at once: the self-hosted REST API, the platform
API (:mod:`memorist.http.platform.models` derives its all-optional item from :class:`MemoryItem`),
MCP and the mem0-style Python facade.

MCP and the facade answer *projections* of these models, defined beside them, not shapes of
their own:

- :meth:`WireModel.compact` (MCP): the same fields with nulls, empty lists and maps, ``hash``
  and an unchanged ``updated_at`` left out, times to the second and scores to 4 decimals; every
  token of a tool result costs the calling agent context, and those digits carry no meaning to it.
- :meth:`MemoryItem.mem0` (Python facade): the item as mem0's ``Memory`` returns it: without
  ``observed_at`` and without unset scope ids (mem0 leaves them out).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..engine.counts import EntityCount
from ..engine.hits import SearchHit
from ..engine.outcome import Merged, Skipped
from ..engine.supersession import Links
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord

#: Decimal places of a search score on the wire (REST, platform, Python) and on MCP.
SCORE_DIGITS = 6
COMPACT_SCORE_DIGITS = 4


def iso(value: datetime | None) -> str | None:
    """A time on the wire: ISO 8601 with the offset, as stored (microseconds kept)."""
    return value.isoformat() if value is not None else None


def _seconds(value: Any) -> Any:
    """An ISO time cut to the second (MCP's projection); anything else unchanged."""
    if isinstance(value, str) and len(value) > 19 and value[10] == "T":
        try:
            return datetime.fromisoformat(value).isoformat(timespec="seconds")
        except ValueError:
            return value
    return value


def _open_schema(schema: dict[str, Any]) -> None:
    # Forbidden at run time, yet not ``additionalProperties: false`` in /openapi.json: a client
    # generated from the document must keep accepting answers after a field is added.
    schema.pop("additionalProperties", None)


class WireModel(BaseModel):
    """A response model. ``extra="forbid"``: a serializer cannot emit a field it does not declare."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_open_schema)

    #: Fields that hold times (cut to the second by :meth:`compact`).
    times: ClassVar[tuple[str, ...]] = ()

    def wire(self, fields: Iterable[str] | None = None) -> dict[str, Any]:
        """The JSON answer: the fields this item was built with (optional ones only when given);
        ``fields`` narrows it to those keys (``id`` always stays), as the platform's ``fields`` does."""
        out = self.model_dump(exclude_unset=True)
        wanted = set(fields or ())
        if wanted:
            out = {k: v for k, v in out.items() if k in wanted or k == "id"}
        return out

    def compact(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        """The MCP projection (module docstring): no nulls or empty values, times to the second."""
        out: dict[str, Any] = {}
        dropped = set(drop)
        for key, value in self.wire().items():
            if key in dropped or value is None or value == [] or value == {}:
                continue
            out[key] = _seconds(value) if key in self.times else value
        return out


class MemoryItem(WireModel):
    """A stored memory. Get and list add its place among its fact's versions
    (``linked_memory_ids``, ``superseded_by``, ``superseded_at``); search results never carry them."""

    times: ClassVar[tuple[str, ...]] = ("created_at", "updated_at", "expiration_date", "observed_at", "superseded_at")

    id: str
    memory: str
    hash: str
    metadata: dict[str, Any]
    categories: list[str]
    created_at: str | None
    updated_at: str | None
    expiration_date: str | None
    observed_at: str | None = Field(default=None, description="When the fact was said (the conversation's time)")
    attributed_to: str | None
    user_id: str | None
    agent_id: str | None
    run_id: str | None
    app_id: str | None
    linked_memory_ids: list[str] | None = Field(default=None, description="Older memories this one superseded")
    superseded_by: str | None = Field(default=None, description="The memory that superseded this one")
    superseded_at: str | None = Field(default=None, description="When it was superseded")

    @staticmethod
    def fields_of(record: MemoryRecord, links: Links | None = None) -> dict[str, Any]:
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
            item["linked_memory_ids"] = list(links.linked_memory_ids)
            item["superseded_by"] = links.superseded_by
            item["superseded_at"] = iso(links.superseded_at)
        return item

    @classmethod
    def of(cls, record: MemoryRecord, links: Links | None = None) -> MemoryItem:
        return cls(**cls.fields_of(record, links))

    def compact(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        """MCP's memory: also without ``hash``, ``created_at`` (``observed_at`` says when) and an
        ``updated_at`` equal to it (the memory never changed)."""
        unchanged = ("updated_at",) if self.updated_at == self.created_at else ()
        return super().compact(("hash", "created_at", *unchanged, *drop))

    def mem0(self) -> dict[str, Any]:
        """The facade's projection (module docstring)."""
        out = self.wire()
        del out["observed_at"]
        return {k: v for k, v in out.items() if not (k in ENTITY_SCOPE_FIELDS and v is None)}


class SearchResult(MemoryItem):
    """A memory found by a search, with its score (and, with ``explain``, how it was made)."""

    score: float
    score_details: dict[str, Any] | None = None

    @classmethod
    def of_hit(cls, hit: SearchHit) -> SearchResult:
        item = cls.fields_of(hit.record)
        item["score"] = round(hit.score, SCORE_DIGITS)
        if hit.details is not None:
            item["score_details"] = hit.details
        return cls(**item)

    def compact(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        out = super().compact(drop)
        out["score"] = round(self.score, COMPACT_SCORE_DIGITS)
        return out


class MergedInput(WireModel):
    """A proposed fact not stored because a memory already says it (see docs/memory-rules.md)."""

    memory: str
    event: Literal["MERGED"]
    memory_id: str
    matched_memory: str | None
    reason: str
    similarity: float
    source_message: int | None

    @classmethod
    def of(cls, merged: Merged) -> MergedInput:
        return cls(
            memory=merged.text,
            event="MERGED",
            memory_id=merged.memory_id,
            matched_memory=merged.matched_memory,
            reason=merged.reason,
            similarity=round(merged.similarity, 4),
            source_message=merged.source_message,
        )

    def compact(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        """MCP's merged fact: what was proposed, the memory it went ``into``, and why."""
        return {"memory": self.memory, "into": self.memory_id, "reason": self.reason}


class SkippedPart(WireModel):
    """An input message, or a part of one, that held nothing to remember, and why."""

    memory: str
    event: Literal["SKIPPED"]
    reason: str
    source_message: int | None

    @classmethod
    def of(cls, skipped: Skipped) -> SkippedPart:
        return cls(memory=skipped.text, event="SKIPPED", reason=skipped.reason, source_message=skipped.source_message)

    def compact(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        """MCP's skipped part: what it was and why (the event name says nothing new there)."""
        return super().compact(("event", "source_message", *drop))


class HistoryEntry(WireModel):
    """A history row as the self-hosted API (and the dashboard) shows it."""

    times: ClassVar[tuple[str, ...]] = ("created_at",)

    id: str
    memory_id: str
    event: str
    old_memory: str | None
    new_memory: str | None
    old_metadata: dict[str, Any] | None = None
    new_metadata: dict[str, Any] | None = None
    actor: str | None
    role: str | None
    created_at: str
    input: str | None = Field(default=None, description="ADD: the message the memory was extracted from")
    linked_memory_ids: list[str] = Field(default_factory=list, description="ADD: the memories this add superseded")
    superseded_by: str | None = Field(default=None, description="SUPERSEDED: the memory that replaced this one")

    @classmethod
    def of(cls, row: dict[str, Any]) -> HistoryEntry:
        return cls(
            id=row["id"],
            memory_id=row["memory_id"],
            event=row["event"],
            old_memory=row["old_memory"],
            new_memory=row["new_memory"],
            old_metadata=row["old_metadata"],
            new_metadata=row["new_metadata"],
            actor=row["actor"],
            role=row["role"],
            created_at=iso(row["created_at"]),
            input=row.get("input"),
            linked_memory_ids=row.get("linked_memory_ids", []),
            superseded_by=row.get("superseded_by"),
        )

    def compact(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        """MCP's history event: what changed, when (``at``) and by whom; ids and metadata left out."""
        out = super().compact(("id", "memory_id", "old_metadata", "new_metadata", "role", "input", *drop))
        at = out.pop("created_at", None)
        return {"event": out.pop("event"), "at": at, **out}

    def mem0(self) -> dict[str, Any]:
        """mem0's history row: ``actor_id``, ``is_deleted`` and a null ``updated_at``."""
        return {
            "id": self.id,
            "memory_id": self.memory_id,
            "old_memory": self.old_memory,
            "new_memory": self.new_memory,
            "event": self.event,
            "created_at": self.created_at,
            "updated_at": None,
            "is_deleted": self.event == "DELETE",
            "actor_id": self.actor,
            "role": self.role,
            "linked_memory_ids": self.linked_memory_ids,
            "superseded_by": self.superseded_by,
        }


class HistoryEntryV1(WireModel):
    """A history row as the platform client reads it (``GET /v1/memories/{id}/history/``)."""

    id: str
    memory_id: str
    event: str
    old_memory: str | None
    new_memory: str | None
    input: str | None = Field(description="ADD: the message the memory was extracted from (else null)")
    metadata: dict[str, Any] | None
    actor: str | None
    created_at: str | None
    updated_at: str | None
    linked_memory_ids: list[str] = Field(default_factory=list, description="ADD: the memories this add superseded")
    superseded_by: str | None = Field(default=None, description="SUPERSEDED: the memory that replaced this one")

    @classmethod
    def of(cls, row: dict[str, Any]) -> HistoryEntryV1:
        entry = HistoryEntry.of(row)
        return cls(
            id=entry.id,
            memory_id=entry.memory_id,
            event=entry.event,
            old_memory=entry.old_memory,
            new_memory=entry.new_memory,
            input=entry.input,
            metadata=entry.new_metadata,
            actor=entry.actor,
            created_at=entry.created_at,
            updated_at=entry.created_at,
            linked_memory_ids=entry.linked_memory_ids,
            superseded_by=entry.superseded_by,
        )


class EntityOut(WireModel):
    """A user/agent/run/app with its memory count (``GET /entities``)."""

    times: ClassVar[tuple[str, ...]] = ("created_at", "updated_at")

    id: str
    type: str
    total_memories: int
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, count: EntityCount) -> EntityOut:
        return cls(
            id=count.entity_id,
            type=count.entity_type,
            total_memories=count.total,
            created_at=iso(count.created_at),
            updated_at=iso(count.updated_at),
        )

    def compact(self, drop: Iterable[str] = ()) -> dict[str, Any]:
        """MCP's entity: ``type``, ``id``, ``memories`` and when it last changed."""
        out = super().compact(("created_at", *drop))
        return {"type": out["type"], "id": out["id"], "memories": out["total_memories"], **_only(out, "updated_at")}


class EntityV1(WireModel):
    """A user/agent/run/app with its memory count; ``name`` is its id (entities have no other name)."""

    id: str
    name: str
    type: str
    total_memories: int
    created_at: str | None
    updated_at: str | None

    @classmethod
    def of(cls, count: EntityCount) -> EntityV1:
        return cls(name=count.entity_id, **EntityOut.of(count).wire())


def _only(values: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: values[k] for k in keys if k in values}
