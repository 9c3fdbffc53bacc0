"""Two stored facts, an older and a newer, for the supersession rule's tests: the records the
rule (:func:`memorist.engine.supersession_rule.supersedes`) reads, told four days apart."""

from __future__ import annotations

from datetime import UTC, datetime

from memorist.engine.supersession_rule import supersedes
from memorist.records import MemoryRecord, normalized_hash


def record(text: str, day: int) -> MemoryRecord:
    """A memory of ``text`` observed on ``day`` March 2026 (its id names the day)."""
    moment = datetime(2026, 3, day, tzinfo=UTC)
    return MemoryRecord(
        id=f"m{day}", text=text, hash=normalized_hash(text), observed_at=moment, created_at=moment, updated_at=moment
    )


def replaces(older: str, newer: str, similarity: float | None = None) -> bool:
    """Whether ``newer``, told on the 6th, replaces ``older``, told on the 2nd."""
    return supersedes(record(newer, 6), record(older, 2), similarity)
