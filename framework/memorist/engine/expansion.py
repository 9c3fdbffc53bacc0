"""Second-pass expansion of a pinned search: what the best hits say about the rest of the scope.

A multi-hop question ("Where does Anna's sister live?") is answered by
several memories, and only the first hop resembles the question: "Anna's
sister is Maria." shares its words, "Maria moved to Lyon." shares none of them
but shares an entity (Maria) with the first. A list question ("What
activities does Melanie do?") gathers memories spread over months that
resemble each other more than they resemble the question. After the first
ranking, three signals look at the best hits instead of the query alone:

- ``linked``: memories that share a *specific* entity (a rare one in the
  scope, never one the query itself names: that is already the entity
  signal) with the best hits get a bonus, ``score + w * linked * (1 - score)``,
  where ``linked`` is ``1 - prod(1 - weight * strength)`` over the shared
  entities, ``strength`` being the best hit's own score relative to the
  first one. Linked memories no retriever found join as candidates.
- ``feedback`` (pseudo-relevance feedback, Rocchio): a second query vector,
  the query plus the centroid of the best hits' vectors, and a memory's
  semantic signal becomes ``(1 - w) * cos(query) + w * cos(feedback)``; the
  nearest memories to the feedback vector that no retriever found join too.
- ``session``: the memories stored within ``session_window`` places of a best
  hit in the scope's stored order and observed within ``SESSION_GAP`` of it
  (the other turns of the exchange the hit came from: a question about "the
  trip" is often answered a turn or two after the one naming the trip) move a
  share of the way towards that hit's score, ``score + w * max(0, hit - score)``,
  never past it, and never by more than their own semantic similarity over
  :data:`SESSION_FLOOR`: ``min(w * max(0, hit - score), max(0, semantic -
  floor))``. The pull reorders turns that resemble the question a little; a
  neighbour that does not resemble it at all (in an agent's store, where facts
  are added one after another, the next fact is usually about something else)
  keeps its own score, so a score still says how well the memory itself answers.
  The ``context`` signal already mixes in the score of the one memory just
  before or after each memory; this reaches a few turns further, from the best
  hits only.

All three read only the scope snapshot the search already holds (vectors, and the
entity-graph partition loaded beside it): no store round trip, a few
milliseconds on a scope of a few thousand memories, and the memories just
added are there (read-your-writes). At most ``expansion_max_candidates``
memories join per search. A search that is not pinned to one cached scope is
not expanded. Each signal has its own weight in the engine settings; 0 turns
it off.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..filters import Filter
from ..records import StoreMatch

if TYPE_CHECKING:
    from ..config.engine_settings import EngineSettings
    from .scope_graph import ScopeGraph
    from .scope_snapshot import Snapshot

#: An entity linked to more than this share of the scope's memories says nothing about
#: which of them answer (a speaker's own name, "the user").
MAX_LINK_SHARE = 0.05
#: A best hit leads the expansion only if it scores at least this share of the first one.
SEED_SHARE = 0.5
#: Seconds between two memories' observation times within which they count as one session.
SESSION_GAP = 3600
#: Query similarity (MiniLM cosine) at or below which a session neighbour is not lifted, and over
#: which it is lifted by at most the excess: unrelated short sentences sit around 0.0-0.2, the
#: turn that answers a question about the turn before it rarely below 0.2. The largest floor at
#: which LoCoMo's tuning conversations lose nothing (0.15 loses).
SESSION_FLOOR = 0.10


class Scored(Protocol):
    """The parts of a search candidate expansion reads and sets."""

    match: StoreMatch
    semantic: float
    score: float


@dataclass(frozen=True)
class ExpansionSettings:
    """How far the best hits reach (see :class:`memorist.config.engine_settings.EngineSettings`)."""

    #: Best hits the expansion starts from.
    hits: int = 5
    #: Bonus weight of sharing a specific entity with the best hits (0: off).
    linked_weight: float = 0.0
    #: Share of the semantic signal taken from similarity to the feedback vector (0: off).
    feedback_weight: float = 0.0
    #: Weight of the best hits' centroid added to the query vector (Rocchio's beta).
    feedback_beta: float = 1.0
    #: Memories that may join the candidates per search.
    max_candidates: int = 20
    #: Share of the way a best hit's session neighbour moves towards its score (0: off).
    session_weight: float = 0.0
    #: How far (in stored order) a session neighbour may be.
    session_window: int = 3

    @classmethod
    def of(cls, engine: EngineSettings) -> ExpansionSettings:
        return cls(
            engine.expansion_hits,
            engine.linked_weight,
            engine.feedback_weight,
            engine.feedback_beta,
            engine.expansion_max_candidates,
            engine.session_weight,
            engine.session_window,
        )

    @property
    def enabled(self) -> bool:
        return self.hits > 0 and (self.linked_weight > 0 or self.feedback_weight > 0 or self.session_weight > 0)


def expand(
    snapshot: Snapshot,
    graph: ScopeGraph | None,
    candidates: dict[str, Scored],
    query_vector: np.ndarray,
    where: Filter,
    query_entities: Collection[str],
    settings: ExpansionSettings,
    semantic_share: float,
    new_candidate: Callable[[StoreMatch, float], Scored],
) -> None:
    """Adjust ``candidates``' scores in place (and add the memories the best hits reach).

    ``semantic_share`` is the semantic signal's weight in the fused score (the feedback
    changes that signal only); ``new_candidate(match, semantic)`` makes a candidate for a
    memory no retriever found, scored as if it had that semantic similarity and nothing else.
    """
    if not settings.enabled or not candidates or len(snapshot) == 0:
        return
    best = sorted(candidates.values(), key=lambda c: (-c.score, c.match.id))[: settings.hits]
    if not best or best[0].score <= 0:
        return
    # Only strong hits lead anywhere: one far below the first is as likely noise as not (and
    # among near-zero scores which ties come first is an accident of ids).
    best = [c for c in best if c.score >= SEED_SHARE * best[0].score]
    accepted = snapshot.accepted(where)
    query = np.asarray(query_vector, dtype=np.float32).reshape(-1)
    query = query / (float(np.linalg.norm(query)) or 1.0)
    budget = settings.max_candidates
    if settings.feedback_weight > 0:
        budget -= _feedback(
            snapshot, candidates, best, query, accepted, settings, semantic_share, new_candidate, budget
        )
    if settings.linked_weight > 0 and graph is not None:
        _linked(snapshot, graph, candidates, best, query, accepted, query_entities, settings, new_candidate, budget)
    if settings.session_weight > 0 and settings.session_window > 0:
        _neighbours(snapshot, candidates, best, settings)


def _neighbours(
    snapshot: Snapshot, candidates: dict[str, Scored], best: list[Scored], settings: ExpansionSettings
) -> None:
    """Move memories stored within ``session_window`` of a best hit and observed within
    ``SESSION_GAP`` of it (the other turns of its exchange) towards that hit's score, by no
    more than their own query similarity over ``SESSION_FLOOR``."""
    position = {memory_id: i for i, memory_id in enumerate(snapshot.order)}
    seeds = {c.match.id for c in best}
    pull: dict[str, float] = {}
    for seed in best:
        i = position.get(seed.match.id)
        if i is None:
            continue
        when = seed.match.observed_at
        for j in range(max(0, i - settings.session_window), min(len(snapshot.order), i + settings.session_window + 1)):
            memory_id = snapshot.order[j]
            if memory_id in seeds or memory_id not in candidates:
                continue
            if abs((candidates[memory_id].match.observed_at - when).total_seconds()) > SESSION_GAP:
                continue
            pull[memory_id] = max(pull.get(memory_id, 0.0), seed.score)
    for memory_id, reach in pull.items():
        cand = candidates[memory_id]
        lift = settings.session_weight * max(0.0, reach - cand.score)
        cand.score = _clip(cand.score + min(lift, max(0.0, cand.semantic - SESSION_FLOOR)))


def feedback_vector(snapshot: Snapshot, query: np.ndarray, ids: list[str], beta: float) -> np.ndarray:
    """The query moved towards the centroid of ``ids``' vectors (unit length)."""
    rows = [snapshot.rows[i] for i in ids if i in snapshot.rows]
    if not rows:
        return query
    centroid = snapshot.vectors[rows].mean(axis=0)
    norm = float(np.linalg.norm(centroid))
    moved = query + beta * (centroid / norm if norm > 0 else centroid)
    out: np.ndarray = moved / (float(np.linalg.norm(moved)) or 1.0)
    return out


