"""What one add carries, and the extraction it asks of the language model.

Kept apart from the pipeline (:mod:`.add`), which decides and writes: this part
only turns an add's messages into proposed facts (verbatim with ``infer=False``)
and gives the language model what it asked for to do so, such as the scope's
latest memories for a message that corrects one (:mod:`.recent`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..providers import LanguageModel, VectorStore
from ..records import ExtractedFact, Extraction, ExtractionRequest, Message, RecentMemory, Scope, SkippedInput
from .recent import recent_memories

#: Longest memory text; longer facts are cut.
MAX_TEXT = 20_000


@dataclass
class AddRequest:
    """Everything one add may carry (from the Python API or either HTTP surface)."""

    messages: list[Message]
    scope: Scope
    metadata: dict[str, Any] = field(default_factory=dict)
    observed_at: datetime | None = None
    expires_at: datetime | None = None
    infer: bool = True
    custom_instructions: str | None = None
    includes: str | None = None
    excludes: str | None = None
    categories: dict[str, str] = field(default_factory=dict)
    multilingual: bool = False
    actor: str | None = None
    #: Fixed ids make a retried add idempotent (the durable queue sets them).
    id_seed: str | None = None


def coerce_categories(raw: Any) -> dict[str, str]:
    """Custom categories as ``{name: description}`` from a dict or a list of one-key dicts/strings."""
    if not raw:
        return {}
    if isinstance(raw, Mapping):
        return {str(k): str(v or "") for k, v in raw.items()}
    out: dict[str, str] = {}
    for item in raw:
        if isinstance(item, Mapping):
            out.update({str(k): str(v or "") for k, v in item.items()})
        else:
            out[str(item)] = ""
    return out


def extract(
    request: AddRequest,
    observed_at: datetime,
    model: LanguageModel,
    store: VectorStore,
    earlier: Sequence[RecentMemory] = (),
) -> Extraction:
    """The facts ``request`` proposes, and what it did not keep with the reason.

    ``earlier``: facts of the same scope that a batch (``add_many``) proposed before this
    request and has not written yet. To an extractor asking for recent memories they are
    the newest ones, as they would be had each add of the batch run alone: "Actually, make
    that $4000" one line after "my budget is about $3000" of the same import resolves.
    """
    if not request.infer:
        return _verbatim(request.messages)
    extraction = ExtractionRequest(
        messages=request.messages,
        observed_at=observed_at,
        custom_instructions=request.custom_instructions,
        includes=request.includes,
        excludes=request.excludes,
        categories=request.categories,
        multilingual=request.multilingual,
    )
    wanted = model.recent_wanted(extraction)
    if wanted > 0:
        extraction.recent = [*recent_memories(store, request.scope, wanted), *earlier][-wanted:]
    return model.extract_detailed(extraction)


def _verbatim(messages: list[Message]) -> Extraction:
    """``infer=False``: each user or assistant message is a fact as written."""
    facts: list[ExtractedFact] = []
    skipped: list[SkippedInput] = []
    for i, m in enumerate(messages):
        if m.role in ("system", "tool"):
            skipped.append(SkippedInput(message=i, reason=f"{m.role}_message"))
        elif not m.content.strip():
            skipped.append(SkippedInput(message=i, reason="empty"))
        else:
            facts.append(
                ExtractedFact(text=m.content.strip()[:MAX_TEXT], source_message=i, attributed_to=m.role, speaker=m.name)
            )
    return Extraction(facts=facts, skipped=skipped)


def as_recent(extraction: Extraction, observed_at: datetime) -> list[RecentMemory]:
    """An extraction's facts as the recent memories a later add of the same batch may need."""
    return [
        RecentMemory(text=f.text, attributed_to=f.attributed_to, speaker=f.speaker, observed_at=observed_at)
        for f in extraction.facts
    ]
