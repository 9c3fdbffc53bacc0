"""A search's candidates and the signals that score them.

Each memory a retriever of :mod:`.search` returns becomes a :class:`Candidate`
carrying every signal (semantic, keyword, entity, temporal, context); the
functions here compute the signals that need more than one candidate to say:
which signals weigh for a query, the entity signal over the graph's links, and
the context signal from a memory's neighbours in the scope's stored order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config.engine_settings import EngineSettings
from ..filters import And, Condition, Filter
from ..records import StoreMatch
from .entities import EntityMatch

#: Entities at least this specific (see :class:`EntityMatch`) pull in linked memories
#: that neither retriever found; common ones (a speaker's own name) only boost.
EXPANSION_MIN_WEIGHT = 0.3
#: A neighbour's score lifts a memory's by at most the memory's own semantic similarity over
#: this floor (see :func:`context_signal`). MiniLM puts unrelated short facts at
#: cosine 0.05-0.2 to a question; 0.15 is the largest at which LoCoMo's tuning
#: conversations lose nothing (0.20 loses 0.001 recall@10).
CONTEXT_FLOOR = 0.15


@dataclass
class Candidate:
    """One memory a retriever found, with every signal its score is made of."""

    #: The hit as a retriever returned it (the whole record is fetched for the winners only).
    match: StoreMatch
    semantic: float = 0.0
    keyword_raw: float = 0.0
    keyword: float = 0.0
    entity: float = 0.0
    temporal: float = 0.0
    context: float = 0.0
    entities: list[str] = field(default_factory=list)
    score: float = 0.0

    def details(self) -> dict[str, Any]:
        return {
            "semantic": round(self.semantic, 6),
            "keyword": round(self.keyword, 6),
            "keyword_bm25": round(self.keyword_raw, 6),
            "entity": round(self.entity, 6),
            "temporal": round(self.temporal, 6),
            "context": round(self.context, 6),
            "matched_entities": self.entities,
            "score": round(self.score, 6),
        }


def signal_weights(settings: EngineSettings, candidates: dict[str, Candidate]) -> np.ndarray:
    """The semantic, keyword and entity weights for this query, normalized to sum to 1.

    A signal that found nothing for any candidate (no memory shares a word with the query,
    or the query names no entity linked to one) gets no weight. An agent's turn ("Can you
    suggest a dinner recipe for tonight?") names no entity of the user's memories and
    often shares no word with the fact it needs ("The user is vegetarian."): with fixed
    weights those empty parts shrank every score alike, by up to 30%, and the fact fell
    under the v3 default threshold. A signal that is 0 for every candidate cannot change
    the order, so ranking (and recall) is exactly as with fixed weights; a weak but present
    signal keeps its weight (scaling it by its strength was measured: it moved LoCoMo's
    held-out recall down, see docs/benchmarks.md).
    """
    keyword_found = any(c.keyword_raw > 0 for c in candidates.values())
    entity_found = any(c.entity > 0 for c in candidates.values())
    weights = np.array(
        [
            settings.semantic_weight,
            settings.keyword_weight if keyword_found else 0.0,
            settings.entity_weight if entity_found else 0.0,
        ],
        dtype=float,
    )
    return weights / weights.sum() if weights.sum() > 0 else np.array([1.0, 0.0, 0.0])


def best_keyword_text(source: Any, candidates: dict[str, Candidate]) -> str | None:
    """The text of the best keyword hit (ties: lowest id), read from the store when the
    keyword retriever returned no record; None when no memory shares a term."""
    found = [c for c in candidates.values() if c.keyword_raw > 0]
    if not found:
        return None
    best = min(found, key=lambda c: (-c.keyword_raw, c.match.id))
    if best.match.record is not None:
        return best.match.record.text
    record = source.fetch([best.match]).get(best.match.id)
    return record.text if record is not None else None


def entity_signal(
    source: Any,
    matches: list[EntityMatch],
    links: dict[str, set[str]],
    where: Filter,
    candidates: dict[str, Candidate],
    pool: int,
    query_vector: np.ndarray,
) -> None:
    """Score candidates by linked query entities; add graph-only candidates (with their
    semantic score, from one vector query restricted to them and to ``where``)."""
    by_id: dict[str, EntityMatch] = {m.entity_id: m for m in matches}
    for memory_id, entity_ids in links.items():
        cand = candidates.get(memory_id)
        if cand is not None:
            apply_entities(cand, entity_ids, by_id)
    # Graph expansion: the memories most specific to the query's entities.
    specific = {e for e, m in by_id.items() if m.weight >= EXPANSION_MIN_WEIGHT}
    extra = sorted(
        (mid for mid in links if mid not in candidates and links[mid] & specific),
        key=lambda mid: (-sum(by_id[e].weight for e in links[mid]), mid),
    )[: max(pool // 2, 10)]
    if not extra:
        return
    restricted = And((where, Condition("id", "in", tuple(extra))))
    for hit in source.match_vector(query_vector, len(extra), restricted):
        cand = candidates[hit.id] = Candidate(hit, semantic=clip(hit.score))
        apply_entities(cand, links[hit.id], by_id)


def context_signal(
    order: list[str],
    candidates: dict[str, Candidate],
    outside_score: float,
    context_weight: float,
) -> None:
    """Mix every candidate's score with its best neighbour's in the scope's stored order,
    a lift by no more than the candidate's own semantic similarity over ``CONTEXT_FLOOR``.

    A neighbour no retriever found scores ``outside_score``: at most as similar as the
    weakest vector hit, with no keyword or entity evidence (no extra query needed).
    """
    position = {memory_id: i for i, memory_id in enumerate(order)}
    scores = {memory_id: cand.score for memory_id, cand in candidates.items()}
    for memory_id, cand in candidates.items():
        i = position.get(memory_id)
        if i is None:
            continue
        near = [scores.get(order[j], outside_score) for j in (i - 1, i + 1) if 0 <= j < len(order)]
        cand.context = max(near, default=0.0)
    for cand in candidates.values():
        shift = context_weight * (cand.context - cand.score)
        if shift > 0:  # a lift: no more than the memory's own resemblance to the query
            shift = min(shift, max(0.0, cand.semantic - CONTEXT_FLOOR))
        cand.score += shift


def apply_entities(cand: Candidate, entity_ids: set[str], by_id: dict[str, EntityMatch]) -> None:
    miss = 1.0
    for entity_id in sorted(entity_ids):
        miss *= 1.0 - by_id[entity_id].weight
    cand.entity = 1.0 - miss
    cand.entities = sorted(by_id[e].name for e in entity_ids)


def clip(value: float) -> float:
    return max(0.0, min(1.0, float(value)))
