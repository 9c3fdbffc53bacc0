"""What one add carries, and the extraction it asks of the language model.

Kept apart from the pipeline (:mod:`.add`), which decides and writes: this part
only validates an add's arguments into an :class:`AddRequest`
(:func:`build_add_request`, which ``Memory.add_request`` is), turns its messages
into proposed facts (verbatim with ``infer=False``) and gives the language model
what it asked for to do so, such as the scope's latest memories for a message
that corrects one (:mod:`.recent`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pydantic

from ..errors import ValidationError
from ..providers import LanguageModel, VectorStore
from ..records import (
    DEFAULT_ORG,
    DEFAULT_PROJECT,
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    Message,
    RecentMemory,
    Scope,
    SkippedInput,
)
from .recent import recent_memories
from .scope import literal_ids, parse_moment, require_entity

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


def coerce_messages(messages: str | Mapping[str, Any] | Sequence[Any]) -> list[Message]:
    """Messages from a string, one dict, or a list of dicts/strings."""
    if isinstance(messages, str):
        return [Message(role="user", content=messages)]
    if isinstance(messages, Mapping):
        return [Message.model_validate(messages)]
    out = []
    for i, item in enumerate(messages):
        if isinstance(item, str):
            out.append(Message(role="user", content=item))
        elif isinstance(item, Message):
            out.append(item)
        elif isinstance(item, Mapping):
            if not isinstance(item.get("content"), str):
                raise ValidationError(f"messages[{i}].content: a string is required")
            out.append(Message.model_validate(item))
        else:
            raise ValidationError(f"messages[{i}]: expected an object with role and content")
    if not out:
        raise ValidationError("messages: at least one message is required")
    return out


def build_add_request(
    messages: str | Mapping[str, Any] | Sequence[Any],
    *,
    user_id: str | None = None,
    agent_id: str | None = None,
    run_id: str | None = None,
    app_id: str | None = None,
    org_id: str = DEFAULT_ORG,
    project_id: str = DEFAULT_PROJECT,
    metadata: Mapping[str, Any] | None = None,
    timestamp: Any = None,
    expiration_date: Any = None,
    infer: bool = True,
    custom_instructions: str | None = None,
    includes: str | None = None,
    excludes: str | None = None,
    custom_categories: Any = None,
    multilingual: bool = False,
    actor: str | None = None,
    id_seed: str | None = None,
    enable_graph: bool | None = None,
) -> AddRequest:
    """A validated add; the durable queue stores these arguments and rebuilds it in a worker."""
    try:
        scope = Scope(
            org_id=org_id, project_id=project_id, user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id
        )
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        raise ValidationError(f"{first['loc'][0]}: {first['msg']}") from None
    require_entity(scope.entity_ids())
    literal_ids(scope.entity_ids())
    return AddRequest(
        messages=coerce_messages(messages),
        scope=scope,
        metadata=dict(metadata or {}),
        observed_at=parse_moment(timestamp, "timestamp"),
        expires_at=parse_moment(expiration_date, "expiration_date", end_of_day=True),
        infer=infer,
        custom_instructions=custom_instructions,
        includes=includes,
        excludes=excludes,
        categories=coerce_categories(custom_categories),
        multilingual=multilingual,
        actor=actor,
        id_seed=id_seed,
    )


def extract(
    request: AddRequest,
    observed_at: datetime,
    model: LanguageModel,
    store: VectorStore,
    earlier: Sequence[RecentMemory] = (),
    asked: Callable[[], Message | None] | None = None,
) -> Extraction:
    """The facts ``request`` proposes, and what it did not keep with the reason.

    ``earlier``: facts of the same scope that a batch (``add_many``) proposed before this
    request and has not written yet. To an extractor asking for recent memories they are
    the newest ones, as they would be had each add of the batch run alone: "Actually, make
    that $4000" one line after "my budget is about $3000" of the same import resolves.
    ``asked``: reads the conversation's open question, called only when the model wants it.
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
    if asked is not None and model.question_wanted(extraction):
        extraction.asked = asked()
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
