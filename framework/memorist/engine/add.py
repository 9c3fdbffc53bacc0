"""The add pipeline: one pass, ADD-only.

Messages go to the language-model plugin once; each proposed fact becomes a
new memory unless an equal one (normalized hash) or a near-identical one (same
scope, cosine >= ``near_duplicate_threshold``) is already stored. Nothing here
updates or deletes an existing memory: a changed fact is stored beside the old
one, each with its observation time.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy.engine import Connection

from ..components import Components
from ..db import Database
from ..filters import And, Condition, Filter
from ..records import (
    ExtractedFact,
    ExtractionRequest,
    MemoryRecord,
    Message,
    Scope,
    normalized_hash,
    utcnow,
)
from .counts import ScopeCounts
from .entities import EntityGraph
from .history import HistoryLog
from .scope import exact_scope

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


def memory_id(request: AddRequest, text_hash: str) -> str:
    """The id a queued add gives a fact: derived from the event and the fact, so a redo matches."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{request.id_seed}/{text_hash}"))


class AddPipeline:
    def __init__(
        self,
        components: Components,
        db: Database,
        graph: EntityGraph,
        history: HistoryLog,
        counts: ScopeCounts,
        near_duplicate: float,
    ) -> None:
        self._c = components
        self._counts = counts
        self._db = db
        self._graph = graph
        self._history = history
        self._near_duplicate = near_duplicate

    def run(self, request: AddRequest) -> list[MemoryRecord]:
        """Extract, store and record in one call (the synchronous add)."""
        prepared = self.prepare(request)
        if prepared is None:
            return []
        records, vectors = prepared
        self._c.vector_store.upsert(records, vectors)
        with self._db.begin() as conn:
            self.commit(request, records, conn)
        return records

    def prepare(self, request: AddRequest) -> tuple[list[MemoryRecord], np.ndarray] | None:
        """New memories and their vectors, after extraction and both duplicate checks; no writes.

        The durable queue calls the three steps itself so it can note the planned ids
        before the vector write and commit the relational part with its own status.
        """
        observed_at = request.observed_at or utcnow()
        facts = self._facts(request, observed_at)
        facts = self._unique(facts, request)
        if not facts:
            return None
        vectors = self._c.embedder.embed([f.text for f in facts], "document")
        keep = self._not_near_duplicates(vectors, request, facts)
        facts = [f for f, k in zip(facts, keep, strict=True) if k]
        vectors = vectors[np.array(keep, dtype=bool)] if facts else vectors[:0]
        if not facts:
            return None
        now = utcnow()
        return [self._record(request, fact, observed_at, now) for fact in facts], vectors

    def commit(self, request: AddRequest, records: list[MemoryRecord], conn: Connection) -> None:
        """History, entity counts and graph links of stored records, in the caller's transaction."""
        self._history.record(
            [HistoryLog.row("ADD", r, actor=request.actor, role=r.attributed_to) for r in records], conn
        )
        self._counts.adjust(conn, records, +1)
        for record in records:
            self._graph.link(record, self._c.entity_extractor.extract(record.text), conn)

    def _facts(self, request: AddRequest, observed_at: datetime) -> list[ExtractedFact]:
        if not request.infer:
            return [
                ExtractedFact(
                    text=m.content.strip()[:MAX_TEXT],
                    source_message=i,
                    attributed_to=m.role,
                    speaker=m.name,
                )
                for i, m in enumerate(request.messages)
                if m.content.strip() and m.role != "system"
            ]
        extraction = ExtractionRequest(
            messages=request.messages,
            observed_at=observed_at,
            custom_instructions=request.custom_instructions,
            includes=request.includes,
            excludes=request.excludes,
            categories=request.categories,
            multilingual=request.multilingual,
        )
        return [f for f in self._c.language_model.extract(extraction) if f.text.strip()]

    def _unique(self, facts: Sequence[ExtractedFact], request: AddRequest) -> list[ExtractedFact]:
        """Drop facts whose normalized hash repeats in the batch or is already stored in the scope.

        A stored record carrying the id this very add would give the fact is not a
        duplicate but this add's own earlier, interrupted write: it is redone.
        """
        scope = request.scope
        seen: set[str] = set()
        batch: list[ExtractedFact] = []
        for fact in facts:
            digest = normalized_hash(fact.text)
            if digest not in seen:
                seen.add(digest)
                batch.append(fact)
        if not batch:
            return []
        stored = self._c.vector_store.list(
            And((exact_scope(scope), Condition("hash", "in", tuple(seen)))), 0, len(seen)
        )
        existing = {r.hash for r in stored if r.id != memory_id(request, r.hash)}
        return [f for f in batch if normalized_hash(f.text) not in existing]

    def _not_near_duplicates(
        self, vectors: np.ndarray, request: AddRequest, facts: Sequence[ExtractedFact]
    ) -> list[bool]:
        keep: list[bool] = []
        where: Filter = exact_scope(request.scope)
        if request.id_seed:  # this add's own interrupted writes are not duplicates of it
            own = tuple(memory_id(request, normalized_hash(f.text)) for f in facts)
            where = And((where, Condition("id", "nin", own)))
        for i, vector in enumerate(vectors):
            hits = self._c.vector_store.search_vector(vector, 1, where)
            duplicate = bool(hits) and hits[0].score >= self._near_duplicate
            if not duplicate and i:
                earlier = vectors[:i][np.array(keep, dtype=bool)] if any(keep) else vectors[:0]
                duplicate = bool(len(earlier)) and float(np.max(earlier @ vector)) >= self._near_duplicate
            keep.append(not duplicate)
        return keep

    @staticmethod
    def _record(request: AddRequest, fact: ExtractedFact, observed_at: datetime, now: datetime) -> MemoryRecord:
        text = fact.text.strip()[:MAX_TEXT]
        return MemoryRecord(
            id=memory_id(request, normalized_hash(text)) if request.id_seed else str(uuid.uuid4()),
            text=text,
            hash=normalized_hash(text),
            **request.scope.model_dump(),
            categories=list(dict.fromkeys(fact.categories)),
            metadata=dict(request.metadata),
            attributed_to=fact.attributed_to,
            speaker=fact.speaker,
            source_message=fact.source_message,
            observed_at=observed_at,
            created_at=now,
            updated_at=now,
            expires_at=request.expires_at,
        )
