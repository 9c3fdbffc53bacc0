"""Small statistics shared by the benchmarks, so every report uses one convention."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of ``values`` for ``q`` in [0, 1] (0.5 is the median sample, 0.95 the p95).

    Why nearest rank: it always returns a measured sample (no interpolation
    between two latencies), which is what every benchmark report of this
    project has printed; one copy keeps them comparable.
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be within [0, 1], got {q}")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
