"""The duplicate rule of an add: which extracted facts become new memories.

A proposed fact is stored unless the scope (or an earlier fact of the same add)
already says it: the same normalized text, or a paraphrase (cosine >=
``near_duplicate_threshold``) whose value-bearing tokens agree (:mod:`.dedup`).
A fact kept beside a stored memory it replaces is noted as a supersession
(:mod:`.supersession_rule`). The rule decides only; :mod:`.add` writes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from ..filters import And, Condition, Filter
from ..records import ExtractedFact, Extraction, MemoryRecord, Message, Scope, StoreHit, normalized_hash, utcnow
from .add_request import MAX_TEXT, AddRequest
from .attribute_prototypes import AttributeReader
from .batch import BatchStored
from .chance_cosine import ChanceCosine
from .components import Components
from .dedup import same_fact
from .outcome import AddOutcome, merged_with, skipped_input
from .scope import exact_scope
from .scope_index import Pinned, ScopeIndex, ScopeView
from .source_vectors import blend, source_of
from .supersession import Supersession
from .supersession_choice import standing
from .supersession_echo import echoes_of
from .supersession_judge import judge
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
#: Most stored memories of one text an add reads: a fact told again after it was replaced is
#: stored anew ("I live in Lisbon" after "I moved to Porto"), so one text may have versions.
SAME_TEXT_VERSIONS = 8


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
class Twin:
    """A fact that repeats an earlier one of the same add (resolved once that one has an id)."""

    fact: ExtractedFact
    first: int
    reason: str
    similarity: float


def memory_id(request: AddRequest, text_hash: str) -> str:
    """The id a queued add gives a fact: derived from the event and the fact, so a redo matches."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{request.id_seed}/{text_hash}"))


def vector_text(fact: ExtractedFact) -> str:
    """What ``fact``'s vector is made from: its speaker's own words where the language model
    offers them (``ExtractedFact.words``; it also offers the query forms that match), else
    its text. The duplicate check compares these vectors too, so a fact restated in the
    user's words meets the stored one in the same voice."""
    return fact.words or fact.text


def batch_unique(proposed: Sequence[ExtractedFact]) -> tuple[list[ExtractedFact], list[Twin]]:
    """Distinct facts of one add, and the ones repeating an earlier fact's normalized text."""
    facts: list[ExtractedFact] = []
    twins: list[Twin] = []
    first: dict[str, int] = {}
    for fact in proposed:
        text = fact.text.strip()[:MAX_TEXT]
        if not text:
            continue
        fact = fact.model_copy(update={"text": text})
        digest = normalized_hash(text)
        if digest in first:
            twins.append(Twin(fact, first[digest], "same_text", 1.0))
        else:
            first[digest] = len(facts)
            facts.append(fact)
    return facts, twins


def pinned_of(scope: Scope) -> Pinned | None:
    """The scope index's key for an add's scope (its first entity field), if it has one."""
    field = next(iter(scope.entity_ids()), None)
    if field is None:
        return None
    return Pinned(scope.org_id, scope.project_id, field, scope.entity_ids()[field])


def new_record(request: AddRequest, fact: ExtractedFact, observed_at: datetime, now: datetime) -> MemoryRecord:
    """The memory ``fact`` becomes; a queued add's id is :func:`memory_id`, so a redo finds its own write."""
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


