"""The platform API's calls (``Authorization: Token``), described once for both clients (:mod:`.platform`).

The v3 routes for add, search and list (search and list take entity ids inside
``filters`` only: the keyword arguments here are put there), the v1 routes for one
memory, its history, delete-all and events -- what the published mem0 clients call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .base import messages_of
from .models import AddResult, Event, HistoryEntry, Memory, MemoryPage, SearchHit
from .selfhosted_calls import Messages, _ids
from .transport import Call


def scoped_filters(ids: dict[str, str], filters: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``filters`` with the given entity ids ANDed in (v3 search and list take ids only there)."""
    parts: list[dict[str, Any]] = [{k: v} for k, v in ids.items()]
    if filters:
        parts.append(dict(filters))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else {"AND": parts}


def ping() -> Call[dict[str, Any]]:
    """The key's organization, project and user (``GET /v1/ping/``)."""
    return Call("GET", "/v1/ping/", dict)


def add(
    messages: Messages,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    app_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    infer: bool = True,
    timestamp: str | float | None = None,
    expiration_date: str | None = None,
    custom_instructions: str | None = None,
) -> Call[AddResult]:
    """``POST /v3/memories/add/``: ``infer=True`` is queued (``event_id``, see ``wait``); ``infer=False``
    answers the stored memories at once."""
    body: dict[str, Any] = {"messages": messages_of(messages), **_ids(user_id, agent_id, run_id, app_id)}
    body["infer"] = infer
    optional = dict(
        metadata=dict(metadata) if metadata is not None else None,
        timestamp=timestamp,
        expiration_date=expiration_date,
        custom_instructions=custom_instructions,
    )
    body.update({k: v for k, v in optional.items() if v is not None})
    return Call("POST", "/v3/memories/add/", AddResult.model_validate, json=body, idempotent=False)


def search(
    query: str,
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    app_id: str | None = None,
    filters: Mapping[str, Any] | None = None,
    top_k: int = 10,
    threshold: float | None = None,
    rerank: bool = False,
) -> Call[list[SearchHit]]:
    """``POST /v3/memories/search/`` in the key's project; ids narrow it (through ``filters``)."""
    body: dict[str, Any] = {"query": query, "top_k": top_k, "rerank": rerank}
    scoped = scoped_filters(_ids(user_id, agent_id, run_id, app_id), filters)
    if scoped is not None:
        body["filters"] = scoped
    if threshold is not None:
        body["threshold"] = threshold
    return Call(
        "POST",
        "/v3/memories/search/",
        lambda d: [SearchHit.model_validate(h) for h in d["results"]],
        json=body,
        idempotent=True,
    )


def get_all(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    app_id: str | None = None,
    filters: Mapping[str, Any] | None = None,
    page: int = 1,
    page_size: int = 100,
) -> Call[MemoryPage]:
    """One page of the project's memories (``POST /v3/memories/``), narrowed by ids and ``filters``."""
    scoped = scoped_filters(_ids(user_id, agent_id, run_id, app_id), filters)
    return Call(
        "POST",
        "/v3/memories/",
        MemoryPage.model_validate,
        params={"page": page, "page_size": page_size},
        json={"filters": scoped} if scoped is not None else {},
        idempotent=True,
    )


def get(memory_id: str) -> Call[Memory]:
    return Call("GET", f"/v1/memories/{memory_id}/", Memory.model_validate)


def update(memory_id: str, *, text: str | None = None, metadata: Mapping[str, Any] | None = None) -> Call[Memory]:
    body = {
        k: v
        for k, v in dict(text=text, metadata=dict(metadata) if metadata is not None else None).items()
        if v is not None
    }
    return Call("PUT", f"/v1/memories/{memory_id}/", Memory.model_validate, json=body)


def delete(memory_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/memories/{memory_id}/", lambda _: None)


def delete_all(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    app_id: str | None = None,
    filters: Mapping[str, Any] | None = None,
) -> Call[int]:
    """Every memory of the entity (``DELETE /v1/memories/``); ``"*"`` for an id: every entity of that type
    in the project (OWNER only). Answers how many were deleted."""
    params: dict[str, Any] = dict(_ids(user_id, agent_id, run_id, app_id))
    if filters is not None:
        params["filters"] = json.dumps(dict(filters))
    return Call("DELETE", "/v1/memories/", lambda d: int(d["deleted"]), params=params)


def history(memory_id: str) -> Call[list[HistoryEntry]]:
    return Call("GET", f"/v1/memories/{memory_id}/history/", lambda d: [HistoryEntry.model_validate(h) for h in d])


def event(event_id: str) -> Call[Event]:
    """A queued add's state (``GET /v1/event/{id}/``)."""
    return Call("GET", f"/v1/event/{event_id}/", Event.model_validate)
