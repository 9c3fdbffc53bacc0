"""Snapshots of one memory scope and the store methods a search calls, answered from one.

See :mod:`.scope_index` for how snapshots are loaded, kept coherent and bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from ..filters import And, Condition, Filter, Not, Or, evaluate
from ..records import MemoryRecord, StoreHit, StoreMatch
from .generations import Generation, generation_key
from .keywords import Postings
from .row_buffer import RowBuffer
from .scope_graph import ScopeGraph

#: Filters whose masks a snapshot remembers (a user's searches repeat the same few).
_MASKS = 16


@dataclass(frozen=True)
class Pinned:
    """The one scope a search is pinned to."""

    org_id: str
    project_id: str
    field: str
    value: str

    @property
    def key(self) -> str:
        return generation_key(self.org_id, self.project_id, self.field, self.value)

    def filter(self) -> Filter:
        return And(
            (
                Condition("org_id", "eq", self.org_id),
                Condition("project_id", "eq", self.project_id),
                Condition(self.field, "eq", self.value),
            )
        )

    def implies(self, item: Filter) -> bool:
        """Whether every record of the scope satisfies ``item`` (a condition the scope fixes)."""
        if not isinstance(item, Condition) or item.op != "eq":
            return False
        fixed = {"org_id": self.org_id, "project_id": self.project_id, self.field: self.value}
        return item.field in fixed and item.value == fixed[item.field]


@dataclass
class Snapshot:
    """One scope as loaded at ``generation``: records, vectors, postings and stored order."""

    pinned: Pinned
    generation: Generation
    records: list[MemoryRecord]
    vectors: np.ndarray
    postings: Postings
    #: Ids in stored order (created_at, updated_at, id), as ``VectorStore.sequence`` answers.
    order: list[str]
    rows: dict[str, int]
    #: Expiry as POSIX seconds, +inf for none (the not-expired condition, vectorized).
    expires: np.ndarray
    masks: OrderedDict[Filter, np.ndarray] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: The scope's entity-graph partition, loaded on first use (same generation).
    graph: ScopeGraph | None = None
    #: For a snapshot extended by this process's adds: the graph of the snapshot it grew
    #: from and the memories added since, so its graph is that one plus their links
    #: (:meth:`ScopeGraph.with_memories`) rather than a whole partition read again.
    graph_base: tuple[ScopeGraph, tuple[str, ...]] | None = None
    #: Rows by normalized-text hash: an add's duplicate lookup (``hash in (...)``) is then a
    #: few dict reads instead of evaluating the filter on every record of the scope.
    by_hash: dict[str | None, tuple[int, ...]] = field(default_factory=dict)
    #: Values a ranking pass derives from this snapshot alone, computed on first use and kept
    #: while it lives (e.g. :func:`memorist.engine.neighbour_vectors.neighbour_matrix`); an
    #: extended snapshot starts empty. Read and written under ``lock``.
    derived: dict[object, object] = field(default_factory=dict)
    #: The buffer ``vectors`` is a view of, shared with the snapshots this one grows into, so
    #: an add appends its vectors instead of copying the scope's (:mod:`.row_buffer`).
    row_buffer: RowBuffer = field(default_factory=RowBuffer)

    @classmethod
    def build(
        cls, pinned: Pinned, generation: Generation, records: list[MemoryRecord], vectors: np.ndarray
    ) -> Snapshot:
        matrix = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True) if matrix.size else np.ones((0, 1), np.float32)
        matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
        stored = sorted(range(len(records)), key=lambda i: _stored_key(records[i]))
        expires = np.array(
            [r.expires_at.timestamp() if r.expires_at is not None else np.inf for r in records], dtype=np.float64
        )
        return cls(
            pinned,
            generation,
            records,
            matrix,
            Postings(r.text for r in records),
            [records[i].id for i in stored],
            {r.id: i for i, r in enumerate(records)},
            expires,
            by_hash=_rows_by_hash(records, 0, {}),
        )

    def __len__(self) -> int:
        return len(self.records)

    def extended(self, generation: Generation, records: list[MemoryRecord], vectors: np.ndarray) -> Snapshot:
        """A new snapshot with ``records`` (new ids) appended: this process's own add, or other
        processes' adds read by id, applied without reloading the scope. Built beside this
        one, which searches may be reading."""
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(records), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
        every = self.records + records
        rows = dict(self.rows)
        rows.update((r.id, len(self.records) + i) for i, r in enumerate(records))
        expires = np.array([r.expires_at.timestamp() if r.expires_at else np.inf for r in records], dtype=np.float64)
        return Snapshot(
            self.pinned,
            generation,
            every,
            self.row_buffer.appended(self.vectors, matrix),
            self.postings.extended([r.text for r in records]),
            self._order_with(records),
            rows,
            np.concatenate([self.expires, expires]),
            # A shallow copy (tuples are shared): an add into a large scope copies no lists.
            by_hash=_rows_by_hash(records, len(self.records), dict(self.by_hash)),
            # The filters this scope's searches and adds keep asking (its scope conditions,
            # a search's filter) carry over, evaluated on the new records only.
            masks=self._extended_masks(records),
            graph_base=self._graph_base_with(records),
            row_buffer=self.row_buffer,
        )

    def _graph_base_with(self, records: list[MemoryRecord]) -> tuple[ScopeGraph, tuple[str, ...]] | None:
        with self.lock:
            graph, base = self.graph, self.graph_base
        if graph is not None:
            return graph, tuple(r.id for r in records)
        if base is not None:  # extended again before any search read its graph
            return base[0], (*base[1], *(r.id for r in records))
        return None

    def _order_with(self, records: list[MemoryRecord]) -> list[str]:
        """The stored order with ``records`` added. A new add is usually the newest memory:
        then its ids go at the end with no sort over the whole scope."""
        fresh = sorted(records, key=_stored_key)
        if not fresh:
            return self.order
        if not self.order or _stored_key(self.records[self.rows[self.order[-1]]]) < _stored_key(fresh[0]):
            return self.order + [r.id for r in fresh]
        # Timsort merges the appended run in linear time.
        return [r.id for r in sorted(self.records + records, key=_stored_key)]

    def _extended_masks(self, records: list[MemoryRecord]) -> OrderedDict[Filter, np.ndarray]:
        with self.lock:
            cached = list(self.masks.items())
        return OrderedDict(
            (item, np.concatenate([mask, np.array([evaluate(item, r) for r in records], dtype=bool)]))
            for item, mask in cached
        )

    def accepted(self, where: Filter | None) -> np.ndarray:
        """Which rows ``where`` accepts (exactly what :func:`evaluate` says, record by record)."""
        mask = np.ones(len(self.records), dtype=bool)
        if where is None:
            return mask
        for item in where.items if isinstance(where, And) else (where,):
            if self.pinned.implies(item):
                continue
            mask &= self._item_mask(item)
        return mask

    def _item_mask(self, item: Filter) -> np.ndarray:
        moment = _not_expired_moment(item)
        if moment is not None:
            accepted: np.ndarray = self.expires > moment.timestamp()
            return accepted
        if isinstance(item, And):
            return self.accepted(item)
        if (
            isinstance(item, Condition)
            and item.field in ("id", "hash")
            and (item.op == "eq" or (item.op in ("in", "nin") and isinstance(item.value, tuple | list)))
        ):
            # Each add asks for other ids and hashes: looked up, never evaluated row by row
            # nor cached. Both fields are strings on every record, so membership is exactly
            # what ``evaluate`` decides.
            values = (item.value,) if item.op == "eq" else item.value
            try:
                if item.field == "id":
                    hits = [self.rows[v] for v in values if v in self.rows]
                else:
                    hits = [row for v in values for row in self.by_hash.get(v, ())]
            except TypeError:  # an unhashable value (never from parse_filter): evaluated below
                pass
            else:
                mask = np.zeros(len(self.records), dtype=bool)
                mask[hits] = True
                return ~mask if item.op == "nin" else mask
        try:
            hash(item)
        except TypeError:  # a value that cannot key the cache (never from parse_filter)
            return np.array([evaluate(item, r) for r in self.records], dtype=bool)
        with self.lock:
            cached = self.masks.get(item)
            if cached is not None:
                self.masks.move_to_end(item)
                return cached
        mask = np.array([evaluate(item, r) for r in self.records], dtype=bool)
        with self.lock:
            self.masks[item] = mask
            while len(self.masks) > _MASKS:
                self.masks.popitem(last=False)
        return mask


def _rows_by_hash(
    records: Sequence[MemoryRecord], first: int, into: dict[str | None, tuple[int, ...]]
) -> dict[str | None, tuple[int, ...]]:
    for row, record in enumerate(records, start=first):
        into[record.hash] = (*into.get(record.hash, ()), row)
    return into


def _stored_key(record: MemoryRecord) -> tuple[datetime, datetime, str]:
    return record.created_at, record.updated_at, record.id


def _not_expired_moment(item: Filter) -> datetime | None:
    """``moment`` when ``item`` is ``memorist.engine.scope.not_expired(moment)``."""
    if not isinstance(item, Or) or len(item.items) != 2:
        return None
    absent, later = item.items
    if absent != Not(Condition("expires_at", "exists")):
        return None
    if isinstance(later, Condition) and later.field == "expires_at" and later.op == "gt":
        if isinstance(later.value, datetime) and later.value.tzinfo is not None:
            return later.value
    return None


class ScopeView:
    """The store methods a search calls, answered from one snapshot (see ``VectorStore``)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def match_vector(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[StoreMatch]:
        snap = self.snapshot
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        scores = snap.vectors @ (query / norm) if norm > 0 else np.zeros(len(snap), dtype=np.float32)
        return self._best(scores, snap.accepted(where), k, vectors=False)

    def match_keyword(self, query: str, k: int, where: Filter | None = None) -> list[StoreMatch]:
        snap = self.snapshot
        scores = snap.postings.scores(query)
        return self._best(scores, snap.accepted(where) & (scores > 0), k, vectors=True)

    def sequence(self, where: Filter | None = None, limit: int | None = None) -> list[str] | None:
        order = self.snapshot.order
        return None if limit is not None and len(order) > limit else order

    def fetch(self, matches: Sequence[StoreMatch]) -> dict[str, MemoryRecord]:
        """Matches from a view carry their records: nothing to read."""
        return {m.id: m.record for m in matches if m.record is not None}

    def search_vector(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[StoreHit]:
        """``VectorStore.search_vector``: the nearest ``k`` with whole records."""
        return [
            StoreHit.model_construct(record=self.snapshot.records[self.snapshot.rows[m.id]], score=m.score)
            for m in self.match_vector(vector, k, where)
        ]

    def _best(self, scores: np.ndarray, mask: np.ndarray, k: int, *, vectors: bool) -> list[StoreMatch]:
        """The best ``k`` accepted rows, best first, ties by id (as the stores order them)."""
        rows = np.flatnonzero(mask)
        if k <= 0 or rows.shape[0] == 0:
            return []
        values = scores[rows].astype(np.float64)
        if rows.shape[0] > k:
            kth = np.partition(-values, k - 1)[k - 1]
            keep = -values <= kth  # every row tied with the k-th: ties then break by id
            rows, values = rows[keep], values[keep]
        snap = self.snapshot
        picked = sorted(zip(values.tolist(), rows.tolist(), strict=True), key=lambda p: (-p[0], snap.records[p[1]].id))
        out = []
        for value, row in picked[:k]:
            record = snap.records[row]
            vector = snap.vectors[row] if vectors else None
            out.append(StoreMatch(record.id, float(value), record.observed_at, vector, record))
        return out

    # Defined last: inside the class body the name shadows the builtin for type checkers.
    def list(self, where: Filter | None, limit: int) -> list[MemoryRecord]:
        """``VectorStore.list`` from offset 0: newest ``created_at`` first, ties by id."""
        snap = self.snapshot
        found = [snap.records[row] for row in np.flatnonzero(snap.accepted(where))]
        found.sort(key=lambda r: r.id)
        found.sort(key=lambda r: r.created_at, reverse=True)  # stable: ties stay by id
        return found[:limit]
