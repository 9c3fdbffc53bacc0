"""v3 memory operations and the v1/v2 memory routes the platform client calls."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import falcon

from ...admission import RUN_NOW, admit
from ...errors import NotFoundError, ValidationError
from ...events import EventStore
from ...filters import conjoin, parse_filter
from ...tenancy import Tenancy
from .. import parsing
from ..operations import operation
from ..present import iso, memory_item, search_result
from ..runtime import Runtime
from . import models as m
from .access import Access, access

TAGS = ("platform memories",)


def refuse_top_level_ids(data: dict[str, Any]) -> None:
    found = [k for k in m.ENTITY_KEYS if data.get(k) is not None]
    if found:
        raise ValidationError(f"{found[0]}: entity identifiers go inside 'filters' in v3 requests")


def entity_ids(body: m.AddV3) -> dict[str, str]:
    """Identifiers of an add, from the top level or from ``filters`` (the client sends either)."""
    ids = {k: getattr(body, k) for k in m.ENTITY_KEYS if getattr(body, k)}
    for key, value in (body.filters or {}).items():
        if key in m.ENTITY_KEYS and isinstance(value, str) and key not in ids:
            ids[key] = value
    if not ids:
        raise ValidationError("user_id: one of user_id, agent_id, run_id or app_id is required")
    return ids


class AddV3:
    def __init__(self, runtime: Runtime, events: EventStore, tenancy: Tenancy, limits: Any) -> None:
        self._runtime, self._events, self._tenancy, self._limits = runtime, events, tenancy, limits

    @operation(
        "Add memories (asynchronous: poll the event; infer=false answers at once)",
        auth="platform",
        tags=TAGS,
        body=m.AddV3,
        errors=(400, 403, 413, 422, 429),
        description="An infer=false add larger than limits.sync_add_chars characters is queued too. "
        "Past limits.max_add_chars or limits.max_add_messages: 413.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, m.AddV3, self._limits)
        who = access(req, self._tenancy, write=True)
        settings = self._tenancy.project(who.org_id, who.project_id).settings
        instructions = "\n".join(
            x
            for x in (body.custom_instructions or settings.get("custom_instructions"), body.agent_custom_instructions)
            if x
        )
        payload: dict[str, Any] = {
            "messages": body.messages,
            **entity_ids(body),
            "org_id": who.org_id,
            "project_id": who.project_id,
            "metadata": body.metadata,
            "timestamp": body.timestamp,
            "expiration_date": body.expiration_date or settings.get("expiration_date"),
            "infer": body.infer,
            "custom_instructions": instructions or None,
            "includes": body.includes or settings.get("inclusion_prompt"),
            "excludes": body.excludes or settings.get("exclusion_prompt"),
            "custom_categories": body.custom_categories or settings.get("custom_categories") or None,
            "multilingual": bool(settings.get("multilingual")),
            "actor": who.actor,
        }
        mode = admit(body.messages, self._limits)  # 413 past the add limits (memorist.admission)
        memory = self._runtime.memory
        memory.add_request(**payload)  # validate now: a bad add is a 400, not a FAILED event
        if not body.infer and mode == RUN_NOW:  # a large infer=false add is queued like any other
            stored = memory.add(**payload)
            resp.media = {
                "results": [
                    {"id": r.id, "memory": r.text, "event": "ADD", "data": {"memory": r.text}, "user_id": r.user_id}
                    for r in stored
                ],
                "status": "SUCCEEDED",
            }
            return
        event = self._events.submit(who.org_id, who.project_id, payload)
        resp.media = {"event_id": event.id, "status": event.status, "message": "memory processing queued"}


def _filters(
    who: Access,
    raw: dict[str, Any] | None,
    categories: list[str] | None,
    start: str | None = None,
    end: str | None = None,
) -> Any:
    extra: dict[str, Any] = {}
    if categories:
        extra["categories"] = {"in": categories}
    if start:
        extra.setdefault("created_at", {})["gte"] = start
    if end:
        extra.setdefault("created_at", {})["lte"] = end
    return conjoin(parse_filter(raw) if raw else None, parse_filter(extra) if extra else None)


def _pick(item: dict[str, Any], fields: list[str] | None) -> dict[str, Any]:
    if not fields:
        return item
    return {k: v for k, v in item.items() if k in fields or k == "id"}


class SearchV3:
    def __init__(self, runtime: Runtime, tenancy: Tenancy, limits: Any) -> None:
        self._runtime, self._tenancy, self._limits = runtime, tenancy, limits

    @operation("Hybrid search in the project", auth="platform", tags=TAGS, body=m.SearchV3, errors=(400, 403, 422))
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        data = parsing.read_json(req, max_bytes=self._limits.max_body_bytes, max_depth=self._limits.max_json_depth)
        if isinstance(data, dict):
            refuse_top_level_ids(data)
        body = parsing.validate(m.SearchV3, data)
        who = access(req, self._tenancy)
        where = _filters(who, body.filters, body.categories)
        hits = self._runtime.memory.search(
            body.query,
            filters=None,
            org_id=who.org_id,
            project_id=who.project_id,
            top_k=body.top_k,
            threshold=body.threshold,
            rerank=body.rerank,
            explain=body.explain,
            show_expired=body.show_expired,
            where=where,
        )
        resp.media = {"results": [_pick(search_result(h), body.fields) for h in hits]}


class ListV3:
    def __init__(self, runtime: Runtime, tenancy: Tenancy, limits: Any) -> None:
        self._runtime, self._tenancy, self._limits = runtime, tenancy, limits

    @operation(
        "List the project's memories (paginated envelope)",
        auth="platform",
        tags=TAGS,
        body=m.ListV3,
        query=m.Paging,
        errors=(400, 403, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        paging = parsing.query(req, m.Paging)
        data = parsing.read_json(
            req, max_bytes=self._limits.max_body_bytes, max_depth=self._limits.max_json_depth, required=False
        )
        if isinstance(data, dict):
            refuse_top_level_ids(data)
        body = parsing.validate(m.ListV3, data)
        who = access(req, self._tenancy)
        where = _filters(who, body.filters, body.categories, body.start_date, body.end_date)
        page = self._runtime.memory.list(
            org_id=who.org_id,
            project_id=who.project_id,
            page=paging.page,
            page_size=paging.page_size,
            show_expired=body.show_expired,
            where=where,
        )
        base = f"{req.prefix}{req.path}"

        def link(number: int) -> str:
            return f"{base}?{urlencode({'page': number, 'page_size': paging.page_size})}"

        more = paging.page * paging.page_size < page.total
        resp.media = {
            "count": page.total,
            "next": link(paging.page + 1) if more else None,
            "previous": link(paging.page - 1) if paging.page > 1 else None,
            "results": [_pick(memory_item(r), body.fields) for r in page.records],
        }


class MemoryV1:
    def __init__(self, runtime: Runtime, tenancy: Tenancy, limits: Any) -> None:
        self._runtime, self._tenancy, self._limits = runtime, tenancy, limits

    @operation("Get one memory", auth="platform", tags=TAGS, errors=(403, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        who = access(req, self._tenancy)
        resp.media = memory_item(self._runtime.memory.get(memory_id, org_id=who.org_id, project_id=who.project_id))

    @operation(
        "Update text, metadata, timestamp or expiration (null clears it)",
        auth="platform",
        tags=TAGS,
        body=m.UpdateV1,
        errors=(400, 403, 404, 422),
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        body = parsing.body(req, m.UpdateV1, self._limits)
        who = access(req, self._tenancy, write=True)
        fields = body.model_fields_set
        if not fields & {"text", "metadata", "timestamp", "expiration_date"}:
            raise ValidationError("body: give text, metadata, timestamp or expiration_date")
        record = self._runtime.memory.update(
            memory_id,
            text=body.text,
            metadata=body.metadata,
            timestamp=body.timestamp,
            expiration_date=body.expiration_date if "expiration_date" in fields else ...,
            org_id=who.org_id,
            project_id=who.project_id,
            actor=who.actor,
        )
        resp.media = memory_item(record)

    @operation("Delete one memory", auth="platform", tags=TAGS, query=m.DeleteQuery, errors=(403, 404))
    def on_delete(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        who = access(req, self._tenancy, write=True)
        self._runtime.memory.delete(memory_id, org_id=who.org_id, project_id=who.project_id, actor=who.actor)
        resp.media = {"message": "Memory deleted successfully!"}


class MemoriesV1:
    def __init__(self, runtime: Runtime, tenancy: Tenancy) -> None:
        self._runtime, self._tenancy = runtime, tenancy

    @operation(
        "Delete every memory of an entity (ids in the query string; never capped)",
        auth="platform",
        tags=TAGS,
        query=m.DeleteQuery,
        errors=(400, 403),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        q = parsing.query(req, m.DeleteQuery)
        who = access(req, self._tenancy, write=True)
        ids = {k: getattr(q, k) for k in m.ENTITY_KEYS if getattr(q, k)}
        if not ids:
            raise ValidationError("user_id: one of user_id, agent_id, run_id or app_id is required")
        deleted = self._runtime.memory.delete_all(**ids, org_id=who.org_id, project_id=who.project_id, actor=who.actor)
        resp.media = {"message": "Memories deleted successfully!", "deleted": deleted}


class HistoryV1:
    def __init__(self, runtime: Runtime, tenancy: Tenancy) -> None:
        self._runtime, self._tenancy = runtime, tenancy

    @operation("History of one memory", auth="platform", tags=TAGS, errors=(403, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        who = access(req, self._tenancy)
        rows = self._runtime.memory.history(memory_id, org_id=who.org_id, project_id=who.project_id)
        resp.media = [
            {
                "id": r["id"],
                "memory_id": r["memory_id"],
                "event": r["event"],
                "old_memory": r["old_memory"],
                "new_memory": r["new_memory"],
                "input": None,
                "metadata": r["new_metadata"],
                "actor": r["actor"],
                "created_at": iso(r["created_at"]),
                "updated_at": iso(r["created_at"]),
            }
            for r in rows
        ]


class EntitiesV1:
    def __init__(self, runtime: Runtime, tenancy: Tenancy) -> None:
        self._runtime, self._tenancy = runtime, tenancy

    @operation(
        "Users, agents, apps and runs of the project with memory counts", auth="platform", tags=TAGS, errors=(403,)
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        who = access(req, self._tenancy)
        counts = self._runtime.memory.counts.list(who.org_id, who.project_id)
        results = [
            {
                "id": c.entity_id,
                "name": c.entity_id,
                "type": c.entity_type,
                "total_memories": c.total,
                "created_at": iso(c.created_at),
                "updated_at": iso(c.updated_at),
            }
            for c in counts
        ]
        resp.media = {"count": len(results), "results": results}


class EntityV2:
    def __init__(self, runtime: Runtime, tenancy: Tenancy) -> None:
        self._runtime, self._tenancy = runtime, tenancy

    @operation("Delete an entity and all its memories", auth="platform", tags=TAGS, errors=(400, 403))
    def on_delete(self, req: falcon.Request, resp: falcon.Response, entity_type: str, entity_name: str) -> None:
        field = {"user": "user_id", "agent": "agent_id", "run": "run_id", "app": "app_id"}.get(entity_type)
        if field is None:
            raise ValidationError(f"entity_type: '{entity_type}' is not one of user, agent, app, run")
        who = access(req, self._tenancy, write=True)
        ids: dict[str, Any] = {field: entity_name}
        deleted = self._runtime.memory.delete_all(**ids, org_id=who.org_id, project_id=who.project_id, actor=who.actor)
        resp.media = {"message": "Entity deleted successfully.", "deleted": deleted}


class BatchV1:
    def __init__(self, runtime: Runtime, tenancy: Tenancy, limits: Any) -> None:
        self._runtime, self._tenancy, self._limits = runtime, tenancy, limits

    @operation("Update several memories", auth="platform", tags=TAGS, body=m.Batch, errors=(400, 403, 404, 422))
    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, m.Batch, self._limits)
        who = access(req, self._tenancy, write=True)
        memory = self._runtime.memory
        for item in body.memories:  # all must exist before any changes
            memory.get(item.memory_id, org_id=who.org_id, project_id=who.project_id)
        for item in body.memories:
            if item.text is None and item.metadata is None:
                raise ValidationError(f"memories: {item.memory_id} needs text or metadata")
        for item in body.memories:
            memory.update(
                item.memory_id,
                text=item.text,
                metadata=item.metadata,
                org_id=who.org_id,
                project_id=who.project_id,
                actor=who.actor,
            )
        resp.media = {"message": f"Successfully updated {len(body.memories)} memories"}

    @operation("Delete several memories", auth="platform", tags=TAGS, body=m.Batch, errors=(400, 403, 404, 422))
    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, m.Batch, self._limits)
        who = access(req, self._tenancy, write=True)
        memory = self._runtime.memory
        for item in body.memories:
            memory.get(item.memory_id, org_id=who.org_id, project_id=who.project_id)
        for item in body.memories:
            try:
                memory.delete(item.memory_id, org_id=who.org_id, project_id=who.project_id, actor=who.actor)
            except NotFoundError:
                pass  # listed twice
        resp.media = {"message": f"Successfully deleted {len(body.memories)} memories"}
