"""The search and list options about time: ``as_of``, ``latest_only``, ``decay``, ``reference_date``.

Kept apart from :class:`~.memory.Memory` (the doors' entry) and from the hybrid
search (ranking): each option narrows or reorders what the search ranked, or
rewrites what it is asked, and costs nothing when not asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..filters import Condition, Filter, conjoin
from ..records import utcnow
from .decay import MemoryUsage, decayed
from .hits import SearchHit
from .relative_time import anchored
from .scope import parse_moment
from .supersession import SupersessionLog

#: Hits a search ranks, per hit asked for, when some may be dropped or reordered afterwards.
OVERFETCH = 3


@dataclass(frozen=True)
class TimeOptions:
    """A search's or list's time options, parsed (bad dates are a ``ValidationError`` naming the field)."""

    as_of: datetime | None = None
    reference: datetime | None = None
    latest_only: bool = False
    decay: bool = False

    @classmethod
    def parse(
        cls, *, as_of: Any = None, reference_date: Any = None, latest_only: bool = False, decay: bool = False
    ) -> TimeOptions:
        return cls(parse_moment(as_of, "as_of"), parse_moment(reference_date, "reference_date"), latest_only, decay)

    def where(self, where: Filter | None) -> Filter | None:
        """``where`` narrowed to memories observed by ``as_of``."""
        if self.as_of is None:
            return where
        observed = Condition("observed_at", "lte", self.as_of)
        return conjoin(where, observed) if where is not None else observed

    def query(self, query: str) -> str:
        """``query`` with relative time written out at ``reference_date`` (as written without one)."""
        return anchored(query, self.reference) if self.reference is not None else query

    def pool(self, top_k: int, maximum: int) -> int:
        """How many hits to rank for ``top_k`` answers."""
        return min(maximum, top_k * OVERFETCH + 10) if self.latest_only or self.decay else top_k

    def after_ranking(
        self,
        hits: list[SearchHit],
        query: str,
        top_k: int,
        *,
        supersessions: SupersessionLog,
        usage: MemoryUsage,
        threshold: float,
        half_life_days: float,
        explain: bool,
    ) -> list[SearchHit]:
        """The ranked ``hits`` without superseded ones (``latest_only``), decayed (``decay``: each
        returned memory counts as retrieved), cut to ``top_k``."""
        if self.latest_only:
            gone = supersessions.superseded([h.record.id for h in hits], self.as_of)
            hits = [h for h in hits if h.record.id not in gone]
        if self.decay:
            read = usage.read([h.record.id for h in hits])
            hits = decayed(hits, query, read, threshold=threshold, half_life_days=half_life_days, explain=explain)
            hits = hits[:top_k]
            usage.count([h.record.id for h in hits], utcnow())
        return hits[:top_k]
