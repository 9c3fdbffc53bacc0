"""Score calibration: the fused hybrid score mapped onto a scale that says how well a memory answers.

The fused score (a weighted mean of semantic, keyword and entity signals, with
temporal and context adjustments) is low in absolute terms: the keyword and
entity parts are 0 for most memories, and an agent's turn ("Can you suggest a
dinner recipe for tonight?") shares few words with the fact it needs ("The user
is vegetarian."). Measured with the default embedded configuration on two labelled
sets, the raw fused score of

* a memory that answers an agent's turn, found in the top 3
  (``benchmarks/implicit.py``, tuning half): 0.17-0.51, quartiles 0.28 / 0.35 / 0.44;
* every other memory of the user for those turns: median 0.06, 95th percentile 0.19;
* a memory that answers a question in other words (``benchmarks/score_examples.py``,
  paraphrases): 0.16-0.67, median 0.40; the memory's own words: 0.54-0.86;
* the best hit of a request nothing stored answers: 0.08-0.31, median 0.15
  (``score_examples.py``); 0.12-0.41, median 0.20 (``implicit.py``).

:func:`calibrate` is a piecewise-linear, strictly increasing map through the
anchors below, fitted to the tuning halves: a memory that does not answer lands
below 0.2 (95% of them), one that answers an agent's turn or a question at 0.5 or
more in most cases (raw 0.27 and up: about three in four), the memory's own words
at 0.8 or more, and the v3 default threshold 0.1 cuts exactly where it cut before
(0.1 maps to 0.1), below every answer the implicit set found. The 0.2 anchor sits at
raw 0.21, the median best hit of the implicit set's unrelated requests in its tuning
half (a request nothing stored answers should more often than not get a best hit below
0.2), while every answer the set finds stays above 0.1. The
scale is steep between 0.2 and 0.5 because the raw scores of answers and of the best non-answers
overlap there (another fact about the same topic often scores like the one asked
for): a score in that band means "related", not "answers". Being strictly
increasing the map changes no ranking (recall is unchanged); a caller's
``threshold`` is mapped back through :func:`uncalibrate` before the search
compares it with raw scores.

The anchors fit the fusion's current weights and the default embedder; another
embedder spreads cosine similarities differently, and ``engine.calibrate_scores:
false`` returns the raw fused score.
"""

from __future__ import annotations

from collections.abc import Sequence

from .hits import SearchHit

#: (raw fused score, calibrated score), strictly increasing in both coordinates.
ANCHORS: tuple[tuple[float, float], ...] = (
    (0.0, 0.0),
    (0.10, 0.10),
    (0.21, 0.20),
    (0.27, 0.50),
    (0.45, 0.75),
    (0.65, 0.90),
    (1.0, 1.0),
)


def _interpolate(value: float, points: Sequence[tuple[float, float]]) -> float:
    value = min(1.0, max(0.0, value))
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if value == x1:  # an anchor maps exactly (the default threshold 0.1 stays 0.1, not 0.1000...02)
            return y1
        if value < x1:
            return y0 + (value - x0) * (y1 - y0) / (x1 - x0)
    return points[-1][1]


def calibrate(raw: float) -> float:
    """The calibrated score of a raw fused score (both in [0, 1])."""
    return _interpolate(raw, ANCHORS)


def uncalibrate(score: float) -> float:
    """The raw fused score whose calibrated score is ``score``: a caller's threshold, for the search."""
    return _interpolate(score, [(y, x) for x, y in ANCHORS])


def calibrate_hits(hits: list[SearchHit], *, reranked: bool) -> list[SearchHit]:
    """Hits with calibrated scores; ``explain`` keeps the raw fused score as ``raw_score`` beside ``score``.

    A reranked hit's ``score`` is the reranker's own (another scale, left as it is);
    its explain still shows the calibrated fused score and the raw one.
    """
    for hit in hits:
        if hit.details is not None:
            raw = float(hit.details.get("score", hit.score))
            hit.details["raw_score"] = round(raw, 6)
            hit.details["score"] = round(calibrate(raw), 6)
        if not reranked:
            hit.score = calibrate(hit.score)
    return hits
