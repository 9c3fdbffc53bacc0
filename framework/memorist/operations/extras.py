"""Feedback, exports and summaries of a project's memories (the platform's v1 extras).

Kept beside the other operations so no resource writes rows itself: a door asks
for "record this feedback" or "build this export" and gets plain values back.
Every row is confined to the caller's organization and project.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import insert, select

from ..db import Database
from ..db.schema import exports, feedback
from ..errors import MemoristError, NotFoundError, ValidationError
from ..plugin.contracts import LanguageModel
from ..records import ChatMessage, MemoryRecord, as_utc, utcnow
from .caller import Caller
from .wire import MemoryItem, iso

log = logging.getLogger("memorist.operations")
#: An export larger than this is refused (narrow the filters) rather than built in one request.
MAX_EXPORT = 50_000
#: A summary reads at most this many memories (the newest), whatever the project's batch size says.
MAX_SUMMARY_MEMORIES = 500
SUCCEEDED = "SUCCEEDED"


class SummaryDraft(BaseModel):
    """What the language model is asked to return."""

    summary: str = Field(description="A few sentences covering the memories")
    key_points: list[str] = Field(default_factory=list, description="Short standalone facts, most important first")


@dataclass(frozen=True)
class Summary:
    summary: str
    key_points: list[str]
    memory_count: int
    generated_by: Literal["language_model", "heuristic"]


def record_feedback(
    db: Database, caller: Caller, memory_id: str, value: str | None, reason: str | None, user_id: str | None
) -> dict[str, Any]:
    """Store one member's judgement of a memory (the memory's existence is checked by the caller)."""
    row: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "memory_id": memory_id,
        **caller.tenant,
        "feedback": value,
        "reason": reason,
        "user_id": user_id,
        "created_at": utcnow(),
    }
    with db.begin() as conn:
        conn.execute(insert(feedback).values(**row))
    return {
        "id": row["id"],
        "memory_id": memory_id,
        "feedback": value,
        "feedback_reason": reason,
        "created_at": iso(row["created_at"]),
    }


def export_result(schema: Any, records: list[MemoryRecord]) -> dict[str, Any]:
    """What a stored export holds: the caller's schema, the count and the memories."""
    return {"schema": schema, "count": len(records), "memories": [MemoryItem.of(r).wire() for r in records]}


def store_export(
    db: Database, caller: Caller, filters: dict[str, Any] | None, schema: Any, records: list[MemoryRecord]
) -> str:
    """Keep a built export without quotas (the kernel's operations use
    :class:`memorist.operations.export_store.ExportStore`)."""
    row: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        **caller.tenant,
        "filters": filters or {},
        "status": SUCCEEDED,
        "created_at": utcnow(),
        "result": export_result(schema, records),
    }
    with db.begin() as conn:
        conn.execute(insert(exports).values(**row))
    return str(row["id"])


def check_export_size(total: int) -> None:
    if total > MAX_EXPORT:
        raise ValidationError(
            f"filters: the export would hold {total} memories; the limit is {MAX_EXPORT}, narrow the filters"
        )


def find_export(db: Database, caller: Caller, export_id: str | None, filters: dict[str, Any] | None) -> dict[str, Any]:
    """An export by id, else the newest with the same filters (compared as JSON documents)."""
    e = exports.c
    query = select(exports).where(e.org_id == caller.org_id, e.project_id == caller.project_id)
    if export_id:
        query = query.where(e.id == export_id)
    with db.connect() as conn:
        rows = conn.execute(query.order_by(e.created_at.desc())).mappings()
        row = next((r for r in rows if export_id or filters is None or r["filters"] == filters), None)
    return export_view(dict(row) if row is not None else None, export_id)


def export_view(row: dict[str, Any] | None, export_id: str | None) -> dict[str, Any]:
    """The answer for a stored export row; 404 when there is none."""
    if row is None:
        what = f"export '{export_id}'" if export_id else "an export with these filters"
        raise NotFoundError(f"{what} not found")
    result = row["result"] or {}
    return {
        "id": row["id"],
        "status": row["status"],
        "created_at": iso(as_utc(row["created_at"])),
        "filters": row["filters"] or None,
        "schema": result.get("schema"),
        "count": result.get("count", 0),
        "memories": result.get("memories", []),
    }


def summarize(model: LanguageModel, records: list[MemoryRecord], settings: dict[str, Any]) -> Summary:
    """A summary by a generative language model, else (or when it fails) the memories as bullet lines."""
    lines = [f"- {r.text}" for r in records]
    if records and model.generative:
        rules = [
            "Summarize what these memories say about the person or agent they belong to.",
            "Use only facts stated in the memories; do not invent anything.",
        ]
        if settings.get("summary_custom_instructions"):
            rules.append(str(settings["summary_custom_instructions"]))
        if settings.get("summary_max_tokens"):
            rules.append(f"Keep the summary under about {int(settings['summary_max_tokens'] * 0.75)} words.")
        messages = [
            ChatMessage(role="system", content="\n".join(rules)),
            ChatMessage(role="user", content="Memories, oldest first:\n" + "\n".join(lines)),
        ]
        try:
            draft = model.complete_json(messages, SummaryDraft)
            points = [p.strip() for p in draft.key_points if p.strip()]
            return Summary(draft.summary.strip(), points, len(records), "language_model")
        except MemoristError as exc:  # a provider outage degrades to the listing, it does not fail the call
            log.warning("summary: language model failed (%s); answering with the memory list", exc.message)
    return Summary("\n".join(lines), [r.text for r in records], len(records), "heuristic")
