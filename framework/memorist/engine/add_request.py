"""What one add carries, and the extraction it asks of the language model.

Kept apart from the pipeline (:mod:`.add`), which decides and writes: this part
only validates an add's arguments into an :class:`AddRequest`
(:func:`build_add_request`, which ``Memory.add_request`` is), turns its messages
into proposed facts (verbatim with ``infer=False``) and gives the language model
what it asked for to do so, such as the scope's latest memories for a message
that corrects one (:mod:`.recent`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pydantic

from ..errors import InputTooLarge, ValidationError
from ..plugin.contracts import LanguageModel, VectorStore
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

#: Largest ``metadata`` of one add, in bytes of compact UTF-8 JSON (413 past it).
MAX_METADATA_BYTES = 32 * 1024
#: What one add may cost in stored bytes: its messages' content plus its metadata once per
#: memory it can store (each memory carries the add's metadata, in the vector store and in
#: its history row). 413 past it. Counted before extraction with one memory per message
#: that can become one, and again on the facts an extraction proposes, before any write.
MAX_ADD_STORED_BYTES = 4 * 1024 * 1024
#: The same over every add of one batch (``add_many``, the batch routes, ``memorist import``).
MAX_BATCH_STORED_BYTES = 16 * 1024 * 1024


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
    coerced = coerce_messages(messages)
    kept = dict(metadata or {})
    stored_bytes(coerced, kept, possible_memories(coerced))
    return AddRequest(
        messages=coerced,
        scope=scope,
        metadata=kept,
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


def possible_memories(messages: Sequence[Message]) -> int:
    """The memories an add can store before extraction: one per user or assistant message."""
    return sum(1 for m in messages if m.role not in ("system", "tool"))


def metadata_bytes(metadata: Mapping[str, Any]) -> int:
    """Bytes of ``metadata`` as compact UTF-8 JSON; 413 past :data:`MAX_METADATA_BYTES`."""
    try:
        size = len(
            json.dumps(metadata, separators=(",", ":"), ensure_ascii=False, default=str).encode(
                "utf-8", "surrogatepass"
            )
        )
    except (TypeError, ValueError, RecursionError):
        raise ValidationError("metadata: must be a JSON object") from None
    if size > MAX_METADATA_BYTES:
        raise InputTooLarge(
            f"metadata: {size} bytes in one add; the limit is {MAX_METADATA_BYTES} (MAX_METADATA_BYTES), "
            "keep large documents elsewhere and store a reference"
        )
    return size


def stored_bytes(messages: Sequence[Message] | Sequence[str], metadata: Mapping[str, Any], memories: int) -> int:
    """Bytes one add may store: content plus metadata once per memory; 413 past :data:`MAX_ADD_STORED_BYTES`.

    Metadata is copied onto every memory an add stores, so a few kilobytes of it on an add
    of hundreds of messages would otherwise cost hundreds of times what the request did.
    """
    content = sum(len((m if isinstance(m, str) else m.content).encode("utf-8", "surrogatepass")) for m in messages)
    total = content + metadata_bytes(metadata) * max(memories, 0)
    if total > MAX_ADD_STORED_BYTES:
        raise InputTooLarge(
            f"metadata: this add would store {total} bytes ({memories} memories each carrying its metadata, "
            f"plus the content); the limit is {MAX_ADD_STORED_BYTES} (MAX_ADD_STORED_BYTES), "
            "send less metadata or split the add"
        )
    return total


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
    wanted = model.context_wanted(extraction)
    if wanted.recent > 0:
        extraction.recent = [*recent_memories(store, request.scope, wanted.recent), *earlier][-wanted.recent :]
    if asked is not None and wanted.question:
        extraction.asked = asked()
    extracted = model.extract_detailed(extraction)
    # An extractor may propose more facts than there were messages: count what it would store.
    stored_bytes([f.text for f in extracted.facts], request.metadata, len(extracted.facts))
    return extracted


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
