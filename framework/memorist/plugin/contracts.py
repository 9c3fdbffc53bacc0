"""Provider contracts: what a language model, embedder, vector store, reranker
or entity extractor must do for the engine.

A provider class declares ``name`` (what configuration files call it) and a
nested ``Options`` model with ``extra="forbid"`` so that a misspelled option is
an error at startup, not a silently ignored key. Plugins register classes;
configuration makes instances (see :mod:`memorist.plugin.registry`).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeVar

from ..errors import CapabilityError
from ..filters import Filter
from ..records import (
    ChatMessage,
    ContextWanted,
    EntityMention,
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    FactWithCandidates,
    MemoryRecord,
    SkippedInput,
    StoreHit,
    StoreMatch,
)
from .slots import SLOTS

ModelT = TypeVar("ModelT", bound=BaseModel)


class ProviderOptions(BaseModel):
    """Base of every provider's ``Options``: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


#: A provider's options model; ``Provider[MyOptions]`` types ``self.options`` as ``MyOptions``.
OptionsT = TypeVar("OptionsT", bound=ProviderOptions, default=ProviderOptions, covariant=True)


@dataclass
class ProviderContext:
    """What startup hands every provider besides its options.

    ``data_dir`` is where embedded providers keep files; ``dimension`` is the
    embedder's vector size (set for vector stores); ``language_model`` is set
    for providers built after it (rerankers that ask the model);
    ``database_url`` is the kernel's relational database (``database.url``, or
    the SQLite file in ``data_dir``), after every settings source was applied, so
    a provider never reads the environment behind the settings' back.
    """

    data_dir: Path
    dimension: int | None = None
    language_model: LanguageModel | None = None
    database_url: str | None = None
    extras: dict[str, object] = field(default_factory=dict)

    def path(self, option: str | os.PathLike[str]) -> Path:
        """A path option as ``POST /configure``'s policy reads it: ``~`` expanded, and a
        relative path under ``data_dir`` (never under the process's working directory,
        which differs between ``memorist serve``, a worker and a test)."""
        path = Path(option).expanduser()
        return path if path.is_absolute() else Path(self.data_dir) / path


class Provider(ABC, Generic[OptionsT]):
    """Common shape of every provider: a registry name and typed options.

    Generic over its options model: ``class MyStore(VectorStore[MyStoreOptions])``
    with ``Options = MyStoreOptions`` gives ``self.options`` its real type, and a
    subclass's ``__init__(self, options: MyStoreOptions, context)`` is a plain override.
    """

    name: ClassVar[str]
    #: The model configuration options are validated with (``extra="forbid"``).
    Options: ClassVar[type[ProviderOptions]] = ProviderOptions

    def __init__(self, options: OptionsT, context: ProviderContext) -> None:
        self.options: OptionsT = options
        self.context = context

    def describe(self) -> str:
        """Short label for ``/health`` and logs, e.g. ``sentence-transformers:all-MiniLM-L6-v2``."""
        return self.name

    def close(self) -> None:  # noqa: B027 - optional hook: most providers hold nothing to release
        """Release files, sockets or threads. Called when the engine is rebuilt or stops."""


class LanguageModel(Provider[OptionsT]):
    """Turns messages into memories, and (when it is a real model) answers prompts.

    ``extract`` is the one operation every language model must support. The
    offline heuristic extractor implements it with rules; chat models implement
    it with a prompt and also offer :meth:`complete_json`, which the LLM
    reranker and summaries use.
    """

    @abstractmethod
    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        """Facts worth remembering from ``request.messages``; ADD-only, never edits."""

    def context_wanted(self, request: ExtractionRequest) -> ContextWanted:
        """What extracting ``request`` needs beside its messages (see :class:`ContextWanted`):
        the scope's latest memories in ``request.recent``, the conversation's open question
        in ``request.asked``. Called once per add before anything is read; the default wants
        nothing, so an add pays for those reads only when its messages call for them."""
        return ContextWanted()

    def query_forms(self, query: str, user_ids: Sequence[str] = ()) -> list[str]:
        """Forms of a search's ``query`` as the memories this model writes would say it,
        searched beside the query itself (``user_ids``: the users the search is pinned to).

        A model writing memories about "the user" in the third person offers "What does the
        user do for work?" for "What do I do for work?" (see
        :func:`memorist.language.voice.query_forms`). The default offers none: the voice of
        a memory is the language model's to know, not the engine's."""
        return []

    def replaced_memories(self, facts: Sequence[FactWithCandidates]) -> list[list[str]] | None:
        """For each of an add's new ``facts``, the ids of the candidate memories it replaces (a
        new address replaces the old one; "also has a cat" replaces nothing); or None: no
        judgment, the engine's own rule decides (:mod:`memorist.engine.supersession_rule`).

        Why a model may judge: the rule reads words and cosines, and a change told in a
        language or phrasing its word lists lack escapes it; a chat model reads any. Called
        once per add that stores facts, under the scope's lock, after the duplicate check;
        the answer is one list per fact, in order. The engine drops ids that are not among
        that fact's ``candidates`` and keeps its own guards (no link to a later memory or to
        another speaker's), so a wrong answer can never reach beyond them. Must not raise for
        a failed model call: answer None and the rule decides. The default answers None, so
        a model that does not judge leaves the rule in place."""
        return None

    def extract_detailed(self, request: ExtractionRequest) -> Extraction:
        """``extract`` plus what was not kept and why (nothing is dropped silently).

        The default calls :meth:`extract` and accounts for every message no fact
        cites (see :func:`account_for_messages`), so a language model written
        against the older contract keeps working and still reports skips.
        Extractors that know their reasons (the heuristic one, the OpenAI one)
        override it.
        """
        facts = self.extract(request)
        return Extraction(facts=facts, skipped=account_for_messages(request, facts, []))

    def complete_json(self, messages: Sequence[ChatMessage], schema: type[ModelT]) -> ModelT:
        """A reply parsed and validated against ``schema``.

        Raises :class:`CapabilityError` when the provider is not a generative
        model (callers fall back to a model-free path).
        """
        raise CapabilityError(f"language model '{self.name}' cannot answer free-form prompts")

    @property
    def generative(self) -> bool:
        """True when :meth:`complete_json` works (used to pick fallbacks)."""
        return type(self).complete_json is not LanguageModel.complete_json


