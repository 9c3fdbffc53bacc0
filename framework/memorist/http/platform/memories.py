"""v3 memory operations and the v1/v2 memory routes the platform client calls.

Each resource translates the platform wire format onto :mod:`memorist.operations`
(the caller is the key's organization, project and member).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import falcon

from ...errors import ValidationError
from ...filters import Filter, conjoin, parse_filter
from ...operations import (
    UNSET,
    AddedMemoryV3,
    AddInput,
    EntityIds,
    EntityV1,
    HistoryEntryV1,
    ListInput,
    Operations,
    SearchInput,
    SearchResult,
    UpdateInput,
)
from ...tenancy import Tenancy
from ..declaration import operation
from . import models as m
from .access import access
from .query_filters import parse_query_filters, split_entity_ids

TAGS = ("platform memories",)


def refuse_top_level_ids(data: Any) -> None:
    """v3 search and list take identifiers only inside ``filters``: a top-level one is a 400."""
    if not isinstance(data, dict):
        return
    found = [k for k in m.ENTITY_KEYS if data.get(k) is not None]
    if found:
        raise ValidationError(f"{found[0]}: entity identifiers go inside 'filters' in v3 requests")


def entity_ids(body: m.AddV3) -> EntityIds:
    """Identifiers of an add, from the top level or from ``filters`` (the client sends either)."""
    ids = {k: getattr(body, k) for k in m.ENTITY_KEYS if getattr(body, k)}
    for key, value in (body.filters or {}).items():
        if key not in m.ENTITY_KEYS or value is None:
            continue
        if not isinstance(value, str):  # not "an id is required": say what is wrong with the one given
            raise ValidationError(f"filters.{key}: must be a string, got {type(value).__name__} {value!r}")
        if key not in ids:
            ids[key] = value
    return EntityIds.of(ids)


def add_input(body: m.AddV3, settings: dict[str, Any]) -> AddInput:
    """The operations layer's add from one v3 add body, the project's settings filling what it leaves out."""
    ids = entity_ids(body)
    # The project's agent instructions apply to adds that carry an agent id; the add's own win.
    agent_rules = body.agent_custom_instructions or (
        settings.get("agent_custom_instructions") if ids.agent_id else None
    )
    instructions = "\n".join(
        x for x in (body.custom_instructions or settings.get("custom_instructions"), agent_rules) if x
    )
    return AddInput(
        messages=body.messages,
        ids=ids,
        metadata=body.metadata,
        timestamp=body.timestamp,
        expiration_date=body.expiration_date or settings.get("expiration_date"),
        infer=body.infer,
        custom_instructions=instructions or None,
        includes=body.includes or settings.get("inclusion_prompt"),
        excludes=body.excludes or settings.get("exclusion_prompt"),
        custom_categories=body.custom_categories or settings.get("custom_categories") or None,
        multilingual=bool(settings.get("multilingual")),
    )


class AddV3:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: Any) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Add memories (asynchronous: poll the event; infer=false answers at once)",
        auth="platform",
        tags=TAGS,
        body=m.AddV3,
        response=m.AddV3Result,
        errors=(400, 403, 413, 422, 429),
        description="An infer=false add larger than limits.sync_add_chars characters is queued too. "
        "Past limits.max_add_chars or limits.max_add_messages: 413.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.AddV3) -> None:
        who = access(req, self._tenancy)
        request = add_input(body, self._tenancy.project(who.org_id, who.project_id).settings)
        if not body.infer:
            # Answered at once with a SUCCEEDED event, unless large (memorist.queue.admission): then queued, PENDING.
            result, event = self._ops.add_recorded(who.caller, request)
            if result is not None:
                resp.media = {**result.wire(AddedMemoryV3), "event_id": event.id, "status": event.status}
                return
        else:
            event = self._ops.submit_add(who.caller, request)
        resp.media = {"event_id": event.id, "status": event.status, "message": "memory processing queued"}


def platform_filters(
    raw: dict[str, Any] | None,
    categories: list[str] | None,
    start: str | None = None,
    end: str | None = None,
) -> Filter | None:
    extra: dict[str, Any] = {}
    if categories:
        extra["categories"] = {"in": categories}
    if start:
        extra.setdefault("created_at", {})["gte"] = start
    if end:
        extra.setdefault("created_at", {})["lte"] = end
    return conjoin(parse_filter(raw) if raw else None, parse_filter(extra) if extra else None)


class SearchV3:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: Any) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Hybrid search in the project",
        auth="platform",
        tags=TAGS,
        body=m.SearchV3,
        raw_check=refuse_top_level_ids,
        response=m.SearchResultsV3,
        errors=(400, 403, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.SearchV3) -> None:
        who = access(req, self._tenancy)
        request = SearchInput(
            query=body.query,
            where=platform_filters(body.filters, body.categories),
            top_k=body.top_k,
            threshold=body.threshold,
            rerank=body.rerank,
            explain=body.explain,
            show_expired=body.show_expired,
            scoped=False,  # the key's project is the scope; identifiers are optional filters
            latest_only=body.latest_only,
            as_of=body.as_of,
            reference_date=body.reference_date,
            # The project's ``decay`` setting; off, the server's ``engine.decay`` (off by default).
            decay=self._tenancy.project(who.org_id, who.project_id).settings.get("decay") or None,
        )
        hits = self._ops.search(who.caller, request)
        resp.media = {"results": [SearchResult.of_hit(h).wire(body.fields) for h in hits]}


class ListV3:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: Any) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "List the project's memories (paginated envelope)",
        auth="platform",
        tags=TAGS,
        body=m.ListV3,
        body_required=False,
        raw_check=refuse_top_level_ids,
        query=m.Paging,
        response=m.MemoryListV3,
        errors=(400, 403, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, query: m.Paging, body: m.ListV3) -> None:
        who = access(req, self._tenancy)
        request = ListInput(
            where=platform_filters(body.filters, body.categories, body.start_date, body.end_date),
            page=query.page,
            page_size=query.page_size,
            show_expired=body.show_expired,
            scoped=False,
            latest_only=body.latest_only,
            as_of=body.as_of,
        )
        page = self._ops.list_memories(who.caller, request)
        base = f"{req.prefix}{req.path}"

        def link(number: int) -> str:
            return f"{base}?{urlencode({'page': number, 'page_size': query.page_size})}"

        more = query.page * query.page_size < page.total
        resp.media = {
            "count": page.total,
            "next": link(query.page + 1) if more else None,
            "previous": link(query.page - 1) if query.page > 1 else None,
            "results": [item.wire(body.fields) for item in self._ops.items(who.caller, page.records)],
        }


class MemoryV1:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: Any) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation("Get one memory", auth="platform", tags=TAGS, response=m.MemoryItemV1, errors=(403, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        who = access(req, self._tenancy)
        resp.media = self._ops.item(who.caller, self._ops.get(who.caller, memory_id)).wire()

    @operation(
        "Update text, metadata, timestamp or expiration (null clears it)",
        auth="platform",
        tags=TAGS,
        body=m.UpdateV1,
        response=m.MemoryItemV1,
        errors=(400, 403, 404, 422),
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, memory_id: str, body: m.UpdateV1) -> None:
        who = access(req, self._tenancy)
        fields = body.model_fields_set
        request = UpdateInput(
            text=body.text,
            metadata=body.metadata,
            timestamp=body.timestamp,
            expiration_date=body.expiration_date if "expiration_date" in fields else UNSET,
            given=frozenset(fields),
        )
        resp.media = self._ops.item(who.caller, self._ops.update(who.caller, memory_id, request)).wire()

    @operation(
        "Delete one memory (``delete_linked``: and the older ones it superseded, transitively)",
        auth="platform",
        tags=TAGS,
        query=m.DeleteOneQuery,
        response=m.PlatformMessage,
        errors=(403, 404),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, memory_id: str, query: m.DeleteOneQuery) -> None:
        who = access(req, self._tenancy)
        self._ops.delete(who.caller, memory_id, delete_linked=query.delete_linked)
        resp.media = {"message": "Memory deleted successfully!"}


class MemoriesV1:
    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation(
        "Delete every memory of an entity (ids in the query string; never capped)",
        auth="platform",
        tags=TAGS,
        query=m.DeleteQuery,
        response=m.DeletedOut,
        errors=(400, 403),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, query: m.DeleteQuery) -> None:
        ids, rest = delete_scope(query)
        who = access(req, self._tenancy)  # an OWNER (the operation requires it) may delete "*" too
        deleted = self._ops.delete_all(who.caller, ids, rest)
        resp.media = {"message": deleted_message(ids, deleted), "deleted": deleted}


def delete_scope(query: m.DeleteQuery) -> tuple[EntityIds, dict[str, Any] | None]:
    """A delete-all's ids from the query string and from its ``filters`` value (JSON or the Python
    literal mem0ai 2.x sends); the same id given twice with different values is a 400."""
    ids = {k: v for k in m.ENTITY_KEYS if (v := getattr(query, k))}
    rest: dict[str, Any] | None = None
    if query.filters is not None:
        lifted, rest = split_entity_ids(parse_query_filters(query.filters))
        for key, value in lifted.items():
            if ids.setdefault(key, value) != value:
                raise ValidationError(f"filters.{key}: '{value}' differs from {key}='{ids[key]}' in the query string")
    return EntityIds.of(ids), rest


def deleted_message(ids: EntityIds, deleted: int) -> str:
    """The delete-all answer: a wildcard delete says what it covered, so ``0`` never reads as a no-op success."""
    wild = ids.wildcards()
    if not wild:
        return "Memories deleted successfully!"
    reach = " or ".join(f"a {f}" for f in wild)
    if deleted == 0:
        return f"No memories deleted: no memory in this project has {reach}"
    return f"Memories deleted successfully! ({deleted} memories that had {reach})"


class HistoryV1:
    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation("History of one memory", auth="platform", tags=TAGS, response=list[m.HistoryEntryV1], errors=(403, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        who = access(req, self._tenancy)
        resp.media = [HistoryEntryV1.of(r).wire() for r in self._ops.history(who.caller, memory_id)]


class EntitiesV1:
    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation(
        "Users, agents, apps and runs of the project with memory counts",
        auth="platform",
        tags=TAGS,
        response=m.EntitiesV1Out,
        errors=(403,),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        who = access(req, self._tenancy)
        results = [EntityV1.of(c).wire() for c in self._ops.entities(who.caller)]
        resp.media = {"count": len(results), "results": results}


class EntityV2:
    def __init__(self, ops: Operations, tenancy: Tenancy) -> None:
        self._ops, self._tenancy = ops, tenancy

    @operation(
        "Delete an entity and all its memories", auth="platform", tags=TAGS, response=m.DeletedOut, errors=(400, 403)
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, entity_type: str, entity_name: str) -> None:
        EntityIds.entity(entity_type, entity_name)  # a bad type is a 400 before the access check, as before
        who = access(req, self._tenancy)
        deleted = self._ops.delete_entity(who.caller, entity_type, entity_name)
        resp.media = {"message": "Entity deleted successfully.", "deleted": deleted}


class BatchV1:
    def __init__(self, ops: Operations, tenancy: Tenancy, limits: Any) -> None:
        self._ops, self._tenancy, self._limits = ops, tenancy, limits

    @operation(
        "Update several memories",
        auth="platform",
        tags=TAGS,
        body=m.Batch,
        response=m.PlatformMessage,
        errors=(400, 403, 404, 422),
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, body: m.Batch) -> None:
        who = access(req, self._tenancy)
        changes = [(item.memory_id, UpdateInput(text=item.text, metadata=item.metadata)) for item in body.memories]
        count = self._ops.update_many(who.caller, changes)
        resp.media = {"message": f"Successfully updated {count} memories"}

    @operation(
        "Delete several memories",
        auth="platform",
        tags=TAGS,
        body=m.Batch,
        response=m.PlatformMessage,
        errors=(400, 403, 404, 422),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, body: m.Batch) -> None:
        who = access(req, self._tenancy)
        count = self._ops.delete_many(who.caller, [item.memory_id for item in body.memories])
        resp.media = {"message": f"Successfully deleted {count} memories"}