def _feedback(
    snapshot: Snapshot,
    candidates: dict[str, Scored],
    best: list[Scored],
    query: np.ndarray,
    accepted: np.ndarray,
    settings: ExpansionSettings,
    semantic_share: float,
    new_candidate: Callable[[StoreMatch, float], Scored],
    budget: int,
) -> int:
    """Mix similarity to the feedback vector into every candidate's semantic signal; returns
    how many memories joined."""
    moved = feedback_vector(snapshot, query, [c.match.id for c in best], settings.feedback_beta)
    similarity = snapshot.vectors @ moved
    joined = _join(snapshot, candidates, similarity, accepted, query, budget, new_candidate)
    weight = settings.feedback_weight
    for memory_id, cand in candidates.items():
        row = snapshot.rows.get(memory_id)
        if row is None:
            continue
        mixed = (1.0 - weight) * cand.semantic + weight * _clip(float(similarity[row]))
        cand.score = _clip(cand.score + semantic_share * (mixed - cand.semantic))
        cand.semantic = mixed
    return joined


def _linked(
    snapshot: Snapshot,
    graph: ScopeGraph,
    candidates: dict[str, Scored],
    best: list[Scored],
    query: np.ndarray,
    accepted: np.ndarray,
    query_entities: Collection[str],
    settings: ExpansionSettings,
    new_candidate: Callable[[StoreMatch, float], Scored],
    budget: int,
) -> None:
    """Bonus for memories sharing a specific entity with the best hits."""
    top = best[0].score
    total = max(graph.total, 1)
    reach: dict[str, float] = {}  # entity id -> the strongest pull through it
    for seed in best:
        strength = seed.score / top
        for entity_id in graph.entities_of(seed.match.id):
            if entity_id in query_entities:
                continue
            count = len(graph.links.get(entity_id, ()))
            if count < 2 or count > max(2, MAX_LINK_SHARE * total):
                continue  # linked to no other memory, or to too many to tell them apart
            weight = math.log(1 + total / count) / math.log(1 + total) if total > 1 else 1.0
            reach[entity_id] = max(reach.get(entity_id, 0.0), weight * strength)
    if not reach:
        return
    miss: dict[str, float] = {}
    for entity_id, pull in sorted(reach.items()):
        for memory_id in graph.links.get(entity_id, ()):
            miss[memory_id] = miss.get(memory_id, 1.0) * (1.0 - pull)
    seeds = {c.match.id for c in best}
    outside = sorted((m for m in miss if m not in candidates and m in snapshot.rows), key=lambda m: (miss[m], m))
    for memory_id in outside[: max(budget, 0)]:
        row = snapshot.rows[memory_id]
        if not accepted[row]:
            continue
        record = snapshot.records[row]
        semantic = _clip(float(snapshot.vectors[row] @ query))
        candidates[memory_id] = new_candidate(
            StoreMatch(memory_id, semantic, record.observed_at, None, record), semantic
        )
    for memory_id, left in miss.items():
        cand = candidates.get(memory_id)
        if cand is None or memory_id in seeds:
            continue
        cand.score = _clip(cand.score + settings.linked_weight * (1.0 - left) * (1.0 - cand.score))


def _join(
    snapshot: Snapshot,
    candidates: dict[str, Scored],
    similarity: np.ndarray,
    accepted: np.ndarray,
    query: np.ndarray,
    budget: int,
    new_candidate: Callable[[StoreMatch, float], Scored],
) -> int:
    """Add the accepted memories most similar to the feedback vector that are not candidates."""
    if budget <= 0:
        return 0
    order = np.argsort(-np.where(accepted, similarity, -np.inf), kind="stable")
    joined = 0
    for row in order[: budget + len(candidates)]:
        if not accepted[row] or joined >= budget:
            break
        record = snapshot.records[int(row)]
        if record.id in candidates:
            continue
        semantic = _clip(float(snapshot.vectors[int(row)] @ query))
        candidates[record.id] = new_candidate(
            StoreMatch(record.id, semantic, record.observed_at, None, record), semantic
        )
        joined += 1
    return joined


def _clip(value: float) -> float:
    return max(0.0, min(1.0, value))
