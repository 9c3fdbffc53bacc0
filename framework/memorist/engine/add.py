"""The add pipeline: one pass, ADD-only.

Messages go to the language-model plugin once; each proposed fact becomes a
new memory unless it says the same thing as one already stored in the scope
(or earlier in the same add): the same normalized text, or a paraphrase
(cosine >= ``near_duplicate_threshold``) whose value-bearing tokens agree (see
:mod:`.dedup`; the rule itself is :mod:`.duplicate_rule`). Nothing here updates or deletes an existing memory: a changed
fact is stored beside the old one, each with its observation time.

Nothing is dropped silently: an add answers an :class:`AddOutcome` with what
it stored, what it merged (and with which memory) and what it skipped (and
why, per input message).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

import numpy as np
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.locks import Held
from ..filters import And, Condition
from ..observability.stages import stage, timed
from ..records import Extraction, MemoryRecord, Message, RecentMemory, Scope, normalized_hash, utcnow
from .add_embedding import FactEmbedder
from .add_guard import AddGuard
from .add_request import AddRequest, as_recent, extract
from .attribute_prototypes import AttributeReader
from .batch import BatchStored, scope_key
from .chance_cosine import ChanceCosine, identity_of
from .components import Components
from .counts import ScopeCounts
from .duplicate_rule import (
    NEAR_CANDIDATES,
    SAME_TEXT_VERSIONS,
    DuplicateRule,
    PreparedAdd,
    batch_unique,
    pinned_of,
    vector_text,
)
from .entities import EntityGraph
from .generations import ScopeGenerations
from .history import HistoryLog
from .open_questions import OpenQuestions, asked_reader, conversation_key, left_open
from .outcome import AddOutcome
from .scope import exact_scope
from .scope_index import ScopeIndex
from .supersession import Supersession, SupersessionLog


def source_text(request: AddRequest, record: MemoryRecord) -> str | None:
    """The message a memory was extracted from, as its ADD history row keeps it."""
    index = record.source_message
    if index is None or not 0 <= index < len(request.messages):
        return None
    return request.messages[index].content


class AddPipeline:
    def __init__(
        self,
        components: Components,
        db: Database,
        graph: EntityGraph,
        history: HistoryLog,
        counts: ScopeCounts,
        near_duplicate: float,
        *,
        generations: ScopeGenerations | None = None,
        index: ScopeIndex | None = None,
        source_weight: float = 0.0,
    ) -> None:
        self._c = components
        self._generations = generations
        #: Answers the duplicate lookups from memory when the add's scope is indexed.
        self._index = index
        self._counts = counts
        self._db = db
        self._graph = graph
        self._history = history
        #: Which memory replaced which, written with the add's history rows.
        self.supersessions = SupersessionLog(db)
        #: Embeds an add's facts, beside the scope loads when there are any (:mod:`.add_embedding`).
        self._embedding = FactEmbedder(components, index)
        #: Which extracted facts become new memories, and which stored ones they replace.
        #: Each language's chance-level cosine under this embedder, measured on first need.
        identity = identity_of(components.embedder)
        chance = ChanceCosine(self._embedding.now, identity)
        self.rule = DuplicateRule(
            components,
            index,
            near_duplicate,
            source_weight,
            AttributeReader(self._embedding.now, chance=chance, identity=identity),
            chance,
            superseded=self.supersessions.superseded,
        )
        #: Each conversation's open question (needs the generations to tell when it closed).
        self.questions = OpenQuestions(db, generations) if generations is not None else None
        #: Scope locks around the duplicate check and the writes, and intents for history (:mod:`.add_guard`).
        self.guard = AddGuard(db)

    def close(self) -> None:
        """Stop the embedding's helper threads (the engine is being replaced or closed)."""
        self._embedding.close()

    def run(self, request: AddRequest) -> AddOutcome:
        """Extract, store and record in one call (the synchronous add).

        The duplicate check and the writes run under the scope's lock, so an identical
        add racing this one sees what this one stored (:mod:`.add_guard`).
        """
        observed_at, extraction = self.extracted(request)
        bumped: dict[str, int] = {}
        with self.guard.hold([request.scope]) as held:
            prepared = self.decide(request, observed_at, extraction)
            if prepared.records:
                with stage("add", "write"):
                    intent = self.guard.open_intent(held, [request.scope], request.actor)
                    self._c.vector_store.upsert(prepared.records, prepared.vectors)
                    with held.begin() as conn:
                        bumped = self.commit(request, prepared.records, conn, prepared.supersessions)
                        self.guard.close_intent(conn, intent)
                self.written(prepared.records, prepared.vectors, bumped)
        self.note_question(request, prepared.open_question, bumped)
        return prepared.outcome

    def recover(self) -> int:
        """History, counts and links of memories a killed add stored without them (:mod:`.add_guard`)."""

        def commit(conn: Connection, scope: Scope, actor: str | None, records: list[MemoryRecord]) -> None:
            self._commit_rows([(AddRequest(messages=[], scope=scope, actor=actor), records)], conn)

        return self.guard.recover(self._c.vector_store, commit)

    def note_question(self, request: AddRequest, question: Message | None, bumped: dict[str, int]) -> None:
        """After an add's writes: keep the question it ended on for the conversation's next add."""
        if self.questions is not None and question is not None:
            self.questions.note(request.scope, question, bumped)

    def run_many(self, requests: Sequence[AddRequest]) -> list[AddOutcome]:
        """Many adds with the outcomes of one add after another, at batch cost.

        Extraction runs per request; every distinct fact of the batch is embedded in
        one embedder call; each request is then judged in order against the store
        and the records the batch has already decided to store (:mod:`.batch`); the
        vectors are written in one upsert and the relational rows in one transaction.
        Nothing is written if any request fails.
        """
        extracted = []
        texts: dict[str, None] = {}
        # Each scope's facts proposed so far, the newest memories a later request may refer to.
        proposed: dict[tuple[tuple[str, str | None], ...], list[RecentMemory]] = {}
        # Each conversation's question as the batch leaves it (None: answered or closed).
        asked: dict[str, Message | None] = {}
        for request in requests:
            observed_at = request.observed_at or utcnow()
            earlier = proposed.setdefault(scope_key(request.scope), [])
            extraction = self._extraction(request, observed_at, earlier, asked)
            earlier.extend(as_recent(extraction, observed_at))
            left_open(asked, request.scope, extraction)
            extracted.append((observed_at, extraction))
            texts.update((t, None) for t in self.rule.to_embed(request, batch_unique(extraction.facts)[0]))
        scopes = list({scope_key(r.scope): r.scope for r in requests}.values())
        with self.guard.hold(scopes) as held:
            prepared, bumped = self._store_many(requests, extracted, texts, scopes, held)
        for request in reversed(requests):  # each conversation's question as its last request left it
            if (conversation := conversation_key(request.scope)) in asked:
                self.note_question(request, asked.pop(conversation), bumped)
        return [one.outcome for one in prepared]

    def _store_many(
        self,
        requests: Sequence[AddRequest],
        extracted: list[tuple[datetime, Extraction]],
        texts: dict[str, None],
        scopes: list[Scope],
        held: Held,
    ) -> tuple[list[PreparedAdd], dict[str, int]]:
        """:meth:`run_many`'s duplicate checks and writes, under the locks of every scope it touches."""
        ordered = list(texts)
        # Embedded on a helper thread while the store is read (a batch over many users loads
        # many scopes; both wait mostly outside the GIL); the lookups wait for it.
        embedding = self._embedding.aside(ordered)
        row = {text: i for i, text in enumerate(ordered)}

        def vectors_of(wanted: list[str]) -> np.ndarray:
            picked: np.ndarray = embedding()[np.array([row[t] for t in wanted], dtype=int)]
            return picked

        batch = BatchStored()
        self._read_store(requests, [e for _, e in extracted], vectors_of, batch)
        prepared = []
        for request, (observed_at, extraction) in zip(requests, extracted, strict=True):
            one = self.rule.decide(request, observed_at, extraction, vectors_of, batch)
            batch.add(one.records, one.vectors)
            batch.replaced.update(link.older.id for link in one.supersessions)
            prepared.append(one)
        if not batch.records:
            return prepared, {}
        intent = self.guard.open_intent(held, scopes, requests[0].actor)
        self._c.vector_store.upsert(batch.records, np.stack([batch.vector(i) for i in range(len(batch.records))]))
        stored = [(request, one) for request, one in zip(requests, prepared, strict=True) if one.records]
        with held.begin() as conn:
            bumped = self._commit_rows([(request, one.records) for request, one in stored], conn)
            self.supersessions.record([s for _, one in stored for s in one.supersessions], conn)
            self.guard.close_intent(conn, intent)
        records = [r for _, one in stored for r in one.records]
        self.written(records, np.concatenate([one.vectors for _, one in stored]), bumped)
        return prepared, bumped

    def _read_store(
        self,
        requests: Sequence[AddRequest],
        extractions: Sequence[Extraction],
        vectors_of: Callable[[list[str]], np.ndarray],
        batch: BatchStored,
    ) -> None:
        """The duplicate lookups of a batch against the store, two queries per scope: its
        records with any of the batch's hashes, and the nearest memories of every fact."""
        scopes: dict[tuple[tuple[str, str | None], ...], tuple[Scope, dict[str, None], dict[str, None]]] = {}
        for request, extraction in zip(requests, extractions, strict=True):
            if request.id_seed:  # its own earlier writes are excluded: it looks up alone
                continue
            _, hashes, texts = scopes.setdefault(scope_key(request.scope), (request.scope, {}, {}))
            for fact in batch_unique(extraction.facts)[0]:
                hashes[normalized_hash(fact.text)] = None
                texts[vector_text(fact)] = None
        store = self._c.vector_store
        # First every scope's snapshot (loads) and same-text lookup, which need no vectors...
        read = []
        for scope, hashes, texts in scopes.values():
            where = exact_scope(scope)
            same = And((where, Condition("hash", "in", tuple(hashes))))
            view = self.rule.view(scope)
            most = len(hashes) * SAME_TEXT_VERSIONS
            stored = view.list(same, most) if view is not None else store.list(same, 0, most)
            read.append((scope, where, view, stored, list(texts)))
        # ...then the nearest memories of each fact, once the batch is embedded.
        for scope, where, view, stored, ordered in read:
            if view is not None:  # the scope is in memory: no store query at all
                nearest = [view.search_vector(v, NEAR_CANDIDATES, where) for v in vectors_of(ordered)]
            else:
                nearest = store.search_vectors(vectors_of(ordered), NEAR_CANDIDATES, where)
            batch.remember_store(scope, stored, ordered, nearest)

    def prepare(self, request: AddRequest) -> PreparedAdd:
        """New memories and their vectors, after extraction and the duplicate rule; no writes.

        Writers call :meth:`extracted` and :meth:`decide` themselves, the second under the
        scope's lock (the durable queue also notes the planned ids before the vector write
        and commits the relational part with its own status).
        """
        return self.decide(request, *self.extracted(request))

    def extracted(self, request: AddRequest) -> tuple[datetime, Extraction]:
        """The add's time and extraction: the slow part, run before the scope's lock is taken."""
        observed_at = request.observed_at or utcnow()
        with stage("add", "extract"):
            return observed_at, self._extraction(request, observed_at)

    def decide(self, request: AddRequest, observed_at: datetime, extraction: Extraction) -> PreparedAdd:
        """The duplicate rule over an extraction: the records to store and their vectors (no writes)."""
        # The distinct facts' texts only for an add whose scope is about to load (no extra work on
        # the hot path of an add to a scope already held).
        embed = self._embedding.for_add(
            pinned_of(request.scope), lambda: self.rule.to_embed(request, batch_unique(extraction.facts)[0])
        )
        with stage("add", "decide"):  # the duplicate rule: store lookups, and the embedding (below)
            prepared = self.rule.decide(request, observed_at, extraction, timed("add", "embed", embed))
        prepared.open_question = extraction.open_question
        return prepared

    def commit(
        self,
        request: AddRequest,
        records: list[MemoryRecord],
        conn: Connection,
        supersessions: Sequence[Supersession] = (),
    ) -> dict[str, int]:
        """History, entity counts, graph links and supersessions of stored records, in the caller's
        transaction; returns the scope generations it bumped (for :meth:`written`, once it commits)."""
        bumped = self._commit_rows([(request, records)], conn)
        self.supersessions.record(supersessions, conn)
        return bumped

    def _commit_rows(self, stored: Sequence[tuple[AddRequest, list[MemoryRecord]]], conn: Connection) -> dict[str, int]:
        """:meth:`commit` for one add or a batch: the history rows in one insert, the entity
        counts in one adjustment and one generation bump per scope for the whole batch (the
        additions log names all its memories), so a batch costs a few statements more than
        one add, plus each new memory's graph links."""
        records = [r for _, rs in stored for r in rs]
        self._history.record(
            [
                HistoryLog.row("ADD", r, actor=request.actor, role=r.attributed_to, input=source_text(request, r))
                for request, rs in stored
                for r in rs
            ],
            conn,
        )
        self._counts.adjust(conn, records, +1)
        for record in records:
            self._graph.link(record, self._c.entity_extractor.extract(record.text), conn)
        # The vectors are written: searches may now see them.
        return self._generations.bump_added(conn, records) if self._generations is not None else {}

    def written(self, records: list[MemoryRecord], vectors: np.ndarray, bumped: dict[str, int]) -> None:
        """After the commit: this process's cached snapshots of the scopes take the new records."""
        if self._index is not None and records:
            self._index.added(records, vectors, bumped)

    def _extraction(
        self,
        request: AddRequest,
        observed_at: datetime,
        earlier: Sequence[RecentMemory] = (),
        batch_asked: dict[str, Message | None] | None = None,
    ) -> Extraction:
        """The request's extraction; ``batch_asked``: see :func:`.open_questions.asked_reader`."""
        asked = asked_reader(self.questions, request.scope, batch_asked)
        return extract(request, observed_at, self._c.language_model, self._c.vector_store, earlier, asked)
