"""What one add did with each fact it was given: stored, merged, or skipped.

Principle 8 ("nothing a user said is dropped silently"): an add answers what it
stored, what it merged into an existing memory (and which one) and what it
skipped (and why). The add pipeline (:mod:`.add`) fills all three; every door
shows them (see :mod:`memorist.operations.results`), and the rules are in
``docs/memory-rules.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..records import ExtractedFact, MemoryRecord, Message, SkippedInput

#: Longest skipped text an add answer echoes.
SKIPPED_TEXT = 300


@dataclass(frozen=True)
class Merged:
    """A fact not stored because an existing memory already says it."""

    #: The fact as proposed.
    text: str
    #: The memory that already says it: stored before, or by this very add.
    memory_id: str
    #: ``same_text`` (equal normalized text) or ``paraphrase`` (see :mod:`.dedup`).
    reason: str = "same_text"
    #: Index of the input message the fact came from (None when the extractor did not say).
    source_message: int | None = None
    #: The text of the memory it matched.
    matched_memory: str | None = None
    #: Cosine similarity of the two (1.0 for the same text).
    similarity: float = 1.0


@dataclass(frozen=True)
class Skipped:
    """A message, or a part of one, not stored, with the reason (``greeting``, ``thanks``,
    ``filler``, ``question``, ``excluded``, ``system_message``, ``tool_message``, ``empty``,
    ``no_fact``)."""

    text: str
    reason: str
    source_message: int | None = None


@dataclass
class AddOutcome:
    stored: list[MemoryRecord]
    merged: list[Merged] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)


def merged_with(fact: ExtractedFact, matched_id: str, matched_text: str, reason: str, similarity: float) -> Merged:
    """A fact merged with a stored memory (or an earlier fact of the same add)."""
    return Merged(fact.text, matched_id, reason, fact.source_message, matched_text, min(1.0, float(similarity)))


def skipped_input(skipped: SkippedInput, messages: Sequence[Message]) -> Skipped:
    """The engine's record of a skip: the dropped part, or the whole message when the
    extractor named none."""
    text = skipped.text
    if text is None and 0 <= skipped.message < len(messages):
        text = messages[skipped.message].content
    text = text or ""
    if len(text) > SKIPPED_TEXT:  # a long system prompt is named, not echoed whole
        text = text[: SKIPPED_TEXT - 1].rstrip() + "…"
    return Skipped(text, skipped.reason, skipped.message)
