"""What one add did with each fact it was given: stored, merged, or skipped.

Principle 8 ("nothing a user said is dropped silently"): an add answers what it
stored, what it merged into an existing memory (and which one) and what it
skipped (and why). The engine fills ``stored`` today; ``merged`` and ``skipped``
are there for the retention work (issue 13) to fill, and every door already
shows them (see :mod:`memorist.operations.results`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records import MemoryRecord


@dataclass(frozen=True)
class Merged:
    """A fact not stored because an existing memory already says it."""

    text: str
    memory_id: str
    reason: str = "duplicate"
    source_message: int | None = None


@dataclass(frozen=True)
class Skipped:
    """A fact (or message) not stored, with the reason."""

    text: str
    reason: str
    source_message: int | None = None


@dataclass
class AddOutcome:
    stored: list[MemoryRecord]
    merged: list[Merged] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
