"""In-memory snapshots of memory scopes: a pinned search's retrievers without a store query.

A search pinned to one scope (one user, else agent, run or app, as
``HybridSearch._pinned`` picks it) ranks a few thousand memories at most:
a flat scan of their vectors takes well under a millisecond and BM25 over their
terms about one, while each store query has a fixed cost of several
milliseconds. So a scope's ids, vectors (a normalized float32 matrix), term
postings (:mod:`.keywords`), stored order and records are loaded once through
the store's public ``snapshot`` method, and :class:`ScopeView` answers the
store methods search calls (``match_vector``, ``match_keyword``, ``sequence``,
``fetch``) from them. The search's other conditions are evaluated in memory
with :func:`memorist.filters.evaluate` (expiry, the one that changes with the
clock, on a vector of expiry times).

Coherence: every write bumps its scopes' generations in the relational database
once the store shows it (:mod:`.generations`); a search reads its scope's
generation (one point query) before using a snapshot and reloads on a mismatch.
Every process and node therefore sees every acknowledged write at once. When
every write since the snapshot was an add (the common case: an agent's loop
served by several workers), the snapshot *catches up* instead: it takes just the
added memories, named by the adds' log (``scope_additions``), from the store.

Memory stays bounded: scopes are kept least recently used first within
``scope_index_rows`` rows in total; a scope above ``scope_index_max_rows``, a
search not pinned to one scope, and a store without ``snapshot`` keep using
the store's own queries, unchanged.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import select

from ..db.schema import scope_counts
from ..filters import And, Condition
from ..plugin.contracts import VectorStore
from ..records import ENTITY_TYPES, MemoryRecord
from .generations import EVERYTHING, Generation, ScopeGenerations, record_keys
from .scope_graph import ScopeGraph
from .scope_snapshot import Pinned, ScopeView, Snapshot

__all__ = ["EAGER_ROWS", "Pinned", "ScopeIndex", "ScopeView", "Snapshot", "carried_index", "describe"]

#: Generations of scopes found too large to load, remembered so they are not re-read.
_TOO_LARGE = 1024
#: Scopes searched once and not loaded: a large scope is loaded on its second search, so
#: searches spread over many scopes never pay a load they will not reuse.
_SEEN = 4096
#: A scope of at most this many memories (by ``scope_counts``) is loaded on its first search:
#: loading it costs less than the store's two queries (see benchmarks/search_stages.py).
EAGER_ROWS = 1000


class ScopeIndex:
    """Snapshots of recently searched scopes, least recently used evicted first."""

    def __init__(
        self, store: VectorStore, generations: ScopeGenerations, *, max_rows: int, max_scope_rows: int
    ) -> None:
        self._store = store
        self._generations = generations
        self._max_rows = max_rows
        self._max_scope_rows = min(max_scope_rows, max_rows)
        self._lock = threading.Lock()
        self._scopes: OrderedDict[str, Snapshot] = OrderedDict()
        self._rows = 0
        self._too_large: OrderedDict[str, Generation] = OrderedDict()
        self._seen: OrderedDict[str, None] = OrderedDict()
        #: Loads since start (benchmarks and tests read it).
        self.loads = 0
        #: Whole graph partitions read (a snapshot grown by this process's adds reads only theirs).
        self.graph_loads = 0
        #: Snapshots brought up to date with other processes' adds alone (no reload).
        self.catch_ups = 0

    @property
    def rows(self) -> int:
        """Rows held across every cached scope (never above ``max_rows``)."""
        return self._rows

    def cached(self) -> list[str]:
        with self._lock:
            return list(self._scopes)

    def will_load(self, pinned: Pinned) -> bool:
        """Whether a search of the scope is about to load it: no snapshot cached, and the scope
        not found too large to cache (a hint: that search can do other work meanwhile)."""
        with self._lock:
            return pinned.key not in self._scopes and pinned.key not in self._too_large

    def view(self, pinned: Pinned) -> ScopeView | None:
        """The scope as of now (reloaded if any process wrote to it since it was loaded);
        None when it is too large or the store cannot load it."""
        snapshot = self.get(pinned)
        return ScopeView(snapshot) if snapshot is not None else None

    def graph(self, snapshot: Snapshot) -> ScopeGraph:
        """The snapshot's graph partition, loaded once. Loaded after the generation was read,
        it is at least as new as that generation: a write since makes the next search reload."""
        with snapshot.lock:
            if snapshot.graph is None:
                db = self._generations.db
                if snapshot.graph_base is not None:  # grown by this process's adds: read only theirs
                    base, added = snapshot.graph_base
                    snapshot.graph = base.with_memories(db, added)
                else:
                    snapshot.graph = ScopeGraph.load(db, snapshot.pinned.key)
                    self.graph_loads += 1
                snapshot.graph_base = None
            return snapshot.graph

    def current(self, pinned: Pinned) -> ScopeView | None:
        """The scope's cached snapshot if no process wrote to it since it was loaded, or caught
        up with other processes' adds; never loads (an add's duplicate lookups use a scope
        search already holds, no more)."""
        with self._lock:
            if pinned.key not in self._scopes:
                return None
        generation = self._generations.read(pinned.key)
        with self._lock:
            snapshot = self._scopes.get(pinned.key)
        if snapshot is None:
            return None
        if snapshot.generation == generation:
            return ScopeView(snapshot)
        caught = self._caught_up(snapshot, generation)
        if caught is None:
            return None
        self._install(pinned.key, snapshot, caught)
        return ScopeView(caught)

    def get(self, pinned: Pinned) -> Snapshot | None:
        """The scope's current snapshot, loading it if needed: on its first search when it is
        small (``EAGER_ROWS``), else on its second. None: not loaded this time, too large, or
        a store that cannot load it (the caller uses the store)."""
        if self._max_scope_rows <= 0:
            return None
        key = pinned.key
        # Read before loading: a write that lands meanwhile bumps past this generation.
        generation = self._generations.read(key)
        with self._lock:
            snapshot = self._scopes.get(key)
            if snapshot is not None and snapshot.generation == generation:
                self._scopes.move_to_end(key)
                return snapshot
            if self._too_large.get(key) == generation:
                return None
            first = snapshot is None and key not in self._seen
        if snapshot is not None:
            caught = self._caught_up(snapshot, generation)
            if caught is not None:
                self._install(key, snapshot, caught)
                return caught
        if first and self._size(pinned) > EAGER_ROWS:
            with self._lock:
                self._seen[key] = None
                while len(self._seen) > _SEEN:
                    self._seen.popitem(last=False)
            return None
        with self._lock:
            self._seen.pop(key, None)
        loaded = self._store.snapshot(pinned.filter(), self._max_scope_rows)
        with self._lock:
            self.loads += 1
            self._drop(key)
            if loaded is None:
                self._too_large[key] = generation
                while len(self._too_large) > _TOO_LARGE:
                    self._too_large.popitem(last=False)
                return None
            self._too_large.pop(key, None)
        snapshot = Snapshot.build(pinned, generation, *loaded)
        with self._lock:
            self._drop(key)
            self._scopes[key] = snapshot
            self._rows += len(snapshot)
            self._evict()
        return snapshot

    def _install(self, key: str, old: Snapshot, new: Snapshot) -> None:
        """Cache ``new`` in place of ``old``, unless the scope was reloaded or dropped meanwhile."""
        with self._lock:
            if self._scopes.get(key) is old:
                self._drop(key)
                self._scopes[key] = new
                self._rows += len(new)
                self._evict()

    def _caught_up(self, snapshot: Snapshot, generation: Generation) -> Snapshot | None:
        """``snapshot`` with the memories other processes added since it was loaded, when every
        write to the scope since then was an add still in the log; else None (reload).

        One small log read and one store read by id, instead of reading the whole scope again
        (and its graph partition: the grown snapshot's graph reads only the new memories' links).
        Read after the generation, the store holds every memory the log names up to it.
        """
        (had, everything), (now, now_everything) = snapshot.generation, generation
        if everything != now_everything or now <= had:
            return None
        ids = self._generations.additions(snapshot.pinned.key, had, now)
        if not ids or any(i in snapshot.rows for i in ids) or len(snapshot) + len(ids) > self._max_scope_rows:
            return None
        where = And((snapshot.pinned.filter(), Condition("id", "in", tuple(ids))))
        loaded = self._store.snapshot(where, len(ids))
        if loaded is None or len(loaded[0]) != len(set(ids)):
            return None
        records, vectors = loaded
        with self._lock:
            self.catch_ups += 1
        return snapshot.extended(generation, records, vectors)

    def _size(self, pinned: Pinned) -> int:
        """The scope's memory count as the relational side keeps it (0 when it has no row)."""
        entity_type = ENTITY_TYPES[pinned.field]
        with self._generations.db.connect() as conn:
            total = conn.execute(
                select(scope_counts.c.total).where(
                    scope_counts.c.org_id == pinned.org_id,
                    scope_counts.c.project_id == pinned.project_id,
                    scope_counts.c.entity_type == entity_type,
                    scope_counts.c.entity_id == pinned.value,
                )
            ).scalar()
        return int(total or 0)

    def _evict(self) -> None:
        """Drop least recently used scopes beyond the row budget (caller holds the lock)."""
        while self._rows > self._max_rows and len(self._scopes) > 1:
            self._drop(next(iter(self._scopes)))

    def added(self, records: Sequence[MemoryRecord], vectors: np.ndarray, bumped: dict[str, int]) -> None:
        """This process stored ``records`` and bumped their scopes to ``bumped`` (committed):
        a cached scope that saw no other write in between takes them in place (write-through),
        so the next search needs no reload. One that did is left stale for the next search to
        catch up or reload; one that would hold a duplicate id or grow past its cap is dropped."""
        everything = bumped.get(EVERYTHING, 0)
        by_scope: dict[str, list[int]] = {}
        for i, record in enumerate(records):
            for key in record_keys([record]):
                by_scope.setdefault(key, []).append(i)
        for key, picked in by_scope.items():
            with self._lock:
                snapshot = self._scopes.get(key)
            if snapshot is None:
                continue
            generation = (bumped.get(key, 0), everything)
            fresh = [records[i] for i in picked]
            if snapshot.generation != (generation[0] - 1, everything):
                continue  # another write came first: the next search catches up through the log, or reloads
            if any(r.id in snapshot.rows for r in fresh) or len(snapshot) + len(fresh) > self._max_scope_rows:
                with self._lock:
                    if self._scopes.get(key) is snapshot:
                        self._drop(key, seen=True)
                continue
            self._install(key, snapshot, snapshot.extended(generation, fresh, np.asarray(vectors)[picked]))

    def dropped(self, records: Sequence[MemoryRecord]) -> None:
        """This process changed or deleted ``records``: their cached scopes reload when next searched
        (they would anyway, on the generation; this spares the generation read a stale hit)."""
        with self._lock:
            for key in record_keys(records):
                self._drop(key, seen=True)

    def forget(self) -> None:
        """Drop every snapshot (the engine is being closed)."""
        with self._lock:
            self._scopes.clear()
            self._too_large.clear()
            self._rows = 0

    def _drop(self, key: str, *, seen: bool = False) -> None:
        """Forget a cached scope; ``seen``: one in use, to reload on its next search."""
        old = self._scopes.pop(key, None)
        if old is not None:
            self._rows -= len(old)
            if seen:
                self._seen[key] = None


