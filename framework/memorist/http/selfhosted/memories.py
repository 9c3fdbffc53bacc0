"""``/memories``, ``/search``, ``/reset``: thin translations onto the engine."""

from __future__ import annotations

from typing import Any

import falcon

from ...admission import QUEUE, admit
from ...errors import ValidationError
from ...events import EventStore
from ...records import DEFAULT_ORG, DEFAULT_PROJECT, ENTITY_SCOPE_FIELDS
from ...settings import LimitsSettings
from .. import parsing
from ..operations import operation
from ..present import iso, memory_item, search_result
from ..runtime import Runtime
from . import models as m

TAGS = ("memories",)


def _ids(model: Any) -> dict[str, Any]:
    return {f: getattr(model, f) for f in ENTITY_SCOPE_FIELDS}


def _actor(req: falcon.Request) -> str | None:
    principal = getattr(req.context, "principal", None)
    return principal.label if principal else None


class Memories:
    def __init__(self, runtime: Runtime, limits: LimitsSettings, events: EventStore | None = None) -> None:
        self._runtime = runtime
        self._limits = limits
        self._events = events

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
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, m.AddMemories, self._limits)
        messages = [msg.model_dump() for msg in body.messages]
        arguments: dict[str, Any] = {
            **_ids(body),
            "metadata": body.metadata,
            "timestamp": body.timestamp,
            "expiration_date": body.expiration_date,
            "infer": body.infer,
            "custom_instructions": body.custom_instructions,
            "includes": body.includes,
            "excludes": body.excludes,
            "custom_categories": body.custom_categories,
            "multilingual": body.multilingual,
            "actor": _actor(req),
        }
        memory = self._runtime.memory
        if admit(messages, self._limits) == QUEUE and self._events is not None:
            memory.add_request(messages, **arguments)  # validate now: a bad add is a 400, not a FAILED event
            event = self._events.submit(DEFAULT_ORG, DEFAULT_PROJECT, {"messages": messages, **arguments})
            resp.status = falcon.HTTP_202
            resp.media = {
                "results": [],
                "event_id": event.id,
                "status": event.status,
                "message": f"a large add is processed in the background; poll GET /events/{event.id}",
            }
            return
        stored = memory.add(messages, **arguments)
        resp.media = {"results": [{"id": r.id, "memory": r.text, "event": "ADD"} for r in stored]}

    @operation(
        "List memories of an identifier, newest first",
        auth="user",
        tags=TAGS,
        query=m.ListQuery,
        response=m.MemoryPage,
        errors=(400, 401, 422),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        q = parsing.query(req, m.ListQuery)
        ids = _ids(q)
        if not any(ids.values()):
            raise ValidationError("one of user_id, agent_id, run_id or app_id is required")
        page = self._runtime.memory.list(**ids, page=q.page, page_size=q.page_size, show_expired=q.show_expired)
        resp.media = {
            "results": [memory_item(r) for r in page.records],
            "count": page.total,
            "page": q.page,
            "page_size": q.page_size,
        }

    @operation(
        "Delete every memory of an identifier (never capped)",
        auth="user",
        tags=TAGS,
        query=m.DeleteAllQuery,
        response=m.DeletedCount,
        errors=(400, 401, 422),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        q = parsing.query(req, m.DeleteAllQuery)
        ids = _ids(q)
        if not any(ids.values()):
            raise ValidationError("one of user_id, agent_id, run_id or app_id is required")
        deleted = self._runtime.memory.delete_all(**ids, actor=_actor(req))
        resp.media = {"message": f"deleted {deleted} memories", "deleted": deleted}


class OneMemory:
    def __init__(self, runtime: Runtime, limits: LimitsSettings) -> None:
        self._runtime = runtime
        self._limits = limits

    @operation("Get one memory", auth="user", tags=TAGS, response=m.MemoryItem, errors=(401, 404))
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        resp.media = memory_item(self._runtime.memory.get(memory_id))

    @operation(
        "Update a memory's text, metadata or expiration",
        auth="user",
        tags=TAGS,
        body=m.UpdateMemory,
        response=m.MemoryItem,
        errors=(400, 401, 404, 422),
    )
    def on_put(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        body = parsing.body(req, m.UpdateMemory, self._limits)
        fields = body.model_fields_set
        text = body.text or body.memory or body.data
        if text is None and not fields & {"metadata", "expiration_date", "timestamp"}:
            raise ValidationError("body: give text, metadata, expiration_date or timestamp")
        record = self._runtime.memory.update(
            memory_id,
            text=text,
            metadata=body.metadata,
            expiration_date=body.expiration_date if "expiration_date" in fields else ...,
            timestamp=body.timestamp,
            actor=_actor(req),
        )
        resp.media = memory_item(record)

    @operation("Delete one memory", auth="user", tags=TAGS, response=m.Message, errors=(401, 404))
    def on_delete(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        self._runtime.memory.delete(memory_id, actor=_actor(req))
        resp.media = {"message": "memory deleted"}


class History:
    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @operation(
        "History of a memory (kept after deletion)",
        auth="user",
        tags=TAGS,
        response=list[m.HistoryEntry],
        errors=(401, 404),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, memory_id: str) -> None:
        rows = self._runtime.memory.history(memory_id)
        resp.media = [
            {
                "id": r["id"],
                "memory_id": r["memory_id"],
                "event": r["event"],
                "old_memory": r["old_memory"],
                "new_memory": r["new_memory"],
                "old_metadata": r["old_metadata"],
                "new_metadata": r["new_metadata"],
                "actor": r["actor"],
                "role": r["role"],
                "created_at": iso(r["created_at"]),
            }
            for r in rows
        ]


class Search:
    def __init__(self, runtime: Runtime, limits: LimitsSettings) -> None:
        self._runtime = runtime
        self._limits = limits

    @operation(
        "Hybrid search",
        auth="user",
        tags=TAGS,
        body=m.SearchBody,
        response=m.SearchResults,
        errors=(400, 401, 413, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, m.SearchBody, self._limits)
        ids = _ids(body)
        if not any(ids.values()) and not body.filters:
            raise ValidationError("one of user_id, agent_id, run_id, app_id or filters is required")
        hits = self._runtime.memory.search(
            body.query,
            filters=body.filters,
            **ids,
            top_k=body.limit or body.top_k,
            threshold=body.threshold,
            rerank=body.rerank,
            explain=body.explain,
            show_expired=body.show_expired,
        )
        resp.media = {"results": [search_result(h) for h in hits]}


class Reset:
    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @operation(
        "Delete every memory, entity link and history row",
        auth="admin",
        tags=TAGS,
        response=m.Message,
        errors=(401, 403),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._runtime.memory.reset()
        resp.media = {"message": "all memories reset"}
