"""The ``engine`` section of the settings: how the memory engine dedups, ranks and expands.

Apart from the rest of the settings because the engine reads it on its hot paths (search,
add) and it grows with each ranking signal; :class:`memorist.config.settings.Settings`
holds it as ``engine``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class EngineSettings(BaseModel):
    """Tuning of the memory engine (dedup, candidate pools, signal weights)."""

    model_config = ConfigDict(extra="forbid")

    #: Cosine similarity at or above which a new fact may be a paraphrase of a stored one in its
    #: scope; it is merged only if its value-bearing tokens agree too (see docs/memory-rules.md).
    near_duplicate_threshold: float = Field(0.9, ge=0.5, le=1.0)
    #: Share of the vector of the message a memory came from in the memory's stored vector
    #: (``(1 - w) * fact + w * message``, renormalized; see ``memorist.engine.source_vectors``):
    #: an agent's turn is worded like the user's own message more than like the extractor's
    #: third-person statement. 0 stores the fact's own vector.
    source_vector_weight: float = Field(0.0, ge=0, le=1)
    #: Candidates fetched from each retriever (vector, keyword) per search, at least.
    candidate_pool: int = Field(100, ge=10, le=5000)
    #: Weights of the signals folded into the score; they are normalized to sum to 1.
    semantic_weight: float = Field(0.7, ge=0)
    keyword_weight: float = Field(0.2, ge=0)
    entity_weight: float = Field(0.1, ge=0)
    #: Extra weight for memories observed in the period a query names ("What did I do last
    #: May?"): a date the query names is strong evidence the cosine cannot see. 0.2, chosen on
    #: the LoCoMo tuning conversations (flat from 0.2 to 0.4 there), also lifted the held-out ones.
    temporal_weight: float = Field(0.2, ge=0)
    #: Share of a memory's score taken from its best conversational neighbour (the memory
    #: stored just before or after it in the same scope): a reply or a shared photo is often
    #: only about the question together with the turn around it. 0 turns it off.
    context_weight: float = Field(0.15, ge=0, le=1)
    #: The context signal reads the scope's ids in stored order; above this many memories in
    #: the scope it is skipped (that read grows with the scope: ~9 ms per 1,000 on LanceDB).
    context_max_memories: int = Field(2000, ge=0, le=1_000_000)
    #: Weigh a query that names no entity of the scope, in a language the embedder reads
    #: (``Embedder.languages``), by its kind: its keyword and context weights scaled by the
    #: share of its terms its best keyword hit holds, so an agent's turn ("Can you suggest a
    #: dinner recipe?") is ranked by meaning (see ``memorist.engine.query_kind``). A query in
    #: another language keeps every signal: there the keyword index carries the ranking.
    #: On by default: benchmarks/implicit.py hit@3 0.702 / 0.750 -> 0.738 / 0.762 (tune /
    #: held out), LoCoMo and multilingual.py's same-language cases unchanged.
    query_kind: bool = True
    #: Second-pass expansion of a search pinned to one cached scope (see
    #: ``memorist.engine.expansion``): the best hits it starts from, the bonus for sharing a
    #: specific entity with them, the share of the semantic signal taken from similarity to
    #: the query moved towards their centroid (pseudo-relevance feedback), that move's size,
    #: how many memories may join the candidates, and the pull towards a best hit of the
    #: memories stored within ``session_window`` of it in the same session. A weight of 0
    #: turns its signal off.
    expansion_hits: int = Field(5, ge=0, le=50)
    linked_weight: float = Field(0.1, ge=0, le=1)
    feedback_weight: float = Field(0.0, ge=0, le=1)
    feedback_beta: float = Field(1.0, ge=0, le=10)
    expansion_max_candidates: int = Field(20, ge=0, le=200)
    session_weight: float = Field(0.3, ge=0, le=1)
    session_window: int = Field(3, ge=0, le=50)
    #: Read each memory also within its exchange (see ``memorist.engine.neighbour_vectors``):
    #: its vector plus the mean of its session neighbours' (the memories stored within
    #: ``neighbour_window`` places and observed in the same session, when one of them is
    #: another voice's: a dialogue), and its semantic signal moved ``neighbour_weight`` of the
    #: way up to that vector's similarity where higher. Off by default (0): on LoCoMo's
    #: conversations 0.5 lifts recall@10 on both halves but loses recall@50 on the held-out
    #: one; figures in docs/benchmarks.md.
    neighbour_weight: float = Field(0.0, ge=0, le=1)
    neighbour_window: int = Field(2, ge=0, le=20)
    #: Search without entities too common in the scope to inform (e.g. the user's own name),
    #: averaged with the full query (see ``memorist.engine.search.focus_query``).
    focus_queries: bool = True
    #: Answer searches pinned to one scope (one user, agent, run or app) from an in-memory
    #: snapshot of that scope, kept coherent with every process's writes through a per-scope
    #: generation in the database (see docs/engine.md). Off: every search queries the store.
    scope_index: bool = True
    #: Rows (memories) the snapshots of all cached scopes hold together, per process; the
    #: least recently searched scopes are dropped first (~6 KB per row with 384 dimensions:
    #: the vector, BM25 postings and the record itself).
    scope_index_rows: int = Field(20_000, ge=0)
    #: Scopes with more memories than this are searched through the store (never cached).
    scope_index_max_rows: int = Field(5_000, ge=0)
    #: Map the fused score onto the scale similarity users expect (exact matches >= 0.7,
    #: unrelated < 0.3; ranking unchanged: see ``memorist.engine.calibration``). False: raw scores.
    calibrate_scores: bool = True
    #: Memory decay for every search of this server (a platform project's ``decay`` setting
    #: turns it on for that project): older, rarely retrieved memories rank lower, recently
    #: used ones higher, within x0.3..x1.5 (see ``memorist.engine.decay``). Off by default.
    decay: bool = False
    #: Days after which a memory neither observed nor retrieved since counts half as fresh.
    decay_half_life_days: float = Field(90.0, gt=0, le=36_500)
