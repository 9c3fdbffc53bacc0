"""Two stored facts, an older and a newer, for the supersession rule's tests: the records the
rule (:func:`memorist.engine.supersession_rule.supersedes`) reads, told four days apart; and
a sequence of adds replayed through an engine, read back with ``latest_only``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memorist.engine.supersession_rule import supersedes
from memorist.records import MemoryRecord, normalized_hash

if TYPE_CHECKING:
    from memorist.python.engine import Engine


def record(text: str, day: int, attributed_to: str | None = None) -> MemoryRecord:
    """A memory of ``text`` observed on ``day`` March 2026 (its id names the day), said by
    ``attributed_to`` when given ("user", "assistant")."""
    moment = datetime(2026, 3, day, tzinfo=UTC)
    return MemoryRecord(
        id=f"m{day}",
        text=text,
        hash=normalized_hash(text),
        observed_at=moment,
        created_at=moment,
        updated_at=moment,
        attributed_to=attributed_to,
    )


def replaces(older: str, newer: str, similarity: float | None = None) -> bool:
    """Whether ``newer``, told on the 6th, replaces ``older``, told on the 2nd."""
    return supersedes(record(newer, 6), record(older, 2), similarity)


def replaces_as_told(older: str, newer: str) -> bool:
    """Whether ``newer``, told on the 6th, replaces ``older``, told on the 2nd, each said by the
    speaker its label names ("The assistant ..." by the assistant, else the user)."""

    def by(text: str) -> str:
        return "assistant" if text.startswith("The assistant") else "user"

    return supersedes(record(newer, 6, by(newer)), record(older, 2, by(older)))


def current_adds(engine: Engine, user: str, adds: Sequence[Any], *, every_add_stored: bool = False) -> list[int]:
    """Which adds' memories a ``latest_only`` list shows, the adds (texts or chat messages)
    told a day apart; ``every_add_stored``: fail when an add stores nothing."""
    ids = []
    for day, text in enumerate(adds, start=2):
        ids.append([r.id for r in engine.add(text, user_id=user, timestamp=f"2026-03-{day:02d}T09:00:00Z")])
    if every_add_stored:
        assert all(ids), ids
    shown = {r.id for r in engine.list(user_id=user, latest_only=True, page_size=50).records}
    return [i for i, stored in enumerate(ids) if stored and set(stored) <= shown]
