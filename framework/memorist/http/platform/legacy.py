"""The v1/v2 memory routes older platform clients call (``mem0ai`` 0.1.x and 1.x, the npm client).

The platform's versioning rules (docs/platform.md) say how these differ from v3, and each
difference holds here, on its route:

* entity identifiers may come at the top level of the body or query (v2 also takes ``filters``);
* search: ``threshold`` defaults to none (no cut) and ``rerank`` to true;
* list and search answer a bare array, not the paginated envelope;
* add (``POST /v1/memories/``) is synchronous: it answers the stored memories, as the
  bare array of the v1.0 format unless ``output_format="v1.1"`` asks for the
  ``{"results": [...]}`` envelope (the platform's own default is v1.0: clients that send
  no ``output_format``, like the npm client 2.x, read an array); ``async_mode`` is
  accepted and ignored;
* ``enable_graph=true`` (the legacy flag) on a search adds ``relations``: for each hit, the
  graph entities it mentions (the graph itself is always on, as in v3).

Every resource is a translation onto :mod:`memorist.operations`, like the v3 ones.
"""

from __future__ import annotations

from typing import Any

import falcon
from pydantic import Field

from ...errors import ValidationError
from ...limits import MAX_QUERY_CHARS, MAX_TOP_K
from ...operations import (
    AddedMemoryV3,
    AddInput,
    EntityIds,
    ListInput,
    Operations,
    SearchInput,
    SearchResult,
)
from ...operations.wire import MergedInput, SkippedPart
from ...tenancy import Tenancy
from ..declaration import operation
from . import memories
from . import models as m
from .access import access

TAGS = ("platform memories (v1/v2)",)


def string_ids(source: dict[str, Any], where: str = "") -> EntityIds:
    """Entity ids of a mapping; a non-string id is a 400 naming the field (never "an id is required")."""
    for key in m.ENTITY_KEYS:
        value = source.get(key)
        if value is not None and not isinstance(value, str):
            raise ValidationError(f"{where}{key}: must be a string, got {type(value).__name__} {value!r}")
    return EntityIds.of(source)


class AddedV1(m.PlatformBody):
    """``POST /v1/memories/`` with ``output_format="v1.1"``: the stored memories in an envelope."""

    results: list[m.AddedMemoryV3]
    merged: list[MergedInput] | None = None
    skipped: list[SkippedPart] | None = None


class Relation(m.PlatformBody):
    source: str
    relationship: str
    destination: str


class SearchWithRelations(m.PlatformBody):
    """A v1/v2 search with ``enable_graph: true``."""

    results: list[m.SearchHitV3]
    relations: list[Relation]


class AddV1(m.AddV3):
    output_format: str | None = Field(
        default=None, description="v1.1: the {results: [...]} envelope; anything else (the default, v1.0): a bare array"
    )
    async_mode: bool | None = None


class SearchV1(m.PlatformBody):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    filters: dict[str, Any] | None = None
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K)
    threshold: float | None = Field(default=None, ge=0.0, le=1.0, description="None (the default): no cut")
    rerank: bool = Field(default=True, description="v1/v2 default: true")
    fields: list[str] | None = None
    categories: list[str] | None = None
    enable_graph: bool = Field(default=False, description="Legacy: true adds `relations` (entities of each hit)")


class ListV2(m.PlatformBody):
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    filters: dict[str, Any] | None = None
    categories: list[str] | None = None
    start_date: str | None = None
    end_date: str | None = None
    fields: list[str] | None = None


class ListV1Query(m.Paging):
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None


def _ids(body: Any) -> EntityIds:
    raw = {k: getattr(body, k) for k in m.ENTITY_KEYS}
    for key, value in (getattr(body, "filters", None) or {}).items():
        if key in m.ENTITY_KEYS and raw.get(key) is None:
            if not isinstance(value, (str, dict, list)):
                raise ValidationError(f"filters.{key}: must be a string, got {type(value).__name__} {value!r}")
    return string_ids(raw)


