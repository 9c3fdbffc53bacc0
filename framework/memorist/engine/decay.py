"""Memory decay: older memories that are rarely retrieved rank lower, recently used ones higher.

Opt-in (a platform project's ``decay: true``, or ``engine.decay`` in the YAML
for the self-hosted server); off, search is exactly what it was: no usage is
read or written and no score changes. On, each hit's score is multiplied by

    MIN + (MAX - MIN) * (FRESH_SHARE * freshness + (1 - FRESH_SHARE) * use)

where ``freshness`` halves every ``half_life_days`` since the memory was last
observed or retrieved, and ``use`` grows with how often searches returned it
(``log1p(n) / log1p(USE_SATURATION)``, at most 1). The multiplier stays within
[``MIN``, ``MAX``] = [0.3, 1.5], the range the platform documents: a memory
stored today and never retrieved keeps about its score (x1.02), a year-old one
never retrieved falls towards x0.3, one retrieved often recently rises to x1.5.
A hit that matches the query exactly (every term of the query is in it) never
decays below the search's threshold: decay reorders, it does not hide what was
asked for by name. Each search with decay on counts its returned memories as
retrieved (one statement for the page it answers).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from ..db import Database
from ..db.schema import memory_usage as table
from ..records import as_utc, utcnow
from .hits import SearchHit
from .keywords import terms

MIN = 0.3
MAX = 1.5
#: Share of the multiplier's range that freshness decides (the rest: how often it was used).
FRESH_SHARE = 0.6
#: Retrievals at which ``use`` reaches 1.
USE_SATURATION = 10
DEFAULT_HALF_LIFE_DAYS = 90.0


@dataclass(frozen=True)
class Usage:
    retrievals: int = 0
    last_retrieved_at: datetime | None = None


def multiplier(observed_at: datetime, usage: Usage, now: datetime, half_life_days: float) -> float:
    """The bounded factor a hit's score is multiplied by (see the module's description)."""
    last = max(observed_at, usage.last_retrieved_at) if usage.last_retrieved_at else observed_at
    age_days = max(0.0, (now - last).total_seconds() / 86_400)
    freshness = 0.5 ** (age_days / half_life_days)
    use = min(1.0, math.log1p(usage.retrievals) / math.log1p(USE_SATURATION))
    return MIN + (MAX - MIN) * (FRESH_SHARE * freshness + (1 - FRESH_SHARE) * use)


def exact_match(query: str, text: str) -> bool:
    """Every indexed term of ``query`` occurs in ``text``."""
    wanted = set(terms(query))
    return bool(wanted) and wanted <= set(terms(text))


class MemoryUsage:
    """How often, and when last, searches returned each memory (``memory_usage`` rows)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def read(self, memory_ids: Sequence[str]) -> dict[str, Usage]:
        if not memory_ids:
            return {}
        with self._db.connect() as conn:
            rows = conn.execute(
                select(table.c.memory_id, table.c.retrievals, table.c.last_retrieved_at).where(
                    table.c.memory_id.in_(list(memory_ids))
                )
            )
            return {mid: Usage(int(n), as_utc(at)) for mid, n, at in rows}

    def count(self, memory_ids: Sequence[str], now: datetime) -> None:
        """Count one retrieval of each of ``memory_ids``."""
        ids = list(dict.fromkeys(memory_ids))
        if not ids:
            return
        with self._db.begin() as conn:
            known = self._known(conn, ids)
            if known:
                conn.execute(
                    update(table)
                    .where(table.c.memory_id.in_(known))
                    .values(retrievals=table.c.retrievals + 1, last_retrieved_at=now)
                )
            fresh = [{"memory_id": mid, "retrievals": 1, "last_retrieved_at": now} for mid in ids if mid not in known]
            if fresh:
                conn.execute(table.insert(), fresh)

    @staticmethod
    def _known(conn: Connection, ids: list[str]) -> list[str]:
        return list(conn.execute(select(table.c.memory_id).where(table.c.memory_id.in_(ids))).scalars())

    def forget(self, memory_ids: Sequence[str], conn: Connection) -> None:
        if memory_ids:
            conn.execute(table.delete().where(table.c.memory_id.in_(list(memory_ids))))

    def clear(self) -> None:
        with self._db.begin() as conn:
            conn.execute(table.delete())


def decayed(
    hits: list[SearchHit],
    query: str,
    usage: dict[str, Usage],
    *,
    threshold: float,
    half_life_days: float,
    explain: bool,
    now: datetime | None = None,
) -> list[SearchHit]:
    """``hits`` with decayed scores, best first; below ``threshold`` they go, except an exact
    match, which stays at the threshold."""
    moment = now or utcnow()
    out = []
    for hit in hits:
        factor = multiplier(hit.record.observed_at, usage.get(hit.record.id, Usage()), moment, half_life_days)
        score = hit.score * factor
        if score < threshold:
            if not exact_match(query, hit.record.text):
                continue
            score = threshold
        details = dict(hit.details, decay=round(factor, 6)) if explain and hit.details is not None else hit.details
        out.append(replace(hit, score=score, details=details))
    out.sort(key=lambda h: h.score, reverse=True)
    return out
