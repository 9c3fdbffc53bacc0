"""An add event as the queue stores it and every reader sees it: statuses, errors, the record.

Apart from :mod:`.events` (the queue's writes and claims), which re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import MemoristError
from ..records import as_utc

PENDING, RUNNING, SUCCEEDED, FAILED = "PENDING", "RUNNING", "SUCCEEDED", "FAILED"
#: The error of an event whose every attempt ended with an expired lease (no exception to show).
EXHAUSTED_ERROR = "processing did not finish: every attempt stopped before completing (worker stopped or timed out)"
#: The error of a queued add cancelled because all memories of its entity were deleted meanwhile.
CANCELLED_ERROR = "cancelled: the memories of this add's user/agent/run/app were deleted before it was processed"
#: The error of an add that was running when all memories of its entity were deleted: what it
#: had written is removed, so it brings nothing back after the delete.
CANCELLED_RUNNING_ERROR = (
    "cancelled: the memories of this add's user/agent/run/app were deleted while it was being processed; "
    "nothing it extracted was kept"
)


class QueueFull(MemoristError):
    """Back-pressure: the queue is longer than its bound; retry later."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Event:
    id: str
    org_id: str
    project_id: str
    event_type: str
    status: str
    payload: dict[str, Any]
    results: list[dict[str, Any]] | None
    planned_ids: list[str] | None
    error: str | None
    attempts: int
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    #: A delete of the add's entity asked its worker to stop (it was running then).
    cancel_requested: bool = False

    @classmethod
    def from_row(cls, row: Any) -> Event:
        return cls(
            id=row["id"],
            org_id=row["org_id"],
            project_id=row["project_id"],
            event_type=row["event_type"],
            status=row["status"],
            payload=row["payload"],
            results=row["results"],
            planned_ids=row["planned_ids"],
            error=row["error"],
            attempts=row["attempts"],
            created_at=as_utc(row["created_at"]),
            updated_at=as_utc(row["updated_at"]),
            started_at=as_utc(row["started_at"]),
            finished_at=as_utc(row["finished_at"]),
            cancel_requested=bool(row["cancel_requested"]),
        )

    @property
    def latency_ms(self) -> float | None:
        if self.finished_at is None:
            return None
        return round((self.finished_at - self.created_at).total_seconds() * 1000, 3)
