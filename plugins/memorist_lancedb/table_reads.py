"""Reads of whole table rows that no search ranks: a filtered scan, a scope's snapshot, a
sorted page, rows by address.

Each takes the table as the store hands it (journal drained or overlaid by the
caller) and settles in Python, with :func:`memorist.filters.evaluate`, whatever
part of a filter SQL cannot decide exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from memorist.plugin_api import And, Condition, Filter, MemoryRecord, StoreMatch, evaluate

from .queries import scan
from .schema import VECTOR, from_arrow, vectors_of
from .sql import FALSE, TRUE, Bounds, compile_filter


def scan_accepted(table: Any, columns: list[str], where: Filter | None, bounds: Bounds) -> Iterator[MemoryRecord]:
    """Every record ``where`` accepts: SQL narrows to ``bounds.upper``, ``evaluate`` decides."""
    query = table.search().select(columns).limit(None)
    if bounds.upper != TRUE:
        query = query.where(bounds.upper)
    for batch in query.to_batches():
        for record in from_arrow(pa.Table.from_batches([batch])):
            if where is None or bounds.exact or evaluate(where, record):
                yield record


def read_snapshot(
    table: Callable[[], Any], record_columns: list[str], dimension: int, where: Filter, limit: int
) -> tuple[list[MemoryRecord], np.ndarray] | None:
    """Every record ``where`` accepts with its vector, or None past ``limit`` rows (``table()``
    is not called for a filter that accepts nothing)."""
    bounds = compile_filter(where)
    if bounds.upper == FALSE:
        return [], np.zeros((0, dimension), dtype=np.float32)
    # One scan with the vectors: ``limit + 1`` rows tell "too many" without counting first.
    # The packed record alone, without the ``id`` column beside it: a scope's first search
    # scans its rows, and each column read costs (~1 ms of ~6 for 100 rows of 100k).
    sql = None if bounds.upper == TRUE else bounds.upper
    arrow = scan(table(), [*record_columns, VECTOR], sql, limit + 1)
    if arrow.num_rows > limit:
        return None
    records = from_arrow(arrow)
    vectors = vectors_of(arrow, dimension)
    if not bounds.exact:
        keep = [i for i, record in enumerate(records) if evaluate(where, record)]
        return [records[i] for i in keep], vectors[keep]
    return records, vectors


def newest_first(table: Any, columns: list[str], packed: bool, sql: str, offset: int, limit: int) -> list[MemoryRecord]:
    """One page of the rows an exact ``sql`` filter keeps, newest first (ties by id), sorted by LanceDB."""
    from lancedb.query import ColumnOrdering

    order = [
        ColumnOrdering(column_name="created_at", ascending=False),
        ColumnOrdering(column_name="id", ascending=True),
    ]
    # The sort columns are selected too: a sorted scan without them fails to plan.
    selected = [*columns, "created_at"] if packed else columns
    query = table.search().select(selected).order_by(order)
    if sql != TRUE:
        query = query.where(sql)
    return from_arrow(query.offset(offset).limit(limit).to_arrow())


def by_address(table: Any, columns: list[str], matches: Sequence[StoreMatch]) -> dict[str, MemoryRecord]:
    """The records of lean matches read by their row addresses, checked against the ids (an
    optimize since the search may have moved rows: the caller looks those up by id)."""
    arrow = table.take_row_ids([m.handle for m in matches]).select(columns).to_arrow()
    wanted = {m.id for m in matches}
    return {r.id: r for r in from_arrow(arrow) if r.id in wanted}


def ids_wanted(where: Filter) -> tuple[str, ...] | None:
    """The ids an ``id in (...)`` condition of ``where`` (alone or in a top-level And) limits
    it to; None when it has none."""
    parts = where.items if isinstance(where, And) else (where,)
    for part in parts:
        if isinstance(part, Condition) and part.field == "id" and part.op == "in" and isinstance(part.value, tuple):
            return tuple(str(v) for v in part.value)
    return None
