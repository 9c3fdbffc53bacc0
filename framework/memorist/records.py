"""The data that crosses plugin boundaries.

Providers exchange these pydantic models instead of loose dicts so that a
third-party vector store or language model sees exactly the fields the engine
relies on, with their types, and a mistake fails loudly at the boundary.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, overload

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Scope fields in the order they are listed, filtered and shown.
SCOPE_FIELDS: tuple[str, ...] = ("org_id", "project_id", "user_id", "agent_id", "run_id", "app_id")
#: The scope fields that name an entity a memory belongs to (user, agent, ...).
ENTITY_SCOPE_FIELDS: tuple[str, ...] = ("user_id", "agent_id", "run_id", "app_id")
#: Each of those fields' entity type, as paths and entity rows name it (``user_id`` -> ``user``).
ENTITY_TYPES: dict[str, str] = {f: f.removesuffix("_id") for f in ENTITY_SCOPE_FIELDS}

DEFAULT_ORG = "default"
DEFAULT_PROJECT = "default"


def utcnow() -> datetime:
    """Current time, timezone-aware, truncated to microseconds (what stores keep)."""
    return datetime.now(UTC)


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """A timestamp read back from a database, timezone-aware (SQLite returns naive UTC)."""
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


_SPACE = re.compile(r"\s+")


def normalized_hash(text: str) -> str:
    """Hash of a memory text after case folding and whitespace collapsing.

    Two memories with the same normalized hash in one scope are exact
    duplicates; the engine refuses to store the second one.
    """
    canonical = _SPACE.sub(" ", text.casefold()).strip().rstrip(".!")
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


#: Roles a message may have. OpenAI's ``developer`` (its newer name for ``system``) is read as ``system``.
MESSAGE_ROLES = ("user", "assistant", "system", "tool", "developer")


class Message(BaseModel):
    """One conversation turn handed to an add."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["user", "assistant", "system", "tool"] = "user"
    content: str
    name: str | None = None

    @field_validator("role", mode="before")
    @classmethod
    def _developer_is_system(cls, value: Any) -> Any:
        return "system" if value == "developer" else value


class Scope(BaseModel):
    """Where a memory lives: always an organization and project, plus entity ids."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    org_id: str = Field(default=DEFAULT_ORG, min_length=1, max_length=64)
    project_id: str = Field(default=DEFAULT_PROJECT, min_length=1, max_length=64)
    user_id: str | None = Field(default=None, min_length=1, max_length=255)
    agent_id: str | None = Field(default=None, min_length=1, max_length=255)
    run_id: str | None = Field(default=None, min_length=1, max_length=255)
    app_id: str | None = Field(default=None, min_length=1, max_length=255)

    def entity_ids(self) -> dict[str, str]:
        """The entity identifiers that are set, e.g. ``{"user_id": "alice"}``."""
        return {f: v for f in ENTITY_SCOPE_FIELDS if (v := getattr(self, f)) is not None}


class MemoryRecord(BaseModel):
    """A stored memory: text, scope and payload. Vectors travel beside it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str
    hash: str
    org_id: str = DEFAULT_ORG
    project_id: str = DEFAULT_PROJECT
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = None
    app_id: str | None = None
    categories: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: Who stated the fact: ``user`` or ``assistant`` (same weight either way).
    attributed_to: str | None = None
    #: The speaker's name when the message carried one.
    speaker: str | None = None
    #: Index of the message, within its add, the memory was extracted from.
    source_message: int | None = None
    #: When the fact was observed (the add's ``timestamp``); drives temporal search.
    observed_at: datetime
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None = None

    @property
    def scope(self) -> Scope:
        return Scope(**{f: getattr(self, f) for f in SCOPE_FIELDS})


class StoreHit(BaseModel):
    """A record returned by a vector-store search with the store's raw score.

    For vector search ``score`` is cosine similarity in [-1, 1]; for keyword
    search it is the store's BM25 score (unbounded, larger is better). A store
    may attach the record's ``vector`` to keyword hits so the engine can score
    their semantic similarity without another query.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    record: MemoryRecord
    score: float
    vector: Any = None


@dataclass(frozen=True, slots=True)
class StoreMatch:
    """A search hit as ranking needs it: the id, the store's raw score and when the fact
    was observed (temporal scoring), without necessarily the whole record.

    Search ranks a few hundred candidates and returns a handful; a store that
    pays per column read (LanceDB reads each column of each hit separately)
    answers ``match_*`` with these and hands over whole records only for the
    winners (``VectorStore.fetch``). ``record`` is set when the store read it
    anyway; ``vector`` as on :class:`StoreHit`; ``handle`` is the store's own
    locator for ``fetch`` (a row address), opaque to everyone else. A plain
    dataclass, not a model: search builds hundreds per query.
    """

    id: str
    score: float
    observed_at: datetime
    vector: Any = None
    record: MemoryRecord | None = None
    handle: Any = None

    @classmethod
    def of(cls, hit: StoreHit) -> StoreMatch:
        return cls(hit.record.id, hit.score, hit.record.observed_at, hit.vector, hit.record)


class ExtractedFact(BaseModel):
    """One memory proposed by a language model (or the heuristic extractor)."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1)
    categories: list[str] = Field(default_factory=list)
    #: Index of the message the fact came from.
    source_message: int | None = None
    attributed_to: str | None = None
    speaker: str | None = None
    #: The fact in its speaker's own words, where they stand alone and differ from ``text``
    #: ("I'm vegetarian." for "The user is vegetarian."): what the memory's vector is made
    #: from (``engine.own_words_vectors``), since a search is worded like the user, not like
    #: the rewrite. None: the vector is made from ``text``.
    words: str | None = None


