"""The add pipeline: one pass, ADD-only.

Messages go to the language-model plugin once; each proposed fact becomes a
new memory unless it says the same thing as one already stored in the scope
(or earlier in the same add): the same normalized text, or a paraphrase
(cosine >= ``near_duplicate_threshold``) whose value-bearing tokens agree (see
:mod:`.dedup`). Nothing here updates or deletes an existing memory: a changed
fact is stored beside the old one, each with its observation time.

Nothing is dropped silently: an add answers an :class:`AddOutcome` with what
it stored, what it merged (and with which memory) and what it skipped (and
why, per input message).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.locks import Held
from ..filters import And, Condition, Filter
from ..observability.stages import stage, timed
from ..records import (
    ExtractedFact,
    Extraction,
    MemoryRecord,
    Message,
    RecentMemory,
    Scope,
    StoreHit,
    normalized_hash,
    utcnow,
)
from .add_embedding import FactEmbedder
from .add_guard import AddGuard
from .add_request import MAX_TEXT, AddRequest, as_recent, extract
from .attribute_prototypes import AttributeReader
from .batch import BatchStored, scope_key
from .components import Components
from .counts import ScopeCounts
from .dedup import same_fact
from .entities import EntityGraph
from .generations import ScopeGenerations
from .history import HistoryLog
from .open_questions import OpenQuestions, asked_reader, conversation_key, left_open
from .outcome import AddOutcome, merged_with, skipped_input
from .scope import exact_scope
from .scope_index import Pinned, ScopeIndex, ScopeView
from .source_vectors import blend, source_of
from .supersession import Supersession, SupersessionLog
from .supersession_rule import supersedes

#: Stored neighbours a new fact is compared with (the nearest may differ in a value).
NEAR_CANDIDATES = 5
#: How much lower the duplicate rule's cosine threshold is for a fact embedded from its
#: speaker's own words (``ExtractedFact.words``). The rewrite's "The user ..." is shared by
#: every memory of the scope and lifts the cosine of any two short statements; without it
#: the same paraphrase scores lower (MiniLM: "I can speak Spanish." / "I speak Spanish."
#: 0.895 against 0.948 as rewrites; "I really like tea!" / "I like tea." 0.871 against
#: 0.925), and so do different values ("I live in Lisbon." / "... Porto." 0.75 against 0.81),
#: which the value-token check rejects anyway. Set on tests/retention: with own words, a
#: threshold of 0.86 or 0.85 merges every repeat there and no distinct fact; 0.9 missed two
#: of its 21 paraphrases.
OWN_WORDS_OFFSET = 0.04


@dataclass
class PreparedAdd:
    """New records with their vectors (nothing written yet) and the outcome they belong to."""

    records: list[MemoryRecord]
    vectors: np.ndarray
    outcome: AddOutcome
    #: The question the add's last message ended on (:mod:`.open_questions`).
    open_question: Message | None = None
    #: Stored memories the new records replace (:mod:`.supersession`).
    supersessions: list[Supersession] = field(default_factory=list)


@dataclass
class _Twin:
    """A fact that repeats an earlier one of the same add (resolved once that one has an id)."""

    fact: ExtractedFact
    first: int
    reason: str
    similarity: float


def source_text(request: AddRequest, record: MemoryRecord) -> str | None:
    """The message a memory was extracted from, as its ADD history row keeps it."""
    index = record.source_message
    if index is None or not 0 <= index < len(request.messages):
        return None
    return request.messages[index].content


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
        *,
        generations: ScopeGenerations | None = None,
        index: ScopeIndex | None = None,
        source_weight: float = 0.0,
    ) -> None:
        self._c = components
        #: Share of the source message's vector in a stored memory's vector (:mod:`.source_vectors`).
        self._source_weight = source_weight
        self._generations = generations
        #: Answers the duplicate lookups from memory when the add's scope is indexed.
        self._index = index
        self._counts = counts
        self._db = db
        self._graph = graph
        self._history = history
        #: Which memory replaced which, written with the add's history rows.
        self.supersessions = SupersessionLog(db)
        self._near_duplicate = near_duplicate
        #: Embeds an add's facts, beside the scope loads when there are any (:mod:`.add_embedding`).
        self._embedding = FactEmbedder(components, index)
        #: A fact's single-valued attribute read by meaning, for the supersession rule.
        self._attributes = AttributeReader(self._embedding.now)
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
            texts.update((t, None) for t in self._to_embed(request, self._batch_unique(extraction.facts)[0]))
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
            one = self._decide(request, observed_at, extraction, vectors_of, batch)
            batch.add(one.records, one.vectors)
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
            for fact in self._batch_unique(extraction.facts)[0]:
                hashes[normalized_hash(fact.text)] = None
                texts[self._vector_text(fact)] = None
        store = self._c.vector_store
        # First every scope's snapshot (loads) and same-text lookup, which need no vectors...
        read = []
        for scope, hashes, texts in scopes.values():
            where = exact_scope(scope)
            same = And((where, Condition("hash", "in", tuple(hashes))))
            view = self._view(scope)
            stored = view.list(same, len(hashes)) if view is not None else store.list(same, 0, len(hashes))
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
            self._pinned(request.scope), lambda: self._to_embed(request, self._batch_unique(extraction.facts)[0])
        )
        with stage("add", "decide"):  # the duplicate rule: store lookups, and the embedding (below)
            prepared = self._decide(request, observed_at, extraction, timed("add", "embed", embed))
        prepared.open_question = extraction.open_question
        return prepared

    def _decide(
        self,
        request: AddRequest,
        observed_at: datetime,
        extraction: Extraction,
        embed: Callable[[list[str]], np.ndarray],
        batch: BatchStored | None = None,
    ) -> PreparedAdd:
        """The duplicate rule over extracted facts (``batch``: a batched add's earlier records)."""
        outcome = AddOutcome([], skipped=[skipped_input(s, request.messages) for s in extraction.skipped])
        facts, twins = self._batch_unique(extraction.facts)
        # Each distinct fact of the batch ends up as (id, text) of the memory that holds it.
        holder: dict[int, tuple[str, str]] = {}
        fresh = self._not_stored(facts, request, holder, outcome, batch)
        wanted = [self._vector_text(facts[i]) for i in fresh]
        # The source messages of a blend ride in the facts' embedder call (:mod:`.source_vectors`).
        sources = [source_of(request, facts[i]) for i in fresh] if self._source_weight > 0 else []
        extra = [t for t in dict.fromkeys(s for s in sources if s is not None) if t not in set(wanted)]
        matrix = embed(wanted + extra) if fresh else None
        vectors = matrix[: len(wanted)] if matrix is not None else None
        near: dict[int, list[StoreHit]] = {}
        keep = self._not_paraphrases(fresh, facts, vectors, request, holder, outcome, twins, batch, near)
        now = utcnow()
        records = []
        replaced: list[Supersession] = []
        for index in keep:
            record = self._record(request, facts[index], observed_at, now)
            holder[index] = (record.id, record.text)
            records.append(record)
            replaced.extend(
                Supersession(h.record, record)
                for h in near.get(index, ())
                if supersedes(record, h.record, h.score, self._attributes.attribute_of)
            )
        for twin in twins:
            matched_id, matched_text = holder[twin.first]
            outcome.merged.append(merged_with(twin.fact, matched_id, matched_text, twin.reason, twin.similarity))
        outcome.stored = records
        outcome.merged.sort(key=lambda m: (m.source_message is None, m.source_message or 0))
        rows = [fresh.index(i) for i in keep]
        kept_vectors = vectors[np.array(rows, dtype=int)] if vectors is not None and rows else np.zeros((0, 0))
        if rows and matrix is not None and sources:
            embedded = dict(zip(wanted + extra, matrix, strict=True))
            kept_vectors = blend(kept_vectors, [sources[r] for r in rows], embedded, self._source_weight)
        return PreparedAdd(records, kept_vectors, outcome, supersessions=replaced)

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

    @staticmethod
    def _vector_text(fact: ExtractedFact) -> str:
        """What ``fact``'s vector is made from: its speaker's own words where the language model
        offers them (``ExtractedFact.words``; it also offers the query forms that match), else
        its text. The duplicate check compares these vectors too, so a fact restated in the
        user's words meets the stored one in the same voice."""
        return fact.words or fact.text

    def _to_embed(self, request: AddRequest, facts: Sequence[ExtractedFact]) -> list[str]:
        """The texts an add embeds for ``facts``: theirs, and with a source blend their messages'."""
        texts = [self._vector_text(fact) for fact in facts]
        if self._source_weight > 0:
            texts += [s for fact in facts if (s := source_of(request, fact)) is not None]
        return list(dict.fromkeys(texts))

    @staticmethod
    def _batch_unique(proposed: Sequence[ExtractedFact]) -> tuple[list[ExtractedFact], list[_Twin]]:
        """Distinct facts of one add, and the ones repeating an earlier fact's normalized text."""
        facts: list[ExtractedFact] = []
        twins: list[_Twin] = []
        first: dict[str, int] = {}
        for fact in proposed:
            text = fact.text.strip()[:MAX_TEXT]
            if not text:
                continue
            fact = fact.model_copy(update={"text": text})
            digest = normalized_hash(text)
            if digest in first:
                twins.append(_Twin(fact, first[digest], "same_text", 1.0))
            else:
                first[digest] = len(facts)
                facts.append(fact)
        return facts, twins

    def _not_stored(
        self,
        facts: list[ExtractedFact],
        request: AddRequest,
        holder: dict[int, tuple[str, str]],
        outcome: AddOutcome,
        batch: BatchStored | None = None,
    ) -> list[int]:
        """Indexes of the facts whose normalized text is not already stored in the scope.

        A stored record carrying the id this very add would give the fact is not a
        duplicate but this add's own earlier, interrupted write: it is redone.
        """
        if not facts:
            return []
        hashes = tuple(normalized_hash(f.text) for f in facts)
        where = And((exact_scope(request.scope), Condition("hash", "in", tuple(set(hashes)))))
        known = batch is not None and batch.knows(request.scope, bool(request.id_seed))
        view = None if known else self._view(request.scope)
        if batch is not None and known:
            stored = batch.stored_with(request.scope, hashes)
        elif view is not None:
            stored = view.list(where, len(hashes))
        else:
            stored = self._c.vector_store.list(where, 0, len(hashes))
        if batch is not None:  # a batch never stores a text the store already holds
            stored = [*stored, *batch.matching(request.scope, set(hashes))]
        existing = {r.hash: r for r in stored if r.id != memory_id(request, r.hash)}
        fresh = []
        for index, (fact, digest) in enumerate(zip(facts, hashes, strict=True)):
            match = existing.get(digest)
            if match is None:
                fresh.append(index)
                continue
            holder[index] = (match.id, match.text)
            outcome.merged.append(merged_with(fact, match.id, match.text, "same_text", 1.0))
        return fresh

    def _not_paraphrases(
        self,
        fresh: list[int],
        facts: list[ExtractedFact],
        vectors: np.ndarray | None,
        request: AddRequest,
        holder: dict[int, tuple[str, str]],
        outcome: AddOutcome,
        twins: list[_Twin],
        batch: BatchStored | None = None,
        near: dict[int, list[StoreHit]] | None = None,
    ) -> list[int]:
        """Indexes of the fresh facts that no stored memory (nor an earlier fact of this add)
        already says; the others are merged with the memory they paraphrase. ``near`` takes
        each kept fact's nearest stored memories (what it may supersede)."""
        if vectors is None:
            return []
        where: Filter = exact_scope(request.scope)
        own: tuple[str, ...] = ()
        if request.id_seed:  # this add's own interrupted writes are not duplicates of it
            own = tuple(memory_id(request, normalized_hash(facts[i].text)) for i in fresh)
            where = And((where, Condition("id", "nin", own)))
        known = batch is not None and batch.knows(request.scope, bool(request.id_seed))
        view = None if known else self._view(request.scope)
        keep: list[int] = []
        for row, index in enumerate(fresh):
            fact, vector = facts[index], vectors[row]
            threshold = self._near_duplicate - (OWN_WORDS_OFFSET if fact.words else 0.0)
            if batch is not None and known:
                hits = batch.stored_nearest(request.scope, self._vector_text(fact))
            elif view is not None:
                hits = view.search_vector(vector, NEAR_CANDIDATES, where)
            else:
                hits = self._c.vector_store.search_vector(vector, NEAR_CANDIDATES, where)
            if batch is not None:
                hits = batch.nearest(hits, vector, NEAR_CANDIDATES, request.scope, own)
            hit = next((h for h in hits if same_fact(fact.text, h.record.text, h.score, threshold)), None)
            if hit is not None:
                holder[index] = (hit.record.id, hit.record.text)
                outcome.merged.append(merged_with(fact, hit.record.id, hit.record.text, "paraphrase", hit.score))
                continue
            earlier = next(
                (
                    (k, float(vectors[fresh.index(k)] @ vector))
                    for k in keep
                    if same_fact(fact.text, facts[k].text, float(vectors[fresh.index(k)] @ vector), threshold)
                ),
                None,
            )
            if earlier is not None:
                twins.append(_Twin(fact, earlier[0], "paraphrase", earlier[1]))
                continue
            keep.append(index)
            if near is not None:
                near[index] = list(hits)
        return keep

    def _view(self, scope: Scope) -> ScopeView | None:
        """The scope in memory, loaded (or reloaded after another process wrote to it) when
        needed: one scan, after which this process's own adds extend it in place (write-through),
        so an ingest stream answers both duplicate lookups without a store query. None when
        the scope index is off or the scope is too large for it (the store answers then)."""
        pinned = self._pinned(scope)
        if self._index is None or pinned is None:
            return None
        return self._index.view(pinned)

    @staticmethod
    def _pinned(scope: Scope) -> Pinned | None:
        """The scope index's key for an add's scope (its first entity field), if it has one."""
        field = next(iter(scope.entity_ids()), None)
        if field is None:
            return None
        return Pinned(scope.org_id, scope.project_id, field, scope.entity_ids()[field])

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
            # The platform documents an add's ``timestamp`` as the memory's creation time.
            created_at=request.observed_at or now,
            updated_at=now,
            expires_at=request.expires_at,
        )
