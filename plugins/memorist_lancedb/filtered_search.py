"""How a vector or keyword search meets its filter: prefilter, postfilter or Python.

The store hands every search here with a builder of its LanceDB query
(:mod:`.queries`); what is decided here is where the filter is evaluated (by
LanceDB as SQL, after the search on whole records, or both) and how many rows
are asked for, so that every search returns exactly the best ``k`` rows the
reference semantics (:func:`memorist.filters.evaluate`) accept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, overload

import numpy as np
from memorist.plugin_api import Filter, StoreHit, StoreMatch

from .journal import Pending
from .planner import FilterPlanner
from .queries import QueryBuilder
from .results import Scores, best, hits_of, matches_of, similarities
from .schema import VECTOR
from .sql import FALSE, TRUE, compile_filter
from .writebehind import overlay_hits

#: What a lean search reads per hit (see ``StoreMatch``): not the text, metadata or scope.
MATCH_COLUMNS = ["id", "observed_at", "_rowid"]


@overload
def search_filtered(
    table: Callable[[], Any],
    planner: FilterPlanner,
    columns: list[str],
    dimension: int,
    build: QueryBuilder,
    scores: Scores,
    k: int,
    where: Filter | None,
    lean: Literal[True],
) -> list[StoreMatch]: ...


@overload
def search_filtered(
    table: Callable[[], Any],
    planner: FilterPlanner,
    columns: list[str],
    dimension: int,
    build: QueryBuilder,
    scores: Scores,
    k: int,
    where: Filter | None,
    lean: Literal[False],
) -> list[StoreHit]: ...


def search_filtered(
    table: Callable[[], Any],
    planner: FilterPlanner,
    columns: list[str],
    dimension: int,
    build: QueryBuilder,
    scores: Scores,
    k: int,
    where: Filter | None,
    lean: bool,
) -> list[StoreHit] | list[StoreMatch]:
    """The best ``k`` hits ``where`` accepts, as whole records or (``lean``) matches.

    A filter that keeps most of the table is not given to LanceDB at all
    (see :mod:`.planner`): the whole table is searched for a few more rows
    than wanted, read as whole records, and ``evaluate`` keeps the ones the
    filter accepts. (LanceDB would evaluate an indexed predicate over every
    row even as a postfilter: 14 ms per query at 1M rows.) If too few
    survive, the search runs again with a prefilter. With an exact
    prefilter one query suffices, and a lean search reads only what
    ranking needs. Otherwise the SQL superset is searched for more
    candidates than needed and ``evaluate`` drops the rest (on whole
    records, so such a search is never lean); if too few survive and the
    search was not exhausted, it is repeated with a larger limit.
    """
    bounds = compile_filter(where)
    if k <= 0 or bounds.upper == FALSE:
        return []

    def run(limit: int, sql: str | None) -> tuple[list[Any], int]:
        """One search; ``sql`` None: unfiltered, ``where`` evaluated on the records."""
        records = sql is None or not (lean and bounds.exact)
        query = build(columns if records else MATCH_COLUMNS, limit)
        if sql is not None and sql != TRUE:
            query = query.where(sql, prefilter=True)
        arrow = query.limit(limit).to_arrow()
        if not records:
            return matches_of(arrow, scores, dimension), arrow.num_rows
        checked = None if sql is not None and bounds.exact else where
        hits = hits_of(arrow, scores, checked, dimension)
        return ([StoreMatch.of(h) for h in hits] if lean else hits), arrow.num_rows

    if bounds.upper != TRUE:
        limit = planner.postfilter_limit(table(), where, k)
        if limit is not None:
            found, _ = run(limit, None)
            if len(found) >= k:
                return best(found, k)
    limit = k if bounds.exact else max(4 * k, 32)
    while True:
        found, rows = run(limit, bounds.upper)
        if len(found) >= k or rows < limit:
            return best(found, k)
        limit *= 4


def search_batched(
    table: Any,
    columns: list[str],
    matrix: np.ndarray,
    k: int,
    sql: str,
    where: Filter | None,
    pending: dict[str, Pending],
) -> list[list[StoreHit]]:
    """Many exact-filter (``sql``) vector searches in one LanceDB query, its ``query_index``
    column telling them apart; rows still in the journal (``pending``) overlaid on each."""

    def table_search(limit: int) -> list[list[StoreHit]]:
        query = table.search(matrix, vector_column_name=VECTOR).distance_type("cosine")
        query = query.select([*columns, "_distance"]).bypass_vector_index()
        if sql != TRUE:
            query = query.where(sql, prefilter=True)
        arrow = query.limit(limit).to_arrow()
        groups: list[list[StoreHit]] = [[] for _ in matrix]
        rows = arrow.column("query_index").to_pylist()
        for row, hit in zip(rows, hits_of(arrow, similarities, None, 0), strict=True):
            groups[int(row)].append(hit)
        return groups

    found = table_search(k + len(pending))
    if not pending:
        return [best(hits, k) for hits in found]

    def given(hits: list[StoreHit]) -> Callable[[int], list[StoreHit]]:
        return lambda _limit: hits  # read above with room for the pending ids it drops

    return [overlay_hits(pending, matrix[i], k, where, given(hits)) for i, hits in enumerate(found)]