class SkippedInput(BaseModel):
    """A message, or a part of one, that produced no memory, and why.

    ``reason`` is a short tag: ``greeting``, ``thanks``, ``filler``,
    ``question``, ``excluded``, ``system_message``, ``tool_message``, ``empty``,
    or ``no_fact`` (a language model found nothing to remember in it). ``text``
    is the part that was dropped when only part of the message was.
    """

    model_config = ConfigDict(extra="ignore")

    message: int
    reason: str = Field(min_length=1, max_length=64)
    text: str | None = None


class Extraction(BaseModel):
    """What an extractor made of a request: facts, and the inputs it did not keep."""

    facts: list[ExtractedFact] = Field(default_factory=list)
    skipped: list[SkippedInput] = Field(default_factory=list)
    #: The question the request's last message ends on, still waiting for its answer: the
    #: next add of the conversation may answer it (see ``ExtractionRequest.asked``).
    open_question: Message | None = None


class RecentMemory(BaseModel):
    """One of the scope's latest memories, as an extractor may need it to resolve a reference."""

    text: str
    attributed_to: str | None = None
    speaker: str | None = None
    observed_at: datetime | None = None


class CandidateMemory(BaseModel):
    """A stored memory a new fact may replace, as a language model judging it sees it."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    observed_at: datetime
    #: Who stated it: "user" or "assistant" (None: not known).
    attributed_to: str | None = None
    #: The speaker's name from the message it came from, if it had one.
    speaker: str | None = None


class FactWithCandidates(BaseModel):
    """A fact an add is about to store, with the stored memories it may replace.

    What :meth:`~memorist.plugin.contracts.LanguageModel.replaced_memories` is asked about:
    ``candidates`` are the fact's nearest stored memories that the engine's own guards let it
    replace (one speaker, observed no later), nearest first; empty when there are none."""

    model_config = ConfigDict(frozen=True)

    text: str
    observed_at: datetime
    attributed_to: str | None = None
    speaker: str | None = None
    candidates: tuple[CandidateMemory, ...] = ()


class ExtractionRequest(BaseModel):
    """Everything an extractor may use to turn messages into memories."""

    messages: list[Message]
    observed_at: datetime
    custom_instructions: str | None = None
    includes: str | None = None
    excludes: str | None = None
    #: ``{name: description}`` of the categories a memory may be tagged with.
    categories: dict[str, str] = Field(default_factory=dict)
    #: Keep memories in the input's language rather than translating.
    multilingual: bool = False
    #: The scope's latest memories, oldest first, when the language model asked for them
    #: (``ContextWanted.recent`` from :meth:`~memorist.plugin.contracts.LanguageModel.context_wanted`);
    #: otherwise empty.
    recent: list[RecentMemory] = Field(default_factory=list)
    #: The question the conversation's previous add ended on, while still open (nothing
    #: stored since, within the hour), when the language model asked for it
    #: (``ContextWanted.question`` from :meth:`~memorist.plugin.contracts.LanguageModel.context_wanted`);
    #: otherwise None.
    asked: Message | None = None


@dataclass(frozen=True)
class ContextWanted:
    """What extracting a request needs beside its messages, each read only when asked for.

    Why one answer rather than a method per need: the engine asks once per add, before
    reading anything, and a model states every need at once; a new kind of context is a
    new field here (with a default that reads nothing), not a new hook every language
    model must learn. Returned by :meth:`~memorist.plugin.contracts.LanguageModel.context_wanted`.
    """

    #: How many of the scope's latest memories to put in ``ExtractionRequest.recent``: a
    #: message may refer to one ("Actually, make that $4000"). 0 reads nothing.
    recent: int = 0
    #: Whether to put the question the conversation's previous add ended on in
    #: ``ExtractionRequest.asked``: the first message may be its answer ("27" after "How old
    #: are you?"). False reads nothing.
    question: bool = False


class EntityMention(BaseModel):
    """An entity found in a text: its surface form and a coarse kind."""

    text: str
    kind: Literal["proper_noun", "quoted", "noun_phrase"] = "proper_noun"


class ChatMessage(BaseModel):
    """A message of a chat-completion request to a language model."""

    role: Literal["system", "user", "assistant"]
    content: str