class DuplicateRule:
    """The duplicate rule over an add's extracted facts, with the scope lookups it needs."""

    def __init__(
        self,
        components: Components,
        index: ScopeIndex | None,
        near_duplicate: float,
        source_weight: float,
        attributes: AttributeReader,
        chance: ChanceCosine | None = None,
        superseded: Callable[[Sequence[str]], set[str]] | None = None,
    ) -> None:
        self._c = components
        #: Which of some stored memories a newer one replaced: a fact told again after it was
        #: replaced ("I live in Lisbon" after "I moved to Porto") is current again, so it is
        #: stored anew rather than merged into its replaced version.
        self._superseded = superseded or (lambda ids: set())
        #: Answers the duplicate lookups from memory when the add's scope is indexed.
        self._index = index
        self._near_duplicate = near_duplicate
        #: Share of the source message's vector in a stored memory's vector (:mod:`.source_vectors`).
        self._source_weight = source_weight
        #: A fact's single-valued attribute read by meaning, for the supersession rule.
        self._attributes = attributes
        #: Reads a cosine against its language's chance level, for the rule's cosine-only links.
        self._chance = chance

    def decide(
        self,
        request: AddRequest,
        observed_at: datetime,
        extraction: Extraction,
        embed: Callable[[list[str]], np.ndarray],
        batch: BatchStored | None = None,
    ) -> PreparedAdd:
        """The duplicate rule over extracted facts (``batch``: a batched add's earlier records)."""
        outcome = AddOutcome([], skipped=[skipped_input(s, request.messages) for s in extraction.skipped])
        facts, twins = batch_unique(extraction.facts)
        # Each distinct fact of the batch ends up as (id, text) of the memory that holds it.
        holder: dict[int, tuple[str, str]] = {}
        fresh = self.not_stored(facts, request, holder, outcome, batch)
        wanted = [vector_text(facts[i]) for i in fresh]
        # The source messages of a blend ride in the facts' embedder call (:mod:`.source_vectors`).
        sources = [source_of(request, facts[i]) for i in fresh] if self._source_weight > 0 else []
        extra = [t for t in dict.fromkeys(s for s in sources if s is not None) if t not in set(wanted)]
        matrix = embed(wanted + extra) if fresh else None
        vectors = matrix[: len(wanted)] if matrix is not None else None
        near: dict[int, list[StoreHit]] = {}
        keep = self.not_paraphrases(fresh, facts, vectors, request, holder, outcome, twins, batch, near)
        now = utcnow()
        records = []
        for index in keep:
            record = new_record(request, facts[index], observed_at, now)
            holder[index] = (record.id, record.text)
            records.append(record)
        replaced = self.replaced(records, [near.get(index, []) for index in keep])
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

    def replaced(self, records: Sequence[MemoryRecord], near: Sequence[Sequence[StoreHit]]) -> list[Supersession]:
        """The stored memories the new ``records`` replace (``near``: each one's nearest stored
        memories). The language model judges when it will, with one call for the add
        (:mod:`.supersession_judge`); else the rule decides each pair. The assistant's echo
        of a replaced fact goes with it either way."""
        judged = judge(self._c.language_model, records, [[h.record for h in hits] for hits in near])
        links: list[Supersession] = []
        for position, (record, hits) in enumerate(zip(records, near, strict=True)):
            if judged is not None:
                gone = judged[position]
            else:
                gone = [
                    h.record
                    for h in hits
                    if supersedes(
                        record,
                        h.record,
                        h.score,
                        self._attributes.attribute_of,
                        self._above_chance(h, record),
                        self._attributes.attribute_above_chance if self._chance is not None else None,
                    )
                ]
                # A link the cosine alone makes beside one a word backs is the cosine's inflation.
                gone = standing(record, gone)
            # The assistant's confirmation of a replaced fact of the user's goes with it.
            gone += echoes_of(gone, (h.record for h in hits))
            links.extend(Supersession(older, record) for older in gone)
        return links

    def _above_chance(self, hit: StoreHit, record: MemoryRecord) -> float | None:
        """The cosine of ``record`` and a stored neighbour read against their language's chance."""
        if self._chance is None:
            return None
        return self._chance.relative(hit.score, record.text, hit.record.text)

    def to_embed(self, request: AddRequest, facts: Sequence[ExtractedFact]) -> list[str]:
        """The texts an add embeds for ``facts``: theirs, and with a source blend their messages'."""
        texts = [vector_text(fact) for fact in facts]
        if self._source_weight > 0:
            texts += [s for fact in facts if (s := source_of(request, fact)) is not None]
        return list(dict.fromkeys(texts))

    def not_stored(
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
        view = None if known else self.view(request.scope)
        if batch is not None and known:
            stored = batch.stored_with(request.scope, hashes)
        elif view is not None:
            stored = view.list(where, len(hashes) * SAME_TEXT_VERSIONS)
        else:
            stored = self._c.vector_store.list(where, 0, len(hashes) * SAME_TEXT_VERSIONS)
        if batch is not None:  # a batch never stores a text the store already holds
            stored = [*stored, *batch.matching(request.scope, set(hashes))]
        others = [r for r in stored if r.id != memory_id(request, r.hash)]
        replaced = self._replaced([r.id for r in others], batch) if others else set()
        existing = {r.hash: r for r in others if r.id not in replaced}
        fresh = []
        for index, (fact, digest) in enumerate(zip(facts, hashes, strict=True)):
            match = existing.get(digest)
            if match is None:
                fresh.append(index)
                continue
            holder[index] = (match.id, match.text)
            outcome.merged.append(merged_with(fact, match.id, match.text, "same_text", 1.0))
        return fresh

    def not_paraphrases(
        self,
        fresh: list[int],
        facts: list[ExtractedFact],
        vectors: np.ndarray | None,
        request: AddRequest,
        holder: dict[int, tuple[str, str]],
        outcome: AddOutcome,
        twins: list[Twin],
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
        view = None if known else self.view(request.scope)
        keep: list[int] = []
        #: Each fresh fact's row of ``vectors``: an add of many facts compares each with every
        #: kept one, and looking the row up in ``fresh`` made that cubic.
        rows = {index: row for row, index in enumerate(fresh)}
        for row, index in enumerate(fresh):
            fact, vector = facts[index], vectors[row]
            threshold = self._near_duplicate - (OWN_WORDS_OFFSET if fact.words else 0.0)
            if batch is not None and known:
                hits = batch.stored_nearest(request.scope, vector_text(fact))
            elif view is not None:
                hits = view.search_vector(vector, NEAR_CANDIDATES, where)
            else:
                hits = self._c.vector_store.search_vector(vector, NEAR_CANDIDATES, where)
            if batch is not None:
                hits = batch.nearest(hits, vector, NEAR_CANDIDATES, request.scope, own)
            said = [h for h in hits if same_fact(fact.text, h.record.text, h.score, threshold)]
            # A replaced version says it too, but told again the fact is current again.
            replaced = self._replaced([h.record.id for h in said], batch) if said else set()
            hit = next((h for h in said if h.record.id not in replaced), None)
            if hit is not None:
                holder[index] = (hit.record.id, hit.record.text)
                outcome.merged.append(merged_with(fact, hit.record.id, hit.record.text, "paraphrase", hit.score))
                continue
            earlier: tuple[int, float] | None = None
            for k in keep:
                cosine = float(vectors[rows[k]] @ vector)
                if same_fact(fact.text, facts[k].text, cosine, threshold):
                    earlier = (k, cosine)
                    break
            if earlier is not None:
                twins.append(Twin(fact, earlier[0], "paraphrase", earlier[1]))
                continue
            keep.append(index)
            if near is not None:
                near[index] = list(hits)
        return keep

    def _replaced(self, memory_ids: list[str], batch: BatchStored | None) -> set[str]:
        """Which of ``memory_ids`` a newer memory replaced, in the store or earlier in ``batch``."""
        replaced = self._superseded(memory_ids)
        return replaced | (set(memory_ids) & batch.replaced) if batch is not None else replaced

    def view(self, scope: Scope) -> ScopeView | None:
        """The scope in memory, loaded (or reloaded after another process wrote to it) when
        needed: one scan, after which this process's own adds extend it in place (write-through),
        so an ingest stream answers both duplicate lookups without a store query. None when
        the scope index is off or the scope is too large for it (the store answers then)."""
        pinned = pinned_of(scope)
        if self._index is None or pinned is None:
            return None
        return self._index.view(pinned)
