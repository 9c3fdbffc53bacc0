"""The self-hosted REST API's calls, described once for the sync and the async client (:mod:`.selfhosted`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import messages_of
from .models import AddResult, Event, HistoryEntry, Memory, MemoryPage, SearchHit
from .transport import Call

Messages = str | Mapping[str, Any] | list[Mapping[str, Any]]


def _ids(user_id: str | None, agent_id: str | None, run_id: str | None, app_id: str | None) -> dict[str, str]:
    return {k: v for k, v in dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id).items() if v}


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
    """Remember a conversation (``POST /memories``); a large add is queued: ``result.event_id``, see ``wait``."""
    body: dict[str, Any] = {"messages": messages_of(messages), **_ids(user_id, agent_id, run_id, app_id)}
    body["infer"] = infer
    optional = dict(
        metadata=dict(metadata) if metadata is not None else None,
        timestamp=timestamp,
        expiration_date=expiration_date,
        custom_instructions=custom_instructions,
    )
    body.update({k: v for k, v in optional.items() if v is not None})
    return Call("POST", "/memories", AddResult.model_validate, json=body, idempotent=False)


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
    explain: bool = False,
) -> Call[list[SearchHit]]:
    """The memories that best answer ``query`` (``POST /search``; a read, so retried like one)."""
    body: dict[str, Any] = {"query": query, **_ids(user_id, agent_id, run_id, app_id), "top_k": top_k}
    body.update(rerank=rerank, explain=explain)
    if filters is not None:
        body["filters"] = dict(filters)
    if threshold is not None:
        body["threshold"] = threshold
    return Call(
        "POST", "/search", lambda d: [SearchHit.model_validate(h) for h in d["results"]], json=body, idempotent=True
    )


def get_all(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    app_id: str | None = None,
    page: int = 1,
    page_size: int = 100,
) -> Call[MemoryPage]:
    """One page of an entity's memories (``GET /memories``)."""
    params = {**_ids(user_id, agent_id, run_id, app_id), "page": page, "page_size": page_size}
    return Call("GET", "/memories", MemoryPage.model_validate, params=params)


def get(memory_id: str) -> Call[Memory]:
    return Call("GET", f"/memories/{memory_id}", Memory.model_validate)


def update(
    memory_id: str,
    *,
    text: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    expiration_date: str | None = None,
) -> Call[Memory]:
    """Change a memory's text, metadata or expiry (``PUT /memories/{id}``)."""
    body = {
        k: v
        for k, v in dict(text=text, metadata=dict(metadata) if metadata is not None else None).items()
        if v is not None
    }
    if expiration_date is not None:
        body["expiration_date"] = expiration_date
    return Call("PUT", f"/memories/{memory_id}", Memory.model_validate, json=body)


def delete(memory_id: str) -> Call[None]:
    return Call("DELETE", f"/memories/{memory_id}", lambda _: None)


def delete_all(
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    app_id: str | None = None,
) -> Call[int]:
    """Every memory of the entity; ``"*"`` for an id means every entity of that type (admins only).
    Answers how many were deleted."""
    return Call("DELETE", "/memories", lambda d: int(d["deleted"]), params=_ids(user_id, agent_id, run_id, app_id))


def history(memory_id: str) -> Call[list[HistoryEntry]]:
    return Call("GET", f"/memories/{memory_id}/history", lambda d: [HistoryEntry.model_validate(h) for h in d])


def entities() -> Call[list[dict[str, Any]]]:
    return Call("GET", "/entities", lambda d: list(d.get("results", d) if isinstance(d, dict) else d))


def delete_entity(entity_type: str, entity_id: str) -> Call[int]:
    return Call("DELETE", f"/entities/{entity_type}/{entity_id}", lambda d: int(d["deleted"]))


def event(event_id: str) -> Call[Event]:
    """A queued add's state (``GET /events/{id}``)."""
    return Call("GET", f"/events/{event_id}", Event.model_validate)


def health() -> Call[dict[str, Any]]:
    return Call("GET", "/health", dict)
