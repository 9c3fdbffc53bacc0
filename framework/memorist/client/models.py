"""What the client answers: typed views of the server's JSON bodies.

Every model allows fields it does not name (``extra="allow"``): a newer server that
adds a field to an answer must not break an older client. The fields named are the
ones both surfaces answer (docs/http-api.md, docs/platform-api.md).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class _Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


class Memory(_Answer):
    id: str
    memory: str
    metadata: dict[str, Any] | None = None
    categories: list[str] | None = None
    created_at: str | None = None
    updated_at: str | None = None
    expiration_date: str | None = None
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None


class SearchHit(Memory):
    score: float | None = None
    score_details: dict[str, Any] | None = None


class AddedMemory(_Answer):
    id: str
    memory: str
    event: str


class AddResult(_Answer):
    """An add's answer: the memories stored at once, or (queued) an ``event_id`` to wait for."""

    results: list[AddedMemory] = []
    merged: list[dict[str, Any]] | None = None
    skipped: list[dict[str, Any]] | None = None
    event_id: str | None = None
    status: str | None = None
    message: str | None = None

    @property
    def queued(self) -> bool:
        return self.event_id is not None and self.status not in ("SUCCEEDED", "FAILED")


class MemoryPage(_Answer):
    results: list[Memory]
    count: int
    page: int | None = None
    page_size: int | None = None
    next: str | None = None
    previous: str | None = None


class HistoryEntry(_Answer):
    id: str | None = None
    memory_id: str | None = None
    event: str
    old_memory: str | None = None
    new_memory: str | None = None
    created_at: str | None = None


class Event(_Answer):
    """A queued add: PENDING until its memories are stored (SUCCEEDED) or it failed (FAILED, ``error``)."""

    id: str
    status: str
    results: list[dict[str, Any]] = []
    error: str | None = None

    @property
    def finished(self) -> bool:
        return self.status in ("SUCCEEDED", "FAILED")
