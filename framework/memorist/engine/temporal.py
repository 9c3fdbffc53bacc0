"""Temporal signals: which period a query is about, and how close a memory is to it.

"What did Melanie do in May 2023?" favours memories observed (or dated) in May
2023. The signal is applied internally; results do not grow extra fields.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from dateutil.relativedelta import relativedelta

from ..language import DEFAULT, lexicon

_LEXICON = lexicon(DEFAULT)
_MONTHS = list(_LEXICON.ordered_words("months"))
_MONTH_RE = "|".join(m for m in _MONTHS) + "|" + "|".join(m[:3] for m in _MONTHS if len(m) > 3)
_YEAR_BEFORE = "|".join(sorted(_LEXICON.words("year_prepositions")))
_ORDINAL = "|".join(sorted(_LEXICON.words("ordinal_suffixes")))
_JOINER = "|".join(sorted(_LEXICON.words("month_year_joiners")))
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:{_ORDINAL})? ({_MONTH_RE})\.?,? (\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH_RE})\.? (\d{{1,2}})(?:{_ORDINAL})?,? (\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,? (?:(?:{_JOINER}) )?(\d{{4}})\b", re.I)
_YEAR = re.compile(rf"\b(?:{_YEAR_BEFORE}) (19\d{{2}}|20\d{{2}})\b", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


@dataclass(frozen=True)
class Period:
    start: datetime
    end: datetime

    def closeness(self, moment: datetime) -> float:
        """1 inside the period, decaying with distance (half-life about a month)."""
        if self.start <= moment < self.end:
            return 1.0
        gap = (self.start - moment) if moment < self.start else (moment - self.end)
        return math.exp(-gap.total_seconds() / (86400 * 45))


def _month(name: str) -> int:
    key = name.lower()[:3]
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(key))


def query_period(query: str) -> Period | None:
    """The period a query names explicitly, if any."""
    if m := _ISO.search(query):
        start = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC)
        return Period(start, start + timedelta(days=1))
    if m := _DAY_MONTH_YEAR.search(query):
        start = datetime(int(m[3]), _month(m[2]), int(m[1]), tzinfo=UTC)
        return Period(start - timedelta(days=1), start + timedelta(days=2))
    if m := _MONTH_DAY_YEAR.search(query):
        start = datetime(int(m[3]), _month(m[1]), int(m[2]), tzinfo=UTC)
        return Period(start - timedelta(days=1), start + timedelta(days=2))
    if m := _MONTH_YEAR.search(query):
        start = datetime(int(m[2]), _month(m[1]), 1, tzinfo=UTC)
        return Period(start, start + relativedelta(months=1))
    if m := _YEAR.search(query):
        start = datetime(int(m[1]), 1, 1, tzinfo=UTC)
        return Period(start, start + relativedelta(years=1))
    return None


def temporal_score(period: Period | None, observed_at: datetime) -> float:
    """How close a memory observed at ``observed_at`` is to the period a query names (0 without one)."""
    if period is None:
        return 0.0
    return period.closeness(observed_at)
