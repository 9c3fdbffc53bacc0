"""``/memories``, ``/search``, ``/reset``: the self-hosted wire format onto the operations layer."""

from __future__ import annotations

import falcon

from ...config.settings import LimitsSettings
from ...operations import (
    UNSET,
    AddedMemory,
    AddInput,
    Caller,
    EntityIds,
    HistoryEntry,
    ListInput,
    Operations,
    SearchInput,
    SearchResult,
    UpdateInput,
    caller_for,
)
from ...queue.events import Event
from ..declaration import operation
from . import models as m

TAGS = ("memories",)


def caller(req: falcon.Request) -> Caller:
    """Self-hosted calls act in the default organization and project as the credential's caller:
    an admin unconfined, a user (session or ``svcsk_`` key) confined to its own ``user_id``."""
    return caller_for(getattr(req.context, "principal", None))


def add_input(body: m.AddMemories) -> AddInput:
    """The operations layer's add from one ``POST /memories`` body (a single add or a batch item)."""
    return AddInput(
        messages=[msg.model_dump() for msg in body.messages],
        ids=EntityIds.of(body),
        metadata=body.metadata,
        timestamp=body.timestamp,
        expiration_date=body.expiration_date,
        infer=body.infer,
        custom_instructions=body.custom_instructions,
        includes=body.includes,
        excludes=body.excludes,
        custom_categories=body.custom_categories,
        multilingual=body.multilingual,
    )


class Memories:
    def __init__(self, ops: Operations, limits: LimitsSettings) -> None:
        self._ops = ops
        self._limits = limits

    @operation(
        "Create memories from messages",
        auth="user",
        tags=TAGS,
        body=m.AddMemories,
        response=m.AddResult,
        errors=(400, 401, 413, 422, 429),
        description=f"An add of more than limits.sync_add_chars characters of content (default "
        f"{LimitsSettings().sync_add_chars}) is queued: the answer is 202 with an event_id to poll at "
        "GET /events/{event_id}. Past limits.max_add_chars or limits.max_add_messages: 413.",
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.AddMemories) -> None:
        request = add_input(body)
        outcome = self._ops.add_or_queue(caller(req), request)
        if isinstance(outcome, Event):  # a large add (memorist.queue.admission): processed in the background
            resp.status = falcon.HTTP_202
            resp.media = {
                "results": [],
                "event_id": outcome.id,
                "status": outcome.status,
                "message": f"a large add is processed in the background; poll GET /events/{outcome.id}",
            }
            return
        resp.media = outcome.wire(AddedMemory)

    @operation(
        "List memories of an identifier, newest first or by ``sort``, filtered by text, category, dates, "
        "metadata key or graph entity",
        auth="user",
        tags=TAGS,
        query=m.ListQuery,
        response=m.MemoryPage,
        errors=(400, 401, 422),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, query: m.ListQuery) -> None:
        request = ListInput(
            ids=EntityIds.of(query),
            filters=query.text_filter(),
            page=query.page,
            page_size=query.page_size,
            show_expired=query.show_expired,
            latest_only=query.latest_only,
            as_of=query.as_of,
            sort=query.sort,
            entity_ids=query.entity_ids(),
        )
        who = caller(req)
        page = self._ops.list_memories(who, request)
        resp.media = {
            "results": [item.wire() for item in self._ops.items(who, page.records)],
            "count": page.total,
            "page": query.page,
            "page_size": query.page_size,
        }

    @operation(
        "Delete every memory of an identifier (never capped)",
        auth="user",
        tags=TAGS,
        query=m.DeleteAllQuery,
        response=m.DeletedCount,
        errors=(400, 401, 403, 422),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, query: m.DeleteAllQuery) -> None:
        ids = EntityIds.of(query)
        # "*" (every user, agent, ...) reaches past one entity: admins only (Caller.may_span), as /reset is.
        deleted = self._ops.delete_all(caller(req), ids)
        wild = ids.wildcards()
        reach = f" that had {' or '.join('a ' + f for f in wild)}" if wild else ""
        resp.media = {"message": f"deleted {deleted} memories{reach}", "deleted": deleted}


