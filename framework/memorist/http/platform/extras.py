"""Feedback, exports and summaries: the remaining v1 calls of the platform client.

``POST /v1/feedback/`` records a member's judgement of one memory of the
project; ``POST /v1/exports/`` builds a JSON export of the project's memories
synchronously and stores it; ``POST /v1/exports/get/`` returns a stored export;
Stored exports have quotas and a retention period (:mod:`memorist.export_store`);
``POST /v1/summary/`` summarizes the memories matching ``filters`` with the
language model when it is generative, else as bullet lines. Everything is
confined to the key's project; a memory or export of another project answers
404 as if it did not exist.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any, Literal

import falcon
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import insert

from ...db.schema import feedback
from ...errors import MemoristError, NotFoundError, ValidationError
from ...export_store import ExportStore
from ...filters import parse_filter
from ...records import ENTITY_SCOPE_FIELDS, ChatMessage, MemoryRecord, as_utc, utcnow
from ...settings import LimitsSettings
from ...tenancy import Tenancy
from .. import parsing
from ..operations import operation
from ..present import iso, memory_item
from ..runtime import Runtime
from ..services import AppServices
from .access import Access, access

log = logging.getLogger("memorist.http.platform")
TAGS = ("platform extras",)
#: An export larger than this is refused (narrow the filters) rather than built in one request.
MAX_EXPORT = 50_000
EXPORT_PAGE = 1000
#: A summary reads at most this many memories (the newest), whatever the project's batch size says.
MAX_SUMMARY_MEMORIES = 500
SUCCEEDED = "SUCCEEDED"


# -- request and response models -------------------------------------------------------
class _Body(BaseModel):
    # The client sends extra keys (org_id/project_id, new options): accept and ignore them.
    model_config = ConfigDict(extra="ignore")


class FeedbackBody(_Body):
    memory_id: str = Field(min_length=1, max_length=64)
    feedback: Literal["POSITIVE", "NEGATIVE", "VERY_NEGATIVE"] | None = None
    feedback_reason: str | None = Field(default=None, max_length=10_000)

    @field_validator("feedback", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) and value.strip() else (None if value == "" else value)


class FeedbackOut(BaseModel):
    id: str
    memory_id: str
    feedback: str | None
    feedback_reason: str | None
    created_at: str


class _Scoped(_Body):
    """Entity ids may come at the top level (the client's ``**kwargs``) or inside ``filters``."""

    filters: dict[str, Any] | None = None
    user_id: str | None = Field(default=None, min_length=1, max_length=255)
    agent_id: str | None = Field(default=None, min_length=1, max_length=255)
    run_id: str | None = Field(default=None, min_length=1, max_length=255)
    app_id: str | None = Field(default=None, min_length=1, max_length=255)

    def combined_filters(self) -> dict[str, Any] | None:
        """One filter document: ``filters`` AND the top-level ids (validated here: a bad one is a 400)."""
        ids = [{k: getattr(self, k)} for k in ENTITY_SCOPE_FIELDS if getattr(self, k) is not None]
        parts = ([self.filters] if self.filters else []) + ids
        if not parts:
            return None
        combined = parts[0] if len(parts) == 1 else {"AND": parts}
        parse_filter(combined)
        return combined


class ExportCreate(_Scoped):
    schema_: dict[str, Any] | str | None = Field(
        default=None, alias="schema", description="Kept with the export for the caller's reference"
    )


class ExportCreated(BaseModel):
    id: str
    status: str
    message: str
    count: int


class ExportGet(_Scoped):
    memory_export_id: str | None = Field(default=None, min_length=1, max_length=64)


class ExportOut(BaseModel):
    id: str
    status: str
    created_at: str
    filters: dict[str, Any] | None
    schema_: Any = Field(default=None, alias="schema")
    count: int
    memories: list[dict[str, Any]]


class SummaryBody(_Scoped):
    pass


class SummaryOut(BaseModel):
    status: str
    summary: str
    key_points: list[str]
    memory_count: int
    filters: dict[str, Any] | None
    generated_by: Literal["language_model", "heuristic"]
    created_at: str


class SummaryDraft(BaseModel):
    """What the language model is asked to return."""

    summary: str = Field(description="A few sentences covering the memories")
    key_points: list[str] = Field(default_factory=list, description="Short standalone facts, most important first")


# -- helpers ---------------------------------------------------------------------------


def _collect(
    runtime: Runtime, who: Access, filters: dict[str, Any] | None, *, limit: int, show_expired: bool
) -> list[MemoryRecord]:
    """Up to ``limit`` of the project's memories matching ``filters``, newest first."""
    memory = runtime.memory
    records: list[MemoryRecord] = []
    page = 1
    size = min(limit, EXPORT_PAGE)
    while True:
        batch = memory.list(
            filters, org_id=who.org_id, project_id=who.project_id, page=page, page_size=size, show_expired=show_expired
        )
        records.extend(batch.records)
        if len(records) >= limit or len(batch.records) < size:
            return records[:limit]
        page += 1


# -- resources -------------------------------------------------------------------------
class Feedback:
    def __init__(self, runtime: Runtime, tenancy: Tenancy, limits: LimitsSettings) -> None:
        self._runtime, self._tenancy, self._limits = runtime, tenancy, limits

    @operation(
        "Give feedback on a memory (null feedback clears it)",
        auth="platform",
        tags=TAGS,
        body=FeedbackBody,
        response=FeedbackOut,
        errors=(400, 403, 404, 422),
        description="Any member of the project may give feedback; the latest row per member is current.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, FeedbackBody, self._limits)
        who = access(req, self._tenancy)
        self._runtime.memory.get(body.memory_id, org_id=who.org_id, project_id=who.project_id)  # 404 if not ours
        row: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            "memory_id": body.memory_id,
            "org_id": who.org_id,
            "project_id": who.project_id,
            "feedback": body.feedback,
            "reason": body.feedback_reason,
            "user_id": who.principal.user_id,
            "created_at": utcnow(),
        }
        with self._runtime.memory.db.begin() as conn:
            conn.execute(insert(feedback).values(**row))
        resp.media = {
            "id": row["id"],
            "memory_id": body.memory_id,
            "feedback": body.feedback,
            "feedback_reason": body.feedback_reason,
            "created_at": iso(row["created_at"]),
        }


class Exports:
    def __init__(self, runtime: Runtime, tenancy: Tenancy, limits: LimitsSettings, store: ExportStore) -> None:
        self._runtime, self._tenancy, self._limits, self._store = runtime, tenancy, limits, store

    @operation(
        "Export the project's memories matching the filters (built at once)",
        auth="platform",
        tags=TAGS,
        body=ExportCreate,
        response=ExportCreated,
        status=201,
        errors=(400, 403, 422, 429),
        description=f"Expired memories are included. At most {MAX_EXPORT} memories per export. "
        "Quotas (exports settings): per_hour exports per project (429 past it), the max_per_project "
        "newest kept, each deleted retention_hours after it was created.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, ExportCreate, self._limits, required=False)
        who = access(req, self._tenancy)
        filters = body.combined_filters()
        total = self._runtime.memory.list(
            filters, org_id=who.org_id, project_id=who.project_id, page_size=1, show_expired=True
        ).total
        if total > MAX_EXPORT:
            raise ValidationError(
                f"filters: the export would hold {total} memories; the limit is {MAX_EXPORT}, narrow the filters"
            )
        self._store.admit(who.org_id, who.project_id)  # 429 past the hourly quota, before any work
        records = _collect(self._runtime, who, filters, limit=MAX_EXPORT, show_expired=True)
        row = self._store.save(
            who.org_id,
            who.project_id,
            filters or {},
            {"schema": body.schema_, "count": len(records), "memories": [memory_item(r) for r in records]},
        )
        resp.media = {
            "id": row["id"],
            "status": SUCCEEDED,
            "count": len(records),
            "message": "Memory export created; fetch it with POST /v1/exports/get/",
        }


class ExportLookup:
    def __init__(self, tenancy: Tenancy, limits: LimitsSettings, store: ExportStore) -> None:
        self._tenancy, self._limits, self._store = tenancy, limits, store

    @operation(
        "Get an export: by memory_export_id, else the latest one with the same filters",
        auth="platform",
        tags=TAGS,
        body=ExportGet,
        response=ExportOut,
        errors=(400, 403, 404, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, ExportGet, self._limits, required=False)
        who = access(req, self._tenancy)
        row = self._store.find(who.org_id, who.project_id, body.memory_export_id, body.combined_filters())
        if row is None:
            what = f"export '{body.memory_export_id}'" if body.memory_export_id else "an export with these filters"
            raise NotFoundError(f"{what} not found")
        result = row["result"] or {}
        resp.media = {
            "id": row["id"],
            "status": row["status"],
            "created_at": iso(as_utc(row["created_at"])),
            "filters": row["filters"] or None,
            "schema": result.get("schema"),
            "count": result.get("count", 0),
            "memories": result.get("memories", []),
        }


class Summary:
    def __init__(self, runtime: Runtime, tenancy: Tenancy, limits: LimitsSettings) -> None:
        self._runtime, self._tenancy, self._limits = runtime, tenancy, limits

    @operation(
        "Summarize the memories matching the filters",
        auth="platform",
        tags=TAGS,
        body=SummaryBody,
        response=SummaryOut,
        errors=(400, 403, 422),
        description="A generative language model writes the summary; otherwise (or if it fails) the "
        "memories are listed as bullet lines, oldest first.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, SummaryBody, self._limits, required=False)
        who = access(req, self._tenancy)
        filters = body.combined_filters()
        settings = self._tenancy.project(who.org_id, who.project_id).settings
        limit = min(int(settings.get("summary_batch_size") or 100), MAX_SUMMARY_MEMORIES)
        records = _collect(self._runtime, who, filters, limit=limit, show_expired=False)
        records.reverse()  # oldest first reads as a story
        summary, points, by = self._summarize(records, settings)
        resp.media = {
            "status": SUCCEEDED,
            "summary": summary,
            "key_points": points,
            "memory_count": len(records),
            "filters": filters,
            "generated_by": by,
            "created_at": iso(utcnow()),
        }

    def _summarize(self, records: list[MemoryRecord], settings: dict[str, Any]) -> tuple[str, list[str], Any]:
        lines = [f"- {r.text}" for r in records]
        model = self._runtime.memory.components.language_model
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
                return draft.summary.strip(), [p.strip() for p in draft.key_points if p.strip()], "language_model"
            except MemoristError as exc:  # a provider outage degrades to the listing, it does not fail the call
                log.warning("summary: language model failed (%s); answering with the memory list", exc.message)
        return "\n".join(lines), [r.text for r in records], "heuristic"


def add_routes(add: Callable[[str, object], None], services: AppServices, tenancy: Tenancy) -> None:
    """Called by the platform route table with its ``add`` (so the routes reach /openapi.json)."""
    runtime, limits = services.runtime, services.settings.limits
    store = ExportStore(services.db, services.settings.exports)
    add("/v1/feedback/", Feedback(runtime, tenancy, limits))
    add("/v1/exports/", Exports(runtime, tenancy, limits, store))
    add("/v1/exports/get/", ExportLookup(tenancy, limits, store))
    add("/v1/summary/", Summary(runtime, tenancy, limits))
