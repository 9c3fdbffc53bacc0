"""Hybrid search: semantic, keyword and entity signals folded into one score.

Candidates come from three retrievers: nearest vectors, BM25 over the store's
full-text index, and the entity graph (memories linked to entities named in the
query). Every candidate then gets every signal:

- ``semantic``: cosine similarity to the query, clipped to [0, 1];
- ``keyword``: BM25, divided by the best BM25 of the query (at least
  ``KEYWORD_FLOOR``, so weak keyword matches stay weak);
- ``entity``: 1 - prod(1 - w) over the query entities the memory is linked to,
  each weighted by its rarity in the scope (see :mod:`.entities`);
- ``temporal``: closeness of the memory's observation time to a period the
  query names.

Before retrieval the query is *focused*: entities so common in the scope that
they carry no information (the user's own name) are removed for keyword
search, and the query vector is the mean of the full and focused queries.
A query that names the searched ``user_id`` ("What does Ada eat?" in ada's
memories) asks about the subject every memory is written about: the id is not
searched as a keyword, and the query vector is also the mean with the query as
the memories would say it, which the language model that wrote them offers
(``LanguageModel.query_forms``: "What does the user eat?").

With ``engine.query_kind`` on, a query that names no entity of the scope, in a language
the embedder reads, is weighed by its *kind* (see :mod:`.query_kind`): the keyword and context weights are scaled by the
share of its terms that its best keyword hit holds, so an agent's turn, whose words a
memory shares only by accident, is ranked by meaning, and a lookup by words keeps every
signal.

``score = base + temporal_weight * temporal * (1 - base)`` where ``base`` is the
weighted mean of the first three; it never leaves [0, 1]. A signal that is 0 for
every candidate (no entity named, no word shared) is left out of the mean rather
than counted as 0: it cannot change the order, only shrink every score.

Relevance runs in stretches of a conversation (scopes of at most
``context_max_memories``): "How about this series?" with a
photo of books is a recommendation only next to the turns around it. So each
score is then mixed with its *context*, the best score of the memory stored just
before or after it in the scope: ``(1 - context_weight) * score +
context_weight * context``. A neighbour no retriever found counts as if it had
the weakest vector hit's semantic score and nothing else (an upper bound, found
without another query). A *lift* from a neighbour is bounded by the memory's own
semantic similarity over :data:`.candidates.CONTEXT_FLOOR`: in an agent's store facts are added
one after another, and the fact stored right after an answer is usually about
something else; it keeps its own score, so a score still says how well the memory
itself answers (an unrelated one < 0.2 on the calibrated scale). A weaker neighbour
still weighs on a memory as before. Ties break by id, so the ranking is deterministic.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..config.engine_settings import EngineSettings
from ..filters import And, Condition, Filter
from ..limits import MAX_QUERY_CHARS, MAX_TOP_K  # noqa: F401 - re-exported: their old home
from ..observability.stages import stage
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord, Scope
from .candidates import Candidate, best_keyword_text, clip, context_signal, entity_signal, signal_weights
from .components import Components
from .entities import EntityGraph, EntityMatch, scope_key
from .expansion import ExpansionSettings, expand
from .hits import SearchHit
from .neighbour_vectors import lift_semantic
from .query_forms import focus_query, without_subject
from .query_kind import embedder_reads, lookup_share, scaled_keyword_weight
from .scope import equality_values
from .scope_graph import ScopeGraph
from .scope_index import Pinned, ScopeIndex, ScopeView
from .temporal import query_period, temporal_score
from .versions import current_first

#: The least "best BM25" a query's keyword scores are divided by (raw BM25 units). Set on the
#: statistics the scores are made with: one scope (a conversation of a few hundred memories,
#: where the IDF of a term in one memory is ~5), not a whole table (~7.4 at 2,538 memories,
#: where 8.0 was set). docs/benchmarks.md, "Round 5, ninth session", has the sweep.
KEYWORD_FLOOR = 6.5


class HybridSearch:
    def __init__(
        self,
        components: Components,
        graph: EntityGraph,
        settings: EngineSettings,
        index: ScopeIndex | None = None,
    ) -> None:
        self._c = components
        self._graph = graph
        self._s = settings
        #: In-memory snapshots of pinned scopes (None: every search queries the store).
        self.index = index
        # The store path's keyword query and stored-order read overlap the rest (each releases
        # the GIL); sized for a few concurrent searches of the same engine.
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="memorist-search")
        self._expansion = ExpansionSettings.of(settings)

    def search(
        self,
        query: str,
        where: Filter,
        *,
        org_id: str,
        project_id: str,
        top_k: int = 10,
        threshold: float = 0.1,
        rerank: bool = False,
        explain: bool = False,
    ) -> list[SearchHit]:
        pool = min(max(self._s.candidate_pool, top_k * 3), 5000)
        with stage("search", "entities"):
            mentions = self._c.entity_extractor.extract(query)
        keys = self._scope_keys(where, org_id, project_id)
        project = f"{org_id}/{project_id}"
        context_weight = self._s.context_weight
        pinned = self._pinned(where, org_id, project_id)
        # A scope's first search loads its snapshot (~10 ms: a store scan, decoding, postings);
        # the query's embedding needs nothing from it, and both wait mostly outside the GIL.
        # (Only then: otherwise one embedder call for all the query's forms is cheaper.)
        early = (
            self._pool.submit(self._c.embedder.embed, [query], "query")
            if self.index is not None and pinned is not None and self.index.will_load(pinned)
            else None
        )
        view = self.index.view(pinned) if self.index is not None and pinned is not None else None
        source: Any = view if view is not None else self._c.vector_store
        wants_order = pinned is not None and context_weight > 0 and self._s.context_max_memories > 0
        conversation = pinned.filter() if pinned is not None else None
        order_future = (
            self._pool.submit(self._c.vector_store.sequence, conversation, self._s.context_max_memories)
            if wants_order and view is None
            else None
        )
        # The scope's graph partition from memory when it is the only one the search reads.
        graph = self.index.graph(view.snapshot) if self.index and view and keys == [view.snapshot.pinned.key] else None
        if graph is not None:
            matches = graph.match(mentions)
        else:
            matches = self._graph.match(mentions, keys, project) if mentions else []
        user_ids = equality_values(where, "user_id")
        # The query as the memories say it ("What do I like?" -> "What does the user like?"):
        # the language model's to know, as the one that wrote them (LanguageModel.query_forms).
        forms = self._c.language_model.query_forms(query, user_ids) if user_ids else []
        aliased = forms[0] if forms else None
        focused = focus_query(query, mentions, matches) if self._s.focus_queries else query
        if aliased is not None:
            # The query names the searched user, whom every memory is about as "the user": as a
            # keyword her name would lift the one memory that states it above what was asked.
            focused = without_subject(focused, user_ids)
        keyword_future = (
            self._pool.submit(self._c.vector_store.match_keyword, focused, pool, where) if view is None else None
        )
        links: dict[str, set[str]] | None = None
        links_future = None
        if matches and graph is not None:
            links = graph.memories_of([m.entity_id for m in matches])
        elif matches:
            links_future = self._pool.submit(self._entity_links, matches, pool)
        # One embedder call for the query and its focused and aliased forms.
        texts = [query, *([focused] if focused != query else []), *([aliased] if aliased else [])]
        with stage("search", "embed"):
            if early is not None:
                embedded = early.result()
                if len(texts) > 1:
                    embedded = np.vstack([embedded, self._c.embedder.embed(texts[1:], "query")])
            else:
                embedded = self._c.embedder.embed(texts, "query")
        query_vector = embedded[0]
        for extra in embedded[1:]:
            # Mean with the focused (or aliased) query: the focus without losing what the names add.
            query_vector = query_vector + extra
            query_vector = query_vector / (np.linalg.norm(query_vector) or 1.0)
        candidates: dict[str, Candidate] = {}
        with stage("search", "vector"):
            vector_hits = source.match_vector(query_vector, pool, where)
        for hit in vector_hits:
            candidates[hit.id] = Candidate(hit, semantic=clip(hit.score))
        # Memories the vector search did not return are at most this similar to the query.
        semantic_floor = clip(vector_hits[-1].score) if len(vector_hits) >= pool else 0.0
        missing_semantic: set[str] = set()
        with stage("search", "keyword"):  # with the keyword query overlapped: what is left of it
            keyword_hits = (
                keyword_future.result() if keyword_future is not None else source.match_keyword(focused, pool, where)
            )
        for hit in keyword_hits:
            cand = candidates.get(hit.id)
            if cand is None:
                cand = candidates[hit.id] = Candidate(hit)
                if hit.vector is not None:
                    cand.semantic = clip(float(np.dot(hit.vector, query_vector)))
                else:
                    missing_semantic.add(hit.id)
            elif cand.match.record is None and hit.record is not None:
                cand.match = hit  # the same memory, with its whole record: nothing left to fetch
            cand.keyword_raw = max(0.0, hit.score)
        if links_future is not None:
            links = links_future.result()
        if links is not None:
            entity_signal(source, matches, links, where, candidates, pool, query_vector)
        self._fill_semantic(query_vector, where, candidates, missing_semantic)
        if view is not None and self._s.neighbour_weight > 0 and self._s.neighbour_window > 0:
            with stage("search", "neighbours"):  # what each turn means within its exchange
                lift_semantic(
                    view.snapshot,
                    candidates,  # type: ignore[arg-type]
                    query_vector,
                    where,
                    self._s.neighbour_window,
                    self._s.neighbour_weight,
                    pool,
                    lambda match, semantic: Candidate(match, semantic=semantic),
                )

        best_keyword = max([c.keyword_raw for c in candidates.values()] + [KEYWORD_FLOOR])
        period = query_period(query)
        weights = signal_weights(self._s, candidates)
        # Names nothing of the scope, in a language the embedder reads: a turn, or a lookup?
        if self._s.query_kind and not matches and embedder_reads(self._c.embedder.languages, query):
            share = lookup_share(focused, best_keyword_text(source, candidates))
            weights = scaled_keyword_weight(weights, share)
            context_weight *= share
        for cand in candidates.values():
            cand.keyword = min(1.0, cand.keyword_raw / best_keyword)
            cand.temporal = temporal_score(period, cand.match.observed_at)
            base = float(weights @ np.array([cand.semantic, cand.keyword, cand.entity]))
            bonus = self._s.temporal_weight * cand.temporal * (1.0 - base)
            cand.score = max(0.0, min(1.0, base + bonus))
        if view is not None and self.index is not None and self._expansion.enabled:
            with stage("search", "expand"):  # what the best hits reach, from the snapshot alone
                self._expand(view, graph, candidates, query_vector, where, matches, float(weights[0]))
        order = order_future.result() if order_future is not None else None
        if view is not None and wants_order:
            order = view.sequence(conversation, self._s.context_max_memories)
        if order is not None and candidates:  # None: the scope is too large to read its order
            outside = float(weights[0]) * semantic_floor
            context_signal(order, candidates, outside, context_weight)

        ranked = sorted(candidates.values(), key=lambda c: (-c.score, c.match.id))
        ranked = [c for c in ranked if c.score >= threshold] if threshold > 0 else ranked
        if rerank and ranked:
            with stage("search", "rerank"):
                return self._rerank(source, query, ranked, top_k, explain)
        with stage("search", "fetch"):
            fetched = self._records(source, ranked, top_k)
        return current_first(
            [SearchHit(record, c.score, c.details() if explain else None) for c, record in fetched], query
        )

    def _expand(
        self,
        view: ScopeView,
        graph: ScopeGraph | None,
        candidates: dict[str, Candidate],
        query_vector: np.ndarray,
        where: Filter,
        matches: list[EntityMatch],
        semantic_share: float,
    ) -> None:
        if graph is None and self._expansion.linked_weight > 0 and self.index is not None:
            graph = self.index.graph(view.snapshot)
        expand(
            view.snapshot,
            graph,
            candidates,  # type: ignore[arg-type]
            query_vector,
            where,
            {m.entity_id for m in matches},
            self._expansion,
            semantic_share,
            lambda match, semantic: Candidate(match, semantic=semantic, score=semantic_share * semantic),
        )

    @staticmethod
    def _records(source: Any, ranked: list[Candidate], count: int) -> list[tuple[Candidate, MemoryRecord]]:
        """The first ``count`` candidates with their whole records, skipping any deleted since
        the retrievers saw them."""
        out: list[tuple[Candidate, MemoryRecord]] = []
        start = 0
        while len(out) < count and start < len(ranked):
            window = ranked[start : start + count - len(out)]
            start += len(window)
            records = source.fetch([c.match for c in window])
            out.extend((c, records[c.match.id]) for c in window if c.match.id in records)
        return out

    def close(self) -> None:
        """Stop the retrieval threads (the engine is being replaced or closed)."""
        self._pool.shutdown(wait=False)

    def _entity_links(self, matches: list[EntityMatch], pool: int) -> dict[str, set[str]]:
        """``memory_id -> {entity_id}`` for the memories linked to the query's entities."""
        return self._graph.memories_of([m.entity_id for m in matches], limit=max(pool * 20, 2000))

    @staticmethod
    def _pinned(where: Filter, org_id: str, project_id: str) -> Pinned | None:
        """The one scope the search is pinned to (its user, else agent, run or app): the scope
        whose stored order the context signal follows and the scope index caches; None when
        the search spans several.

        Only the scope, not the search's other conditions: neighbours are turns of the
        conversation whatever the filter says (one it rejects is simply not a candidate),
        and an order that depends on the scope alone can be cached by the store.
        """
        for field_name in ENTITY_SCOPE_FIELDS:
            values = set(equality_values(where, field_name))
            if len(values) == 1:
                return Pinned(org_id, project_id, field_name, values.pop())
            if values:
                return None
        return None

    @staticmethod
    def _scope_keys(where: Filter, org_id: str, project_id: str) -> list[str] | None:
        keys: list[str] = []
        for field_name in ENTITY_SCOPE_FIELDS:
            for value in equality_values(where, field_name):
                keys.append(scope_key(Scope(org_id=org_id, project_id=project_id, **{field_name: value})))
        return keys or None

    def _fill_semantic(
        self,
        query_vector: np.ndarray,
        where: Filter,
        candidates: dict[str, Candidate],
        ids: set[str],
    ) -> None:
        if not ids:
            return
        ordered = sorted(ids)
        for start in range(0, len(ordered), 500):
            chunk = tuple(ordered[start : start + 500])
            restricted = And((where, Condition("id", "in", chunk)))
            for hit in self._c.vector_store.match_vector(query_vector, len(chunk), restricted):
                if hit.id in candidates:
                    candidates[hit.id].semantic = clip(hit.score)

    def _rerank(self, source: Any, query: str, ranked: list[Candidate], top_k: int, explain: bool) -> list[SearchHit]:
        window = self._records(source, ranked, max(top_k * 3, 20))
        by_id = {c.match.id: c for c, _ in window}
        reordered = self._c.reranker.rerank(query, [(record, c.score) for c, record in window], top_k)
        hits = []
        for record, score in reordered[:top_k]:
            details = None
            if explain:
                details = by_id[record.id].details()
                details["reranked_score"] = round(float(score), 6)
            hits.append(SearchHit(record, max(0.0, min(1.0, float(score))), details))
        return hits