class OneMemory:
    def __init__(self, ops: Operations, limits: LimitsSettings) -> None:
        self._ops = ops
        self._limits = limits

    @operation("Get one memory", auth="user", tags=TAGS, response=m.MemoryItem, errors=(401, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        who = caller(req)
        resp.media = self._ops.item(who, self._ops.get(who, memory_id)).wire()

    @operation(
        "Update a memory's text, metadata or expiration",
        auth="user",
        tags=TAGS,
        body=m.UpdateMemory,
        response=m.MemoryItem,
        errors=(400, 401, 404, 422),
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, memory_id: str, body: m.UpdateMemory) -> None:
        fields = body.model_fields_set
        request = UpdateInput(
            text=body.text or body.memory or body.data,
            metadata=body.metadata,
            timestamp=body.timestamp,
            expiration_date=body.expiration_date if "expiration_date" in fields else UNSET,
            given=frozenset(fields & {"metadata", "expiration_date", "timestamp"}),
        )
        who = caller(req)
        resp.media = self._ops.item(who, self._ops.update(who, memory_id, request)).wire()

    @operation(
        "Delete one memory (``delete_linked``: and the older ones it superseded, transitively)",
        auth="user",
        tags=TAGS,
        query=m.DeleteOneQuery,
        response=m.Message,
        errors=(400, 401, 404, 422),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, memory_id: str, query: m.DeleteOneQuery) -> None:
        self._ops.delete(caller(req), memory_id, delete_linked=query.delete_linked)
        resp.media = {"message": "memory deleted"}


class History:
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @operation(
        "History of a memory (kept after deletion)",
        auth="user",
        tags=TAGS,
        response=list[m.HistoryEntry],
        errors=(401, 404),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        resp.media = [HistoryEntry.of(r).wire() for r in self._ops.history(caller(req), memory_id)]


class MemoryEntities:
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @operation(
        "The graph entities (names, things) a memory mentions",
        auth="user",
        tags=TAGS,
        response=list[m.MemoryEntityOut],
        errors=(401, 404),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        resp.media = self._ops.memory_entities(caller(req), memory_id)


class EntityGraph:
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @operation(
        "The entity graph of a user's (agent's, run's, app's) memories: the most linked entities and "
        "the memories that link each pair",
        auth="user",
        tags=("entities",),
        query=m.GraphQuery,
        response=m.EntityGraphOut,
        errors=(400, 401, 422),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, query: m.GraphQuery) -> None:
        resp.media = self._ops.entity_graph(caller(req), EntityIds.of(query)).wire()


class Search:
    def __init__(self, ops: Operations, limits: LimitsSettings) -> None:
        self._ops = ops
        self._limits = limits

    @operation(
        "Hybrid search",
        auth="user",
        tags=TAGS,
        body=m.SearchBody,
        response=m.SearchResults,
        errors=(400, 401, 413, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.SearchBody) -> None:
        request = SearchInput(
            query=body.query,
            ids=EntityIds.of(body),
            filters=body.filters,
            top_k=body.limit or body.top_k,
            threshold=body.threshold,
            rerank=body.rerank,
            explain=body.explain,
            show_expired=body.show_expired,
            latest_only=body.latest_only,
            as_of=body.as_of,
            reference_date=body.reference_date,
        )
        resp.media = {"results": [SearchResult.of_hit(h).wire() for h in self._ops.search(caller(req), request)]}


class Reset:
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @operation(
        "Delete every memory, entity link and history row",
        auth="admin",
        tags=TAGS,
        response=m.Message,
        errors=(401, 403),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._ops.reset()
        resp.media = {"message": "all memories reset"}
