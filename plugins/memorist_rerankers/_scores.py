"""Score helpers every reranker here shares.

They keep the contract's promises in one place: scores leave in [0, 1] even
when a model or a caller hands over something outside it (or NaN), and equal
scores keep their input order so a rerank is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memorist.plugin_api import MemoryRecord

Hit = tuple[MemoryRecord, float]


def clamp01(value: float) -> float:
    """``value`` limited to [0, 1]; NaN (a broken model output) counts as 0."""
    value = float(value)
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))


def sigmoid(x: float) -> float:
    """Logistic function without overflow for large negative logits."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def blend(model_score: float, original: float, weight: float) -> float:
    """``weight * model_score + (1 - weight) * original``, both clamped first."""
    return clamp01(weight * clamp01(model_score) + (1.0 - weight) * clamp01(original))


def rank(hits: Sequence[Hit], scores: Sequence[float], top_k: int) -> list[Hit]:
    """Hits with their new ``scores``, best first, input order breaking ties, cut to ``top_k``."""
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
    return [(hits[i][0], clamp01(scores[i])) for i in order[: max(top_k, 0)]]


def unchanged(hits: Sequence[Hit], top_k: int) -> list[Hit]:
    """The fallback: input order and scores (clamped), cut to ``top_k``."""
    return [(record, clamp01(score)) for record, score in hits[: max(top_k, 0)]]
