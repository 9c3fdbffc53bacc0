"""Builders of LanceDB's vector and BM25 searches, given the columns to read and the limit.

A search may run more than once (a postfilter that left too few rows, a
larger limit), so the store gets a builder rather than one query.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

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