def account_for_messages(
    request: ExtractionRequest, facts: Sequence[ExtractedFact], skipped: Sequence[SkippedInput]
) -> list[SkippedInput]:
    """``skipped`` plus a reason for every message that neither a fact nor a skip mentions.

    System and tool messages are context, empty ones hold nothing; a user or
    assistant message no fact cites is ``no_fact``. When some fact cites no
    message, which message it came from is unknown, so only the context kinds
    are reported then (a fact may have come from any of the others).
    """
    cited = {f.source_message for f in facts}
    covered = cited | {s.message for s in skipped}
    uncited_facts = None in cited
    out = list(skipped)
    for index, message in enumerate(request.messages):
        if index in covered:
            continue
        if message.role in ("system", "tool"):
            out.append(SkippedInput(message=index, reason=f"{message.role}_message"))
        elif not message.content.strip():
            out.append(SkippedInput(message=index, reason="empty"))
        elif not uncited_facts:
            out.append(SkippedInput(message=index, reason="no_fact"))
    return sorted(out, key=lambda s: s.message)


class Embedder(Provider[OptionsT]):
    """Maps texts to fixed-size vectors."""

    @property
    @abstractmethod
    def dimension(self) -> int:
        """Vector size, read from the model, never assumed."""

    @abstractmethod
    def embed(self, texts: Sequence[str], purpose: Literal["document", "query"] = "document") -> np.ndarray:
        """A float32 array of shape ``(len(texts), dimension)``, L2-normalized."""

    @property
    def languages(self) -> frozenset[str] | None:
        """The languages (ISO 639-1 codes, as :func:`memorist.language.language_of` names them)
        whose meaning the vectors carry; None: every language, or not declared.

        Why the engine asks: ranking by meaning alone is right only where the embedder reads
        the query. An English model puts every Arabic or Korean text near every other, and
        there the keyword index must keep carrying the ranking (``engine.query_kind``)."""
        return None


