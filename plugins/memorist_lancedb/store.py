"""The embedded vector store: one LanceDB table in the data directory.

Vector search is exact (brute-force cosine) unless an ANN index is
configured; keyword search uses LanceDB's native BM25 full-text index on the
memory text. Filters compile to SQL bounds (:mod:`.sql`); whatever SQL cannot
decide exactly is settled by :func:`memorist.filters.evaluate` in Python, so
every method returns exactly what the reference semantics accept.

Freshness: a row is searchable the moment ``upsert`` returns (LanceDB scans rows
its indexes do not cover yet); :mod:`.maintenance` keeps that scan small and the
version list short.

Concurrency: the connection re-reads the table version on every read
(``read_consistency_interval=0``), so other processes' commits are seen
immediately; writes in this process are serialized by a lock, and a commit
that loses a race with another process is retried.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

import numpy as np
from memorist.plugin_api import (
    ConfigurationError,
    DimensionMismatchError,
    Filter,
    MemoryRecord,
    ProviderContext,
    StoreHit,
    StoreMatch,
    VectorStore,
)

from .created import Created, first_missing
from .deferred_client import defer_namespace_client
from .filtered_search import search_batched, search_filtered
from .journal import Journal
from .maintenance import TableMaintenance
from .options import LanceDBVectorStoreOptions
from .order import StoredOrder
from .planner import FilterPlanner
from .queries import QueryBuilder, keyword_query, scan, vector_query
from .read_guard import ReadGuard
from .read_guard import guarded_read as _reads
from .results import Scores, bm25, similarities
from .schema import PACKED, RECORD_COLUMNS, from_arrow, to_arrow
from .sql import FALSE, TRUE, compile_filter, id_clauses
from .table import FtsSettings, ensure_indexes, open_table, prewarm_indexes, retry
from .table_reads import by_address, ids_wanted, newest_first, read_snapshot, scan_accepted
from .writebehind import WriteBehind, overlay_get, overlay_hits, overlay_list, overlay_snapshot

# lancedb itself is imported only when a store is built: importing it starts an event-loop
# thread, and the gunicorn master (which loads every plugin) then forks workers.

log = logging.getLogger(__name__)

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")


def _drains(method: Callable[Concatenate[LanceDBVectorStore, P], R]) -> Callable[Concatenate[LanceDBVectorStore, P], R]:
    """A read or delete that needs the whole table: drain the journal once, then run as is."""

    def drained(self: LanceDBVectorStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        self._settle()
        with self._as_is():
            return method(self, *args, **kwargs)

    drained.__name__, drained.__doc__ = method.__name__, method.__doc__
    return drained


class LanceDBVectorStore(VectorStore[LanceDBVectorStoreOptions]):
    """Memories in a LanceDB table: cosine vector search, BM25 keyword search, SQL filters."""

    name: ClassVar[str] = "lancedb"

    Options = LanceDBVectorStoreOptions

    def __init__(self, options: LanceDBVectorStoreOptions, context: ProviderContext) -> None:
        super().__init__(options, context)
        if context.dimension is None:
            raise ConfigurationError("vector_store 'lancedb' needs the embedder's dimension")
        self._dimension = int(context.dimension)
        self._path = context.path(options.path) if options.path else Path(context.data_dir) / "lancedb"
        made_directory = first_missing(self._path)
        self._path.mkdir(parents=True, exist_ok=True)
        self._write_lock = threading.Lock()
        #: Per thread: whether table access may skip draining the journal (see ``_t``).
        self._local = threading.local()
        #: Live reads (this process's and others'), which version pruning must not outrun.
        self._read_guard = ReadGuard(self._path / f"{options.table}.reads")
        self._maintenance = TableMaintenance(
            options, self._write_lock, lambda: self._table, self._read_guard, self._path / f"{options.table}.lance"
        )
        self._order = StoredOrder()
        self._planner = FilterPlanner(options.postfilter_min_fraction)
        defer_namespace_client()  # before LanceDB's first import: see deferred_client
        import lancedb

        self._db: Any = lancedb.connect(str(self._path), read_consistency_interval=timedelta(0))
        self._table: Any
        self._table, made_table = open_table(self._db, options.table, self._path, self._dimension)
        # What reads select to rebuild records: the packed column where the table has one
        # (with ``id``: a scan that selects only columns its filter does not use fails to plan).
        self._packed = PACKED in self._table.schema.names
        self._columns = ["id", PACKED] if self._packed else RECORD_COLUMNS
        #: What :func:`from_arrow` needs to build records, no more (reads that want no ``id`` apart).
        self._record_columns = [PACKED] if self._packed else RECORD_COLUMNS
        fts = FtsSettings(options.fts_language, options.fts_stem, options.fts_remove_stop_words)
        ensure_indexes(self._table, fts, options.scalar_indexes, options.commit_retries)
        if options.prewarm_indexes:
            threading.Thread(
                target=prewarm_indexes, args=(self._table,), name="memorist-lancedb-prewarm", daemon=True
            ).start()
        self._behind: WriteBehind | None = None
        made_files: tuple[Path, ...] = ()
        if options.write_behind:
            journal_path = self._path / f"{options.table}.journal.sqlite"
            made_journal = not journal_path.exists()
            journal = Journal(journal_path, self._dimension)
            made_files = journal.files if made_journal else ()
            self._behind = WriteBehind(journal, self._merge, options.flush_rows, options.flush_delay_seconds)
        #: What this opening created, for ``discard_created``.
        self._created = Created(self._path, made_directory, options.table if made_table else None, made_files)
        self._maintenance.opened()

    def close(self) -> None:
        """Drain the journal, drop the table and connection handles; the files stay for the next open."""
        if self._behind is not None:
            self._behind.close()
            self._behind = None
        with self._write_lock:
            self._maintenance.cancel()
            self._table = None
            self._db = None
        self._read_guard.close()

    def discard_created(self) -> None:
        """Close, then remove the table, journal and directories this opening created (see
        :mod:`.created`); a journal or table holding rows keeps everything."""
        db = self._db
        pending = self._behind is not None and self._behind.journal.has_pending()
        self.close()
        if db is not None and not pending:
            self._created.remove(db)

    # -- writes ----------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        if not records:
            return
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix.reshape(1, -1)
        if matrix.shape[0] != len(records):
            raise ValueError(f"upsert got {len(records)} records but {matrix.shape[0]} vectors")
        self._check_dimension(matrix.shape[1])
        # merge_insert rejects a batch that names one id twice; the last one wins.
        last = {r.id: i for i, r in enumerate(records)}
        keep = sorted(last.values())
        if self._behind is not None:
            self._behind.append([records[i] for i in keep], matrix[keep])
        else:
            self._merge([records[i] for i in keep], matrix[keep])

    def _merge(self, records: Sequence[MemoryRecord], matrix: np.ndarray) -> None:
        """Upsert distinct-id ``records`` into the table itself (one commit)."""
        data = to_arrow(records, matrix, self._dimension, self._packed)

        def merge() -> Any:
            return self._t().merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)

        self._write(merge)

    def _settle(self) -> None:
        """Drain the journal before a read that cannot overlay it (see ``writebehind``)."""
        if self._behind is not None:
            with self._as_is():
                self._behind.settle()

    @contextmanager
    def _as_is(self) -> Iterator[None]:
        """Table access that needs no draining first (writes; reads that overlay the journal)."""
        prior = getattr(self._local, "as_is", False)
        self._local.as_is = True
        try:
            yield
        finally:
            self._local.as_is = prior

    @_drains
    def delete(self, ids: Sequence[str]) -> int:
        return sum(self._delete_sql(clause) for clause in id_clauses(ids))

    def _delete_sql(self, where: str) -> int:
        return int(self._write(lambda: self._t().delete(where)).num_deleted_rows)

    @_drains
    def delete_where(self, where: Filter) -> int:
        bounds = compile_filter(where)
        if bounds.upper == FALSE:
            return 0
        if bounds.exact:
            return self._delete_sql(bounds.upper)
        return self.delete([r.id for r in scan_accepted(self._t(), self._columns, where, bounds)])

    def reset(self) -> None:
        if self._behind is not None:
            self._behind.journal.clear()
        self._write(lambda: self._t().delete(TRUE))
        self._planner.forget()
        self._maintenance.optimize()

    def _write(self, operation: Callable[[], T]) -> T:
        """Run a commit under the process-wide write lock, with conflict retries."""
        with self._write_lock, self._as_is():
            result = retry(operation, self.options.commit_retries)
            due = self._maintenance.wrote()
        if due:
            self._maintenance.optimize()
        return result

    @_drains
    def optimize(self) -> None:
        """Fold new rows into the indexes, compact files and prune old versions now."""
        self._maintenance.optimize()

    # -- reads -----------------------------------------------------------------------------

    @_reads
    def get(self, ids: Sequence[str]) -> list[MemoryRecord]:
        if self._behind is None:
            return self._get(ids)
        pending = self._behind.journal.snapshot()  # before the table: see ``writebehind``
        with self._as_is():
            return overlay_get(pending, ids, self._get)

    def _get(self, ids: Sequence[str]) -> list[MemoryRecord]:
        out: list[MemoryRecord] = []
        for clause in id_clauses(ids):
            out.extend(from_arrow(scan(self._t(), self._record_columns, clause, None)))
        return out

    @_reads
    @_drains
    def count(self, where: Filter | None = None) -> int:
        bounds = compile_filter(where)
        if bounds.upper == FALSE:
            return 0
        if bounds.exact:
            return int(self._t().count_rows(None if bounds.upper == TRUE else bounds.upper))
        return sum(1 for _ in scan_accepted(self._t(), self._columns, where, bounds))

    @_reads
    def search_vector(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[StoreHit]:
        build = self._vector_query(vector)
        if self._behind is None:
            return self._hits(build, similarities, k, where)
        pending = self._behind.journal.snapshot()  # before the table: see ``writebehind``
        with self._as_is():
            return overlay_hits(pending, vector, k, where, lambda n: self._hits(build, similarities, n, where))

    @_reads
    def search_vectors(self, vectors: np.ndarray, k: int, where: Filter | None = None) -> list[list[StoreHit]]:
        """Many exact-filter vector searches in one LanceDB query (its ``query_index`` column
        tells them apart); another filter or an ANN index: one search per vector."""
        matrix = np.asarray(vectors, dtype=np.float32)
        bounds = compile_filter(where)
        if matrix.ndim != 2 or len(matrix) < 2 or not bounds.exact or self.options.vector_index != "none":
            return super().search_vectors(matrix, k, where)
        self._check_dimension(matrix.shape[1])
        if k <= 0 or bounds.upper == FALSE:
            return [[] for _ in matrix]
        pending = self._behind.journal.snapshot() if self._behind is not None else {}
        with self._as_is():
            return search_batched(self._t(), self._columns, matrix, k, bounds.upper, where, pending)

    @_reads
    @_drains
    def match_vector(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[StoreMatch]:
        return self._matches(self._vector_query(vector), similarities, k, where)

    @_reads
    @_drains
    def search_keyword(self, query: str, k: int, where: Filter | None = None) -> list[StoreHit]:
        build = keyword_query(self._t, query)
        return [] if build is None else self._hits(build, bm25, k, where)

    @_reads
    @_drains
    def match_keyword(self, query: str, k: int, where: Filter | None = None) -> list[StoreMatch]:
        build = keyword_query(self._t, query)
        return [] if build is None else self._matches(build, bm25, k, where)

    @_reads
    @_drains
    def fetch(self, matches: Sequence[StoreMatch]) -> dict[str, MemoryRecord]:
        """Whole records of lean matches by their row addresses, checked against the ids: an
        optimize since the search may have moved rows, and those are looked up by id."""
        found = {m.id: m.record for m in matches if m.record is not None}
        addressed = [m for m in matches if m.record is None and m.handle is not None]
        if addressed:
            found.update(by_address(self._t(), self._columns, addressed))
        missing = [m.id for m in matches if m.id not in found]
        if missing:
            found.update((r.id, r) for r in self.get(missing))
        return found

    def _vector_query(self, vector: np.ndarray) -> QueryBuilder:
        query_vector = np.asarray(vector, dtype=np.float32).reshape(-1)
        self._check_dimension(query_vector.shape[0])
        o = self.options
        return vector_query(self._t, query_vector, o.vector_index, o.nprobes, o.refine_factor, o.refine_max_rows)

    def _hits(self, build: QueryBuilder, scores: Scores, k: int, where: Filter | None) -> list[StoreHit]:
        """The best ``k`` whole-record hits ``where`` accepts (:mod:`.filtered_search`)."""
        return search_filtered(self._t, self._planner, self._columns, self._dimension, build, scores, k, where, False)

    def _matches(self, build: QueryBuilder, scores: Scores, k: int, where: Filter | None) -> list[StoreMatch]:
        """The best ``k`` lean matches ``where`` accepts (:mod:`.filtered_search`)."""
        return search_filtered(self._t, self._planner, self._columns, self._dimension, build, scores, k, where, True)

    @_reads
    @_drains
    def sequence(self, where: Filter | None = None, limit: int | None = None) -> list[str] | None:
        bounds = compile_filter(where)
        if bounds.upper == FALSE:
            return []
        if not bounds.exact:
            return super().sequence(where, limit)
        return self._order.ids(self._t(), bounds.upper, limit)

    @_reads
    def snapshot(self, where: Filter, limit: int) -> tuple[list[MemoryRecord], np.ndarray] | None:
        """Overlays the journal rather than draining it: a flush commits a table version
        (~20 ms), which a search reloading or catching up its scope should not pay for rows
        another process has just journaled. Rows asked for by id that are all pending (a
        scope catching up with recent adds) need no table read at all."""
        if self._behind is None:
            return self._snapshot(where, limit)
        pending = self._behind.journal.snapshot()  # before the table: see ``writebehind``
        wanted = ids_wanted(where)
        if wanted is not None and all(i in pending for i in wanted):
            return overlay_snapshot(pending, where, limit, lambda n: ([], np.zeros((0, self._dimension), np.float32)))
        with self._as_is():
            return overlay_snapshot(pending, where, limit, lambda n: self._snapshot(where, n))

    def _snapshot(self, where: Filter, limit: int) -> tuple[list[MemoryRecord], np.ndarray] | None:
        return read_snapshot(self._t, self._record_columns, self._dimension, where, limit)

    def _list(self, where: Filter | None, offset: int, limit: int) -> list[MemoryRecord]:
        bounds = compile_filter(where)
        if limit <= 0 or bounds.upper == FALSE:
            return []
        if bounds.exact:
            return newest_first(self._t(), self._columns, self._packed, bounds.upper, offset, limit)
        records = sorted(scan_accepted(self._t(), self._columns, where, bounds), key=lambda r: r.id)
        records.sort(key=lambda r: r.created_at, reverse=True)  # stable: ties stay by id
        return records[offset : offset + limit]

    # Defined after every method annotated with ``list[...]``: inside the class body the
    # name shadows the builtin for type checkers.
    @_reads
    def list(self, where: Filter | None = None, offset: int = 0, limit: int = 100) -> list[MemoryRecord]:
        offset = max(offset, 0)
        if self._behind is not None and limit > 0:
            pending = self._behind.journal.snapshot()  # before the table: see ``writebehind``
            with self._as_is():
                if pending:
                    return overlay_list(pending, where, offset, limit, lambda n: self._list(where, 0, n))
                return self._list(where, offset, limit)
        return self._list(where, offset, limit)

    # -- helpers ---------------------------------------------------------------------------

    def _t(self) -> Any:
        """The table, with the journal drained first unless the caller handles it (``_as_is``):
        a read written without the journal in mind still sees every acknowledged row."""
        if self._table is None:
            raise RuntimeError("the lancedb vector store is closed")
        if self._behind is not None and not getattr(self._local, "as_is", False):
            self._settle()
        return self._table

    def _check_dimension(self, size: int) -> None:
        if size != self._dimension:
            raise DimensionMismatchError(
                f"vector store at {self._path} holds {self._dimension}-dimensional vectors; got a vector of {size}"
            )
