"""What a batch of adds (``Memory.add_many``) has stored so far, for the duplicate rule.

Why: a batched add writes its vectors once, after every request is decided, but
each request must be judged as if the earlier ones were already stored (same
outcome as one add after another). The two duplicate lookups of the add
pipeline ask the store, then this: the same normalized text, and the nearest
memories by cosine, among the batch's earlier records of the exact scope.
Within one request, facts are compared with each other as a single add does.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..records import MemoryRecord, Scope, StoreHit


def scope_key(scope: Scope) -> tuple[tuple[str, str | None], ...]:
    return tuple(sorted(scope.model_dump().items()))


@dataclass
class BatchStored:
    """Records an ongoing batch decided to store, with their vectors (nothing written yet)."""

    records: list[MemoryRecord] = field(default_factory=list)
    _vectors: list[np.ndarray] = field(default_factory=list)
    #: What the store held before the batch, read once per scope for all its requests:
    #: records by normalized hash, and each fact text's nearest stored memories.
    _stored: dict[tuple[tuple[str, str | None], ...], dict[str, list[MemoryRecord]]] = field(default_factory=dict)
    _nearest: dict[tuple[tuple[tuple[str, str | None], ...], str], list[StoreHit]] = field(default_factory=dict)
    #: Indexes into ``records`` per exact scope.
    _by_scope: dict[tuple[tuple[str, str | None], ...], list[int]] = field(default_factory=dict)
    #: The memories the batch's records replace (their links are written with the batch).
    replaced: set[str] = field(default_factory=set)

    def remember_store(
        self, scope: Scope, stored: Sequence[MemoryRecord], texts: Sequence[str], nearest: Sequence[list[StoreHit]]
    ) -> None:
        """The store's answers for a scope's requests: its records with their hashes (newest
        first, as ``list`` gives them) and the nearest memories of each fact text."""
        key = scope_key(scope)
        by_hash = self._stored.setdefault(key, {})
        for record in stored:
            # All of them, in the store's order: a single add keeps the oldest that no newer
            # memory replaced (a fact told again after a change is a version of its own).
            by_hash.setdefault(record.hash, []).append(record)
        for text, hits in zip(texts, nearest, strict=True):
            self._nearest[(key, text)] = hits

    def knows(self, scope: Scope, seeded: bool) -> bool:
        """Whether the store was read for this scope (a request with fixed ids reads it itself)."""
        return not seeded and scope_key(scope) in self._stored

    def stored_with(self, scope: Scope, hashes: Sequence[str]) -> list[MemoryRecord]:
        by_hash = self._stored.get(scope_key(scope), {})
        return [record for h in dict.fromkeys(hashes) for record in by_hash.get(h, [])]

    def stored_nearest(self, scope: Scope, text: str) -> list[StoreHit]:
        return self._nearest[(scope_key(scope), text)]

    def add(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        for i, record in enumerate(records):
            self._by_scope.setdefault(scope_key(record.scope), []).append(len(self.records))
            self.records.append(record)
            self._vectors.append(np.asarray(vectors[i], dtype=np.float32))

    def vector(self, index: int) -> np.ndarray:
        return self._vectors[index]

    def matching(self, scope: Scope, hashes: Collection[str]) -> list[MemoryRecord]:
        """The batch's records of exactly ``scope`` with one of ``hashes``."""
        return [r for r in (self.records[i] for i in self._by_scope.get(scope_key(scope), [])) if r.hash in hashes]

    def nearest(
        self, stored: list[StoreHit], vector: np.ndarray, k: int, scope: Scope, exclude: Collection[str] = ()
    ) -> list[StoreHit]:
        """The best ``k`` of the store's hits and the batch's records of exactly ``scope``
        (but ``exclude``), by cosine, ties by id: as one search over store and batch ranks them."""
        chosen = [i for i in self._by_scope.get(scope_key(scope), []) if self.records[i].id not in exclude]
        if not chosen:
            return stored
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        matrix = np.stack([self._vectors[i] for i in chosen])
        norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
        with np.errstate(divide="ignore", invalid="ignore"):
            cosine = np.where(norms > 0, (matrix @ query) / norms, 0.0)
        scores = np.clip(np.nan_to_num(cosine, nan=0.0), -1.0, 1.0)
        if len(chosen) > k:  # only records that can be among the best k become hits (ties kept)
            kth = np.partition(scores, len(chosen) - k)[len(chosen) - k]
            keep = np.flatnonzero(scores >= kth)
            chosen, scores = [chosen[i] for i in keep], scores[keep]
        hits = list(stored)
        hits.extend(
            StoreHit.model_construct(record=self.records[i], score=float(s), vector=None)
            for i, s in zip(chosen, scores, strict=True)
        )
        hits.sort(key=lambda h: (-h.score, h.record.id))
        return hits[:k]
