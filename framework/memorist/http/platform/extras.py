"""Feedback, exports and summaries: the remaining v1 calls of the platform client.

``POST /v1/feedback/`` records a member's judgement of one memory of the
project; ``POST /v1/exports/`` builds a JSON export of the project's memories
synchronously and stores it; ``POST /v1/exports/get/`` returns a stored export;
``POST /v1/summary/`` summarizes the memories matching ``filters`` with the
language model when it is generative, else as bullet lines. Stored exports
have quotas and a retention period (:mod:`memorist.operations.export_store`). Everything is
confined to the key's project; a memory or export of another project answers
404 as if it did not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import falcon
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...config.settings import LimitsSettings
from ...filters import parse_filter
from ...operations import Operations, iso
from ...operations.extras import MAX_EXPORT, MAX_SUMMARY_MEMORIES, SUCCEEDED, SummaryDraft
from ...records import ENTITY_SCOPE_FIELDS, utcnow
from ...tenancy import Tenancy
from ..declaration import operation
from .access import access

__all__ = ["MAX_EXPORT", "MAX_SUMMARY_MEMORIES", "SummaryDraft", "add_routes"]
TAGS = ("platform extras",)


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
    schema_: dict[str, Any] | str | None = Field(default=None, alias="schema")
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


# -- resources -------------------------------------------------------------------------
class Feedback:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: LimitsSettings) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Give feedback on a memory (null feedback clears it)",
        auth="platform",
        tags=TAGS,
        body=FeedbackBody,
        response=FeedbackOut,
        errors=(400, 403, 404, 422),
        description="Any member of the project may give feedback; the latest row per member is current.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: FeedbackBody) -> None:
        who = access(req, self._tenancy)
        resp.media = self._ops.feedback(
            who.caller, body.memory_id, body.feedback, body.feedback_reason, who.principal.user_id
        )


class Exports:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: LimitsSettings) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Export the project's memories matching the filters (built at once)",
        auth="platform",
        tags=TAGS,
        body=ExportCreate,
        body_required=False,
        response=ExportCreated,
        status=201,
        errors=(400, 403, 422, 429),
        description=f"Expired memories are included. At most {MAX_EXPORT} memories per export. "
        "Quotas (exports settings): per_hour exports per project (429 past it), the max_per_project "
        "newest kept, each deleted retention_hours after it was created.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: ExportCreate) -> None:
        who = access(req, self._tenancy)
        export_id, count = self._ops.export(who.caller, body.combined_filters(), body.schema_)
        resp.media = {
            "id": export_id,
            "status": SUCCEEDED,
            "count": count,
            "message": "Memory export created; fetch it with POST /v1/exports/get/",
        }


class ExportLookup:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: LimitsSettings) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Get an export: by memory_export_id, else the latest one with the same filters",
        auth="platform",
        tags=TAGS,
        body=ExportGet,
        body_required=False,
        response=ExportOut,
        errors=(400, 403, 404, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: ExportGet) -> None:
        who = access(req, self._tenancy)
        resp.media = self._ops.find_export(who.caller, body.memory_export_id, body.combined_filters())


class Summary:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: LimitsSettings) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Summarize the memories matching the filters",
        auth="platform",
        tags=TAGS,
        body=SummaryBody,
        body_required=False,
        response=SummaryOut,
        errors=(400, 403, 422),
        description="A generative language model writes the summary; otherwise (or if it fails) the "
        "memories are listed as bullet lines, oldest first.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: SummaryBody) -> None:
        who = access(req, self._tenancy)
        filters = body.combined_filters()
        settings = self._tenancy.project(who.org_id, who.project_id).settings
        limit = int(settings.get("summary_batch_size") or 100)
        summary = self._ops.summarize(who.caller, filters, limit=limit, settings=settings)
        resp.media = {
            "status": SUCCEEDED,
            "summary": summary.summary,
            "key_points": summary.key_points,
            "memory_count": summary.memory_count,
            "filters": filters,
            "generated_by": summary.generated_by,
            "created_at": iso(utcnow()),
        }


def add_routes(add: Callable[[str, object], None], ops: Operations, tenancy: Tenancy, limits: LimitsSettings) -> None:
    """Called by the platform route table with its ``add`` (so the routes reach /openapi.json)."""
    add("/v1/feedback/", Feedback(ops, tenancy, limits))
    add("/v1/exports/", Exports(ops, tenancy, limits))
    add("/v1/exports/get/", ExportLookup(ops, tenancy, limits))
    add("/v1/summary/", Summary(ops, tenancy, limits))