def carried_index(index: ScopeIndex | None, old: Any, new: Any, engine: Any, db: Any) -> ScopeIndex | None:
    """``index`` when an engine built to replace its own (``POST /configure``) may keep it, else None.

    A snapshot holds what the vector store returned (records and the embedder's vectors)
    stamped with the scope's generation, plus graph rows read from the relational database;
    nothing of the language model, reranker or thresholds. So it stays valid exactly when
    the new engine keeps the very same embedder and vector store objects (a provider whose
    configuration did not change is lent, not rebuilt: see ``build_components``), reads
    generations from the same database, and caches within the same limits. Coherence is
    then what it always is: every search checks the scope's generation first, and both
    engines' writes go through this one index while the old one finishes its requests.
    A changed embedder or store (other vectors, another table or place) starts empty.
    """
    if index is None or not engine.scope_index:
        return None
    if new.embedder is not old.embedder or new.vector_store is not old.vector_store:
        return None
    if index._store is not new.vector_store or index._generations.db is not db:
        return None
    if (index._max_rows, index._max_scope_rows) != (
        engine.scope_index_rows,
        min(engine.scope_index_max_rows, engine.scope_index_rows),
    ):
        return None
    return index


def describe(index: ScopeIndex | None) -> dict[str, Any]:
    """What the index holds (for benchmarks)."""
    if index is None:
        return {"enabled": False}
    return {
        "enabled": True,
        "scopes": len(index.cached()),
        "rows": index.rows,
        "loads": index.loads,
        "catch_ups": index.catch_ups,
    }