class SearchLegacy:
    """``POST /v1/memories/search/`` and ``POST /v2/memories/search/`` (same semantics)."""

    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation(
        "Search (v1/v2: ids at the top level, no threshold, rerank on; a bare array)",
        auth="platform",
        tags=TAGS,
        body=SearchV1,
        response=list[m.SearchHitV3] | SearchWithRelations,
        errors=(400, 403, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: SearchV1) -> None:
        who = access(req, self._tenancy)
        request = SearchInput(
            query=body.query,
            ids=_ids(body),
            where=memories.platform_filters(body.filters, body.categories),
            top_k=body.top_k,
            threshold=body.threshold if body.threshold is not None else 0.0,
            rerank=body.rerank,
            scoped=False,
        )
        hits = self._ops.search(who.caller, request)
        results = [SearchResult.of_hit(h).wire(body.fields) for h in hits]
        if not body.enable_graph:
            resp.media = results
            return
        linked = self._ops.linked_entities(who.caller, [h.record.id for h in hits])
        relations = [
            {"source": h.record.user_id or h.record.agent_id or "memory", "relationship": "mentions", "destination": e}
            for h in hits
            for e in linked.get(h.record.id, [])
        ]
        resp.media = {"results": results, "relations": relations}


def _list(
    ops: Operations, tenancy: Tenancy, req: falcon.Request, ids: EntityIds, body: Any, page: int, page_size: int
) -> list[Any]:
    who = access(req, tenancy)
    request = ListInput(
        ids=ids,
        where=memories.platform_filters(
            getattr(body, "filters", None),
            getattr(body, "categories", None),
            getattr(body, "start_date", None),
            getattr(body, "end_date", None),
        ),
        page=page,
        page_size=page_size,
        scoped=False,
    )
    fields = getattr(body, "fields", None)
    return [item.wire(fields) for item in ops.items(who.caller, ops.list_memories(who.caller, request).records)]


class MemoriesV1(memories.MemoriesV1):
    """``/v1/memories/``: list (GET, ids in the query), add (POST, synchronous), delete all (DELETE)."""

    @operation(
        "List memories (v1: ids in the query string; a bare array)",
        auth="platform",
        tags=TAGS,
        query=ListV1Query,
        response=list[m.MemoryItemV1],
        errors=(400, 403, 422),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, query: ListV1Query) -> None:
        ids = string_ids(query.model_dump())
        resp.media = _list(self._ops, self._tenancy, req, ids, None, query.page, query.page_size)

    @operation(
        "Add memories (v1: synchronous; answers the stored memories)",
        auth="platform",
        tags=TAGS,
        body=AddV1,
        response=AddedV1 | list[m.AddedMemoryV3],
        errors=(400, 403, 422, 429),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: AddV1) -> None:
        who = access(req, self._tenancy)
        settings = self._tenancy.project(who.org_id, who.project_id).settings
        request = AddInput(
            messages=body.messages,
            ids=memories.entity_ids(body),
            metadata=body.metadata,
            timestamp=body.timestamp,
            expiration_date=body.expiration_date or settings.get("expiration_date"),
            infer=body.infer,
            custom_instructions=body.custom_instructions or settings.get("custom_instructions"),
            includes=body.includes or settings.get("inclusion_prompt"),
            excludes=body.excludes or settings.get("exclusion_prompt"),
            custom_categories=body.custom_categories or settings.get("custom_categories") or None,
            multilingual=bool(settings.get("multilingual")),
        )
        self._ops.admit_add(request)  # 413 past the add limits; v1 runs even a large add synchronously
        wire = self._ops.add(who.caller, request).wire(AddedMemoryV3)
        # The platform's default output_format on this route is v1.0, the bare array (mem0's API
        # reference; the JS client 2.x and @mastra/mem0 send none and read an array); the Python
        # clients 0.1.x/1.x ask for v1.1 explicitly. merged/skipped ride only on the envelope.
        resp.media = wire if body.output_format == "v1.1" else wire["results"]


class ListV2Resource:
    """``POST /v2/memories/``: list with ``filters`` (or top-level ids); a bare array."""

    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation(
        "List memories (v2: filters or top-level ids; a bare array)",
        auth="platform",
        tags=TAGS,
        body=ListV2,
        body_required=False,
        query=m.Paging,
        response=list[m.MemoryItemV1],
        errors=(400, 403, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, query: m.Paging, body: ListV2) -> None:
        resp.media = _list(self._ops, self._tenancy, req, _ids(body), body, query.page, query.page_size)