class VectorStore(Provider[OptionsT]):
    """Stores memories with their vectors; answers vector, keyword and filtered queries.

    Filters arrive parsed (:mod:`memorist.filters`); a store compiles what it
    can and must return exactly the records :func:`memorist.filters.evaluate`
    accepts.
    """

    @abstractmethod
    def upsert(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        """Insert or replace records (by ``id``) with their vectors, as one batch."""

    @abstractmethod
    def get(self, ids: Sequence[str]) -> list[MemoryRecord]:
        """Records with these ids that exist, in no particular order."""

    @abstractmethod
    def delete(self, ids: Sequence[str]) -> int:
        """Delete by id; returns how many existed."""

    @abstractmethod
    def delete_where(self, where: Filter) -> int:
        """Delete every record matching ``where``; returns how many. Never capped."""

    @abstractmethod
    def search_vector(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[StoreHit]:
        """Nearest ``k`` by cosine similarity, best first."""

    @abstractmethod
    def search_keyword(self, query: str, k: int, where: Filter | None = None) -> list[StoreHit]:
        """Best ``k`` by full-text (BM25) relevance, best first. Query syntax is not interpreted."""

    def search_vectors(self, vectors: np.ndarray, k: int, where: Filter | None = None) -> list[list[StoreHit]]:
        """``search_vector`` for each row of ``vectors`` (a batched add's duplicate lookups);
        a store that answers many query vectors in one query overrides this loop."""
        return [self.search_vector(vector, k, where) for vector in np.asarray(vectors)]

    def match_vector(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[StoreMatch]:
        """``search_vector`` for ranking: the same hits, which need not carry whole records
        (see :class:`StoreMatch`); whole ones come from ``fetch``."""
        return [StoreMatch.of(hit) for hit in self.search_vector(vector, k, where)]

    def match_keyword(self, query: str, k: int, where: Filter | None = None) -> list[StoreMatch]:
        """``search_keyword`` for ranking, as ``match_vector`` is for ``search_vector``."""
        return [StoreMatch.of(hit) for hit in self.search_keyword(query, k, where)]

    def fetch(self, matches: Sequence[StoreMatch]) -> dict[str, MemoryRecord]:
        """The whole records of ``matches``, by id. One deleted since its search is missing,
        unless the match carried its record (then that comes back as it was)."""
        found = {m.id: m.record for m in matches if m.record is not None}
        missing = [m.id for m in matches if m.record is None]
        if missing:
            found.update((record.id, record) for record in self.get(missing))
        return found

    def sequence(self, where: Filter | None = None, limit: int | None = None) -> list[str] | None:
        """Ids of the records ``where`` accepts in the order they were stored: oldest
        ``created_at`` first, then oldest ``updated_at`` (an add's ``timestamp`` gives every
        turn of a session the same ``created_at``; ``updated_at`` keeps the order they were
        written in), then id; None when more than ``limit`` match.
        Search reads it to find each memory's conversational neighbours; a store can
        answer it without fetching whole records."""
        keys: list[tuple[Any, Any, str]] = []
        page = 1000
        while True:
            records = self.list(where, offset=len(keys), limit=page)
            keys.extend((r.created_at, r.updated_at, r.id) for r in records)
            if limit is not None and len(keys) > limit:
                return None
            if len(records) < page:
                break
        return [record_id for _, _, record_id in sorted(keys)]

    def snapshot(self, where: Filter, limit: int) -> tuple[list[MemoryRecord], np.ndarray] | None:
        """Every record ``where`` accepts with its vector (row ``i`` of a float32 matrix is
        record ``i``'s), in no particular order; None when more than ``limit`` match.

        Search's in-memory scope index (``memorist.engine.scope_index``) loads one
        scope through this and answers that scope's searches itself. The default,
        None, means "cannot": such a store keeps answering every search itself.
        """
        return None

    @abstractmethod
    def list(self, where: Filter | None = None, offset: int = 0, limit: int = 100) -> list[MemoryRecord]:
        """A page of records, newest ``created_at`` first, ties broken by id."""

    @abstractmethod
    def count(self, where: Filter | None = None) -> int:
        """How many records match."""

    @abstractmethod
    def reset(self) -> None:
        """Delete everything, keeping the store usable."""

    def discard_created(self) -> None:  # noqa: B027 - optional: a store that creates nothing has nothing to undo
        """Remove what building this store created (its table, files, directory) while that
        still holds no record; never what existed before the build. Called on a store that
        will never serve (a ``POST /configure`` refused after building it, e.g. a switch
        that would hide the stored memories), so a refused request leaves storage as it
        found it. ``close`` is called after it and must still be safe. The default keeps
        everything: a store that creates nothing, or cannot tell, has nothing to undo."""


class Reranker(Provider[OptionsT]):
    """Reorders search candidates; scores it returns stay in [0, 1]."""

    @abstractmethod
    def rerank(
        self, query: str, hits: list[tuple[MemoryRecord, float]], top_k: int
    ) -> list[tuple[MemoryRecord, float]]:
        """The best ``top_k`` of ``hits`` (record, score in [0, 1]) in the new order.

        The returned order is the ranking; it need not be sorted by score (a
        diversity reranker keeps relevance scores and only moves items), so
        callers must not re-sort it.
        """


class EntityExtractor(Provider[OptionsT]):
    """Finds entities (proper nouns, quoted text, compound noun phrases) in a text."""

    @abstractmethod
    def extract(self, text: str) -> list[EntityMention]:
        """Entity mentions in ``text``, each once, as written in it (whitespace aside), in the
        extractor's order of priority (the rules extractor: quoted text, proper nouns, then
        noun phrases, so its ``max_entities`` cap drops noun phrases first)."""


#: Provider kinds, as configuration sections name them, with their contracts.
#: Slot kind -> contract class, derived from the slot table (:mod:`memorist.plugin.slots`).
PROVIDER_KINDS: dict[str, type[Provider]] = {slot.kind: globals()[slot.contract] for slot in SLOTS}
