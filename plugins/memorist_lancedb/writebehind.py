"""Write-behind for the LanceDB store: journal now, table soon, reads that see both.

An upsert returns once its rows are in the :class:`~.journal.Journal` (durable);
a flusher thread moves them into the table after ``flush_delay_seconds`` or as
soon as ``flush_rows`` are pending. Reads stay exact:

* ``get``, ``list`` and ``search_vector`` (the add path's duplicate lookups and
  single-memory reads) *overlay* the journal: they take a journal snapshot, then
  read the table, drop table rows whose id is pending (the journal holds the
  newer version) and merge in the pending rows that the filter accepts (scored
  by exact cosine, as the table's exact search scores them);
* every other read (counts, BM25, lean matches, stored order, deletes, reset)
  drains the journal first, then reads the table as before: these need
  table-wide statistics (BM25), row addresses or exact counts, and an ingest
  stream rarely calls them, so a burst of adds still costs one table commit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

import numpy as np
from memorist.plugin_api import Filter, MemoryRecord, StoreHit, evaluate

from .journal import Journal, Pending

log = logging.getLogger(__name__)

#: ``write(records, vectors)``: the store's direct table upsert.
TableWrite = Callable[[list[MemoryRecord], np.ndarray], None]


class WriteBehind:
    """The journal plus its flusher thread (started on the first journaled write)."""

    def __init__(self, journal: Journal, write: TableWrite, flush_rows: int, flush_delay: float) -> None:
        self.journal = journal
        self._write = write
        self._flush_rows = flush_rows
        self._flush_delay = flush_delay
        self._wake = threading.Condition()
        self._due: float | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        if journal.has_pending():  # rows a previous process acknowledged and never flushed
            self._schedule(0.0)

    def append(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        pending = self.journal.append(records, vectors)
        self._schedule(0.0 if pending >= self._flush_rows else self._flush_delay)

    def settle(self) -> None:
        """Move every pending row (any process's) into the table now."""
        if self.journal.has_pending():
            self.journal.drain(self._write)

    def close(self) -> None:
        """Stop the flusher and drain what is left (best effort: the journal keeps it otherwise)."""
        with self._wake:
            self._closed = True
            self._wake.notify_all()
        if self._thread is not None:
            self._thread.join()
        try:
            self.settle()
        except Exception:
            log.warning("lancedb journal not drained on close; the next open flushes it", exc_info=True)
        self.journal.close()

    def _schedule(self, delay: float) -> None:
        with self._wake:
            if self._closed:
                return
            due = time.monotonic() + delay
            if self._due is None or due < self._due:
                self._due = due
                self._wake.notify_all()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memorist-lancedb-flush", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._closed and (self._due is None or self._due > time.monotonic()):
                    self._wake.wait(None if self._due is None else self._due - time.monotonic())
                if self._closed:
                    return
                self._due = None
            try:
                self.journal.drain(self._write)
            except Exception:
                log.warning("lancedb journal flush failed; retrying", exc_info=True)
                self._schedule(max(self._flush_delay, 1.0))


# -- overlay reads ---------------------------------------------------------------------------


def overlay_get(
    pending: dict[str, Pending], ids: Sequence[str], table_get: Callable[[list[str]], list[MemoryRecord]]
) -> list[MemoryRecord]:
    unique = list(dict.fromkeys(ids))
    found = {r.id: r for r in table_get([i for i in unique if i not in pending])}
    found.update((i, pending[i].record) for i in unique if i in pending)
    return [found[i] for i in unique if i in found]


def overlay_list(
    pending: dict[str, Pending],
    where: Filter | None,
    offset: int,
    limit: int,
    table_list: Callable[[int], list[MemoryRecord]],
) -> list[MemoryRecord]:
    """``list``'s page over table and journal: newest first, ties by id.

    ``table_list(n)``: the table's first ``n`` rows in that order; asking for as many
    more as there are pending ids covers the table rows the journal shadows.
    """
    rows = [r for r in table_list(offset + limit + len(pending)) if r.id not in pending]
    rows.extend(p.record for p in pending.values() if where is None or evaluate(where, p.record))
    rows.sort(key=lambda r: r.id)
    rows.sort(key=lambda r: r.created_at, reverse=True)  # stable: ties stay by id
    return rows[offset : offset + limit]


def overlay_hits(
    pending: dict[str, Pending],
    vector: np.ndarray,
    k: int,
    where: Filter | None,
    table_search: Callable[[int], list[StoreHit]],
) -> list[StoreHit]:
    """The best ``k`` cosine hits over table and journal (``table_search(n)``: the table's best ``n``)."""
    hits = [h for h in table_search(k + len(pending)) if h.record.id not in pending]
    candidates = [p for p in pending.values() if where is None or evaluate(where, p.record)]
    if candidates:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        matrix = np.stack([p.vector for p in candidates])
        norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
        with np.errstate(divide="ignore", invalid="ignore"):
            cosine = np.where(norms > 0, (matrix @ query) / norms, 0.0)
        scores = np.clip(np.nan_to_num(cosine, nan=0.0), -1.0, 1.0)
        hits.extend(
            StoreHit.model_construct(record=p.record, score=float(s), vector=None)
            for p, s in zip(candidates, scores, strict=True)
        )
    hits.sort(key=lambda h: (-h.score, h.record.id))
    return hits[:k]


def overlay_snapshot(
    pending: dict[str, Pending],
    where: Filter,
    limit: int,
    table_snapshot: Callable[[int], tuple[list[MemoryRecord], np.ndarray] | None],
) -> tuple[list[MemoryRecord], np.ndarray] | None:
    """``snapshot`` over table and journal: the table's rows ``where`` accepts that the
    journal does not shadow, then the pending rows it accepts; None past ``limit``.

    ``table_snapshot(n)``: the table's rows (None past ``n``); asking for as many more as
    there are pending ids covers the table rows the journal shadows.
    """
    table = table_snapshot(limit + len(pending))
    if table is None:
        return None
    records, vectors = table
    keep = [i for i, r in enumerate(records) if r.id not in pending]
    fresh = [p for p in pending.values() if evaluate(where, p.record)]
    if len(keep) + len(fresh) > limit:
        return None
    kept = np.asarray(vectors, dtype=np.float32)[np.array(keep, dtype=int)]  # (0, dimension) when empty
    rows = [records[i] for i in keep] + [p.record for p in fresh]
    return rows, np.concatenate([kept, *(np.asarray(p.vector, dtype=np.float32).reshape(1, -1) for p in fresh)])
