"""Search results out of Arrow: whole-record hits, lean matches, their scores, the top ``k``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
from memorist.plugin_api import Filter, StoreHit, StoreMatch, evaluate

from .schema import VECTOR, as_utc, from_arrow, vectors_of

#: A search's raw scores, one per row of its result table.
Scores = Callable[[pa.Table], np.ndarray]


def hits_of(table: pa.Table, scores: Scores, where: Filter | None, dimension: int) -> list[StoreHit]:
    """Whole-record hits of one search that ``where`` accepts (None: all; vectors when selected)."""
    row_scores = scores(table)
    vectors = vectors_of(table, dimension) if VECTOR in table.column_names else None
    return [
        StoreHit.model_construct(
            record=record, score=float(row_scores[i]), vector=None if vectors is None else vectors[i]
        )
        for i, record in enumerate(from_arrow(table))
        if where is None or evaluate(where, record)
    ]


def matches_of(table: pa.Table, scores: Scores, dimension: int) -> list[StoreMatch]:
    """Lean hits of one search, each with its row address for ``fetch``."""
    row_scores = scores(table)
    vectors = vectors_of(table, dimension) if VECTOR in table.column_names else None
    ids = table.column("id").to_pylist()
    observed = [as_utc(moment) for moment in table.column("observed_at").to_pylist()]
    rows = table.column("_rowid").to_pylist()
    return [
        StoreMatch(ids[i], float(row_scores[i]), observed[i], None if vectors is None else vectors[i], None, rows[i])
        for i in range(len(ids))
    ]


def best(hits: list[Any], k: int) -> list[Any]:
    """Best ``k`` by score, ties by id (hits are StoreHit or StoreMatch)."""
    hits.sort(key=lambda h: (-h.score, h.id if isinstance(h, StoreMatch) else h.record.id))
    return hits[:k]


def similarities(table: pa.Table) -> np.ndarray:
    """Cosine similarity from LanceDB's cosine distance; NaN (a zero vector on either side) scores 0."""
    similarity = 1.0 - np.nan_to_num(_float_column(table, "_distance"), nan=1.0)
    clipped: np.ndarray = np.clip(similarity, -1.0, 1.0)
    return clipped


def bm25(table: pa.Table) -> np.ndarray:
    return _float_column(table, "_score")


def _float_column(table: pa.Table, name: str) -> np.ndarray:
    """A numeric column as float64, nulls as NaN."""
    return np.asarray(table.column(name).to_numpy(zero_copy_only=False), dtype=np.float64)
