"""Score calibration: the fused hybrid score mapped onto the scale similarity-search users expect.

The fused score (a weighted mean of semantic, keyword and entity signals, with
temporal and context adjustments) is low in absolute terms: the keyword and
entity parts are 0 for most memories. Measured on labelled examples
(``HF_HUB_OFFLINE=1 python benchmarks/score_examples.py``, default embedded
configuration) the raw fused score of

* an exact or near-exact match (the memory's own words) is 0.47-0.86, median 0.67;
* a paraphrase (mostly a question the memory answers) is 0.14-0.58, median 0.28;
* the best hit of an unrelated query is 0.06-0.26, median 0.10,

so ``threshold=0.5`` (a common similarity cut-off) dropped most paraphrases and
some exact one-word matches. :func:`calibrate` is a piecewise-linear, strictly
increasing map through the anchors below, fitted to those figures: exact matches
land at 0.60-0.91 (20 of 22 at 0.7 or more, all at 0.5 or more), paraphrases that
share a name or keyword with the memory at 0.5-0.72, the best unrelated hits at
0.06-0.31 (median 0.10), and the v3 default threshold 0.1 cuts exactly where it
cut before (0.1 maps to 0.1). Paraphrases sharing no word with the memory stay
at 0.15-0.45: their raw scores overlap the unrelated ones, so no monotone map can
lift them without lifting noise too. Being strictly increasing it changes no ranking
(recall is unchanged); a caller's ``threshold`` is mapped back through
:func:`uncalibrate` before the search compares it with raw scores.

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
    (0.26, 0.30),
    (0.40, 0.50),
    (0.55, 0.70),
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
