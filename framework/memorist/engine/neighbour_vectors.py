"""A memory's vector read together with its session neighbours': what a turn means in place.

A conversation answers a question in turns that do not repeat it: "What activities has
Melanie done with her family?" is answered by "We love painting together lately...", a
turn MiniLM finds barely similar to the question on its own (cosine 0.28) but which sits
among turns about her kids and their weekend. The ``context`` signal mixes in the *score*
of the memory just before or after; this reads the *meaning* of the exchange instead.

For every memory of a pinned scope's snapshot, a second vector::

    neighbour_i = normalize(v_i + BETA * mean(v_j for the session neighbours j of i))

where the neighbours are the memories stored within ``window`` places of it (stored order)
and observed within :data:`memorist.engine.expansion.SESSION_GAP` of it (the same
session), and only for a turn of a dialogue: a memory with no neighbour in the window said
by another voice (another speaker's name, or the other role) keeps its own vector. An
agent's user stating her facts one add after another makes a run of one voice, and each
fact's neighbours are her other facts, not an exchange (blending them cost
``benchmarks/implicit.py`` two to four points of hit@3 before this rule; with it, that
benchmark and ``multilingual.py`` rank exactly as without the pass). A candidate's
``semantic`` signal moves ``weight`` of the way up to ``cos(q, neighbour_i)`` when that is
higher than ``cos(q, v_i)``: a turn can only be lifted by the exchange around it, never
pulled down by it, so a memory that states its fact outright ranks as before. The memories
nearest the query by their neighbour vector that no retriever found join the candidates
(as many as the search's candidate pool).

Off by default (``engine.neighbour_weight: 0``). Over LoCoMo's stored vectors alone the
neighbour vector lifts pure-cosine recall@10 by about five points on both halves, but the
fused ranking already reads the exchange through the ``context`` signal and the session
pass of :mod:`.expansion`: with them, 0.5 lifts recall@10 on both halves and loses at
recall@50 on the held-out one. For transcripts of conversations searched with questions it
can be turned on; figures in docs/benchmarks.md.

The matrix is computed from the snapshot alone (no embedding at add time, no store
read), once per snapshot and kept with it: about a millisecond for a scope of a few
thousand memories, then one matrix-vector product per search, as the vector
retriever's. A memory added a moment ago is in the next snapshot (read-your-writes).
Searches not pinned to one cached scope keep the plain cosine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..filters import Filter
from ..records import MemoryRecord, StoreMatch
from .expansion import SESSION_GAP

if TYPE_CHECKING:
    from .scope_snapshot import Snapshot

#: Weight of the neighbours' mean in a neighbour vector: as much as the memory's own (chosen on
#: the LoCoMo tuning conversations: 0.5 and 2 ranked no better there).
BETA = 1.0


class Scored(Protocol):
    """The parts of a search candidate this pass reads and sets."""

    match: StoreMatch
    semantic: float


def neighbour_matrix(snapshot: Snapshot, window: int, beta: float) -> np.ndarray:
    """Every row's vector blended with its session neighbours' mean (unit rows, snapshot rows).

    Cached on the snapshot per ``(window, beta)``: a snapshot never changes once built (an add
    makes a new one), so the matrix is computed at most once per snapshot and setting.
    """
    key = ("neighbour_vectors", window, beta)
    with snapshot.lock:
        cached = snapshot.derived.get(key)
    if isinstance(cached, np.ndarray):
        return cached
    matrix = _blend(snapshot, window, beta)
    with snapshot.lock:
        snapshot.derived[key] = matrix
    return matrix


def _blend(snapshot: Snapshot, window: int, beta: float) -> np.ndarray:
    vectors = snapshot.vectors
    if len(snapshot) == 0 or window <= 0 or beta <= 0:
        return vectors
    rows = np.array([snapshot.rows[memory_id] for memory_id in snapshot.order], dtype=np.int64)
    ordered = vectors[rows]
    when = np.array([snapshot.records[row].observed_at.timestamp() for row in rows], dtype=np.float64)
    voices: dict[tuple[str | None, str | None], int] = {}
    voice = np.array([voices.setdefault(_voice(snapshot.records[row]), len(voices)) for row in rows], dtype=np.int64)
    total = np.zeros_like(ordered)
    count = np.zeros(len(rows), dtype=np.float32)
    replied = np.zeros(len(rows), dtype=bool)
    for shift in range(1, window + 1):
        if shift >= len(rows):
            break
        # The pair (i, i + shift) in stored order: neighbours when observed in one session.
        same = np.abs(when[shift:] - when[:-shift]) <= SESSION_GAP
        total[:-shift][same] += ordered[shift:][same]
        total[shift:][same] += ordered[:-shift][same]
        count[:-shift] += same
        count[shift:] += same
        other = same & (voice[shift:] != voice[:-shift])
        replied[:-shift] |= other
        replied[shift:] |= other
    # Only a turn of a dialogue: one voice's statements in a row (a user stating her facts one
    # after another) are separate facts, not an exchange.
    has = (count > 0) & replied
    blended = ordered.copy()
    blended[has] += beta * (total[has] / count[has, None])
    norms = np.linalg.norm(blended, axis=1, keepdims=True)
    blended = np.divide(blended, norms, out=np.zeros_like(blended), where=norms > 0)
    out = np.empty_like(vectors)
    out[rows] = blended
    return out


def _voice(record: MemoryRecord) -> tuple[str | None, str | None]:
    """Who said a memory: the role it is attributed to and the speaker's name, if any."""
    return record.attributed_to, record.speaker.casefold() if record.speaker else None


def lift_semantic(
    snapshot: Snapshot,
    candidates: dict[str, Scored],
    query_vector: np.ndarray,
    where: Filter,
    window: int,
    weight: float,
    pool: int,
    new_candidate: Callable[[StoreMatch, float], Scored],
) -> None:
    """Move each candidate's ``semantic`` ``weight`` of the way up to its neighbour vector's
    similarity where that is higher, and add the ``pool`` memories nearest by neighbour
    vector that are not candidates yet."""
    if len(snapshot) == 0 or window <= 0 or weight <= 0:
        return
    query = np.asarray(query_vector, dtype=np.float32).reshape(-1)
    query = query / (float(np.linalg.norm(query)) or 1.0)
    blended = neighbour_matrix(snapshot, window, BETA) @ query
    for memory_id, cand in candidates.items():
        row = snapshot.rows.get(memory_id)
        if row is not None:
            cand.semantic = _lifted(cand.semantic, float(blended[row]), weight)
    if pool <= 0:
        return
    accepted = snapshot.accepted(where)
    ranked = np.argsort(-np.where(accepted, blended, -np.inf), kind="stable")
    for row in ranked[:pool].tolist():
        if not accepted[row]:
            break
        record = snapshot.records[row]
        if record.id in candidates:
            continue
        own = float(snapshot.vectors[row] @ query)
        semantic = _lifted(_clip(own), float(blended[row]), weight)
        candidates[record.id] = new_candidate(StoreMatch(record.id, own, record.observed_at, None, record), semantic)


def _lifted(own: float, blended: float, weight: float) -> float:
    """``own`` moved ``weight`` of the way up to ``blended`` (never down)."""
    return own + weight * max(0.0, _clip(blended) - own)


def _clip(value: float) -> float:
    return max(0.0, min(1.0, value))
