"""Filter strategy for vector and keyword queries: prefilter or postfilter.

A prefilter evaluates the filter over the whole table before searching, so
the search sees only matching rows: right when the filter keeps few of them,
but when it keeps most (one tenant, one user with most of the memories) the
evaluation is pure overhead that grows with the table: about 4 ms at 100k
rows and 40 ms at 1M for a scope-plus-expiry filter. A postfilter searches
the whole table for a few more rows than wanted and drops the ones the
filter rejects (the store evaluates it on the records it read: LanceDB's own
postfilter still consults the scalar indexes over every row).

The choice follows the fraction of the table the filter's *scope* keeps (its
equality tests on the tenant and scope columns), counted with the scalar
indexes and cached for a while per scope: a search inherits a stale or
optimistic estimate only as a retry (too few rows survive the postfilter,
the store searches again with a prefilter), never as a wrong answer. Filters
with any other condition (ids, metadata, dates, categories: often far more
selective than their scope) always prefilter.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from datetime import datetime
from typing import Any

from memorist.plugin_api import And, Condition, Filter, Not, Or

from .sql import quote

#: Columns whose equality tests define a scope (all carry scalar indexes or are tiny).
SCOPE_COLUMNS = frozenset(["org_id", "project_id", "user_id", "agent_id", "run_id", "app_id"])
#: How long a counted fraction is trusted; counts follow writes only this loosely.
FRACTION_SECONDS = 30.0
#: Scopes whose fraction is remembered, least recently used dropped first.
_CACHE_SIZE = 1024


def scope_sql(where: Filter | None) -> str | None:
    """The SQL of ``where``'s scope equalities when the rest of it is only the expiry test.

    None when ``where`` holds anything else (those filters always prefilter) or no scope.
    """
    if where is None:
        return None
    items = where.items if isinstance(where, And) else (where,)
    parts: list[str] = []
    for item in items:
        if isinstance(item, Condition) and item.field in SCOPE_COLUMNS and item.op == "eq":
            if not isinstance(item.value, str):
                return None
            parts.append(f"{item.field} = {quote(item.value)}")
        elif not _is_expiry_test(item):
            return None
    return " AND ".join(sorted(set(parts))) or None


def _is_expiry_test(node: Filter) -> bool:
    """``expires_at`` absent or later than a moment: what hides expired memories."""
    if not isinstance(node, Or) or len(node.items) != 2:
        return False
    absent, later = node.items
    return (
        isinstance(absent, Not)
        and absent.item == Condition("expires_at", "exists")
        and isinstance(later, Condition)
        and later.field == "expires_at"
        and later.op in ("gt", "gte")
        and isinstance(later.value, datetime)
    )


class FilterPlanner:
    """Decides per query whether a filter is applied before or after the search."""

    def __init__(self, min_fraction: float) -> None:
        self._min_fraction = min_fraction
        self._lock = threading.Lock()
        self._fractions: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def postfilter_limit(self, table: Any, where: Filter | None, k: int) -> int | None:
        """Rows to fetch for ``k`` survivors of a postfilter, or None to prefilter.

        The limit is what the counted fraction predicts plus a tenth of ``k`` and a few more
        (rows expired or written since the count).
        """
        if self._min_fraction > 1.0:
            return None
        scope = scope_sql(where)
        if scope is None:
            return None
        fraction = self._fraction(table, scope)
        if fraction < self._min_fraction or fraction <= 0.0:
            return None
        return math.ceil(k / fraction) + math.ceil(k / 10) + 8

    def _fraction(self, table: Any, scope: str) -> float:
        now = time.monotonic()
        with self._lock:
            cached = self._fractions.get(scope)
            if cached is not None and now - cached[1] < FRACTION_SECONDS:
                self._fractions.move_to_end(scope)
                return cached[0]
        total = int(table.count_rows())
        fraction = int(table.count_rows(scope)) / total if total else 0.0
        with self._lock:
            self._fractions[scope] = (fraction, now)
            while len(self._fractions) > _CACHE_SIZE:
                self._fractions.popitem(last=False)
        return fraction

    def forget(self) -> None:
        """Drop every counted fraction (the table was reset)."""
        with self._lock:
            self._fractions.clear()
