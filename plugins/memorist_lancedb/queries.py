"""Builders of LanceDB's vector and BM25 searches, given the columns to read and the limit.

A search may run more than once (a postfilter that left too few rows, a
larger limit), so the store gets a builder rather than one query.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from .schema import VECTOR

#: ``build(columns, limit)``: a LanceDB query reading ``columns`` plus its score.
QueryBuilder = Callable[[list[str], int], Any]
#: Word characters: what the FTS tokenizer indexes. Anything else in a query is dropped,
#: so no query text is read as search syntax (quotes, ``AND``-style operators, ``~``).
TERM = re.compile(r"[^\W_]+")


def vector_query(
    table: Callable[[], Any],
    vector: np.ndarray,
    index: str,
    nprobes: int,
    refine_factor: int,
    refine_max_rows: int,
) -> QueryBuilder:
    """Cosine searches for ``vector`` over ``table()``: exact with ``index`` "none" (even over
    an index built earlier), else ANN re-scoring ``limit * refine_factor`` rows exactly, but
    at most ``refine_max_rows`` (never fewer than ``limit``)."""

    def build(columns: list[str], limit: int) -> Any:
        query = table().search(vector, vector_column_name=VECTOR).distance_type("cosine")
        query = query.select([*columns, "_distance"])
        if index == "none":
            return query.bypass_vector_index()
        factor = max(1, min(refine_factor, refine_max_rows // limit))
        return query.nprobes(nprobes).refine_factor(factor)

    return build


def keyword_query(table: Callable[[], Any], query: str) -> QueryBuilder | None:
    """BM25 searches for ``query``'s words over ``table()`` (None: it has no words)."""
    terms = " ".join(TERM.findall(query))
    if not terms:
        return None
    from lancedb.query import FullTextOperator, MatchQuery

    def build(columns: list[str], limit: int) -> Any:
        fts = MatchQuery(
            terms,
            "text",
            boost=1.0,
            fuzziness=0,
            max_expansions=50,
            operator=FullTextOperator.OR,
            prefix_length=0,
            document_granularity=None,
        )
        # Keyword hits carry their vectors: search scores their similarity without a query.
        return table().search(fts, query_type="fts").select([*columns, VECTOR, "_score"])

    return build


def scan(table: Any, columns: Sequence[str], where: str | None, limit: int | None) -> pa.Table:
    """``columns`` of the rows ``where`` selects (SQL; None: all), at most ``limit``, as one Arrow table.

    Why not ``table.search().where(...).to_arrow()``: LanceDB's synchronous builder crosses
    to its event-loop thread six times per query (two schema reads for blob columns, the
    execution, each batch, the end of the stream), ~0.8 ms of the ~5 ms a scope's first
    search spends scanning the user's rows. The table's asynchronous form runs the same
    query in one crossing. Where a LanceDB release lacks either, the builder does it.
    """
    asynchronous = _asynchronous_form(table)
    if asynchronous is not None:
        inner, loop = asynchronous
        query = inner.query().select(list(columns))
        if where is not None:
            query = query.where(where)
        if limit is not None:
            query = query.limit(limit)
        result: pa.Table = loop.run(query.to_arrow())
        return result
    builder = table.search().select(list(columns)).limit(limit)
    return builder.where(where).to_arrow() if where is not None else builder.to_arrow()


def _asynchronous_form(table: Any) -> tuple[Any, Any] | None:
    """The table's ``AsyncTable`` and LanceDB's event loop, or None where this release has not both."""
    try:
        from lancedb.background_loop import LOOP
        from lancedb.table import AsyncTable
    except ImportError:  # pragma: no cover - a LanceDB without them
        return None
    inner = getattr(table, "_table", None)
    return (inner, LOOP) if isinstance(inner, AsyncTable) else None
