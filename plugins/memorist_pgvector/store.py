"""The PostgreSQL vector store: one pgvector table shared by every node and process.

Vector search orders by pgvector's cosine distance through an HNSW index
(iterative scans keep filtered searches from coming back short; if one still
does, the query is repeated exactly, without the index). Keyword search is
PostgreSQL full-text search scored like BM25 (:mod:`.keyword`). Filters
compile to parameterized SQL (:mod:`.sql`); the rare condition SQL cannot
decide exactly is pushed down as a superset and settled by
:func:`memorist.filters.evaluate`, so every method returns exactly what the
reference semantics accept.

Concurrency is PostgreSQL's: each call is one transaction on a pooled
connection, upserts are ``INSERT ... ON CONFLICT (id) DO UPDATE`` in id order
(so two batches never deadlock on each other) and retried if the server
still reports a deadlock or serialization failure.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np
from memorist.plugin_api import (
    ConfigurationError,
    DimensionMismatchError,
    Filter,
    MemoryRecord,
    ProviderContext,
    StoreHit,
    VectorStore,
    evaluate,
)

from .keyword import (
    SHORTLIST_FACTOR,
    SHORTLIST_MIN,
    DocumentFrequencies,
    TableStats,
    bm25_select,
    idf,
    query_lexemes,
    quote_lexeme,
    ts_rank_select,
    tsquery_text,
)
from .options import PgVectorStoreOptions, resolve_url
from .pool import ConnectionPool
from .schema import RECORD_COLUMNS, VECTOR, drop_if_empty, ensure_table, from_row, quote_ident, to_params
from .sql import FALSE, Bounds, Sql, compile_filter

log = logging.getLogger(__name__)

T = TypeVar("T")

_COLUMNS = ", ".join(RECORD_COLUMNS)
_M_COLUMNS = ", ".join(f"m.{c}" for c in RECORD_COLUMNS)
_ORDER = 'created_at DESC, id COLLATE "C"'


class PgVectorStore(VectorStore[PgVectorStoreOptions]):
    """Memories in a PostgreSQL table: HNSW cosine search, full-text BM25, SQL filters."""

    name: ClassVar[str] = "pgvector"

    Options = PgVectorStoreOptions

    def __init__(self, options: PgVectorStoreOptions, context: ProviderContext) -> None:
        super().__init__(options, context)
        if context.dimension is None:
            raise ConfigurationError("vector_store 'pgvector' needs the embedder's dimension")
        self._dimension = int(context.dimension)
        self._table = quote_ident(options.table)
        self._pool: ConnectionPool | None = ConnectionPool(
            resolve_url(options.url, context), options.pool_size, options.max_overflow
        )
        self._stats = TableStats()
        self._frequencies = DocumentFrequencies()
        try:
            with self._pool.transaction() as conn, conn.cursor() as cur:
                #: Whether this opening created the table (``discard_created`` takes it back).
                self._created_table = ensure_table(
                    cur,
                    options.table,
                    self._dimension,
                    options.text_search_config,
                    options.hnsw_m,
                    options.hnsw_ef_construction,
                )
                self._casefold, self._iterative = _capabilities(cur)
        except BaseException:
            self._pool.dispose()
            raise
        self._pool.vector_ready = True

    def close(self) -> None:
        """Close pooled connections; the table stays for the next open."""
        if self._pool is not None:
            self._pool.dispose()
            self._pool = None

    def discard_created(self) -> None:
        """Drop the table this opening created while it holds no row (see ``VectorStore``);
        the ``vector`` extension an opening may have created stays: other tables may use it."""
        if self._created_table and self._pool is not None:
            self._run(lambda cur: drop_if_empty(cur, self.options.table))

    # -- plumbing ---------------------------------------------------------------------------

    def _run(self, work: Callable[[Any], T], retry: bool = False) -> T:
        """``work(cursor)`` in one transaction; writes retry lost deadlock/serialization races."""
        from psycopg import errors

        attempt = 0
        while True:
            if self._pool is None:
                raise RuntimeError("the pgvector vector store is closed")
            try:
                with self._pool.transaction() as conn, conn.cursor() as cur:
                    return work(cur)
            except (errors.DeadlockDetected, errors.SerializationFailure):
                if not retry or attempt >= self.options.retries:
                    raise
                attempt += 1
                time.sleep(min(0.02 * 2**attempt, 1.0) * (0.5 + random.random()))

    def _bounds(self, where: Filter | None) -> Bounds:
        return compile_filter(where, casefold=self._casefold)

    def _check_dimension(self, size: int) -> None:
        if size != self._dimension:
            raise DimensionMismatchError(
                f"vector store table '{self.options.table}' holds {self._dimension}-dimensional "
                f"vectors; got a vector of {size}"
            )

    # -- writes -----------------------------------------------------------------------------

    def upsert(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        if not records:
            return
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix.reshape(1, -1)
        if matrix.shape[0] != len(records):
            raise ValueError(f"upsert got {len(records)} records but {matrix.shape[0]} vectors")
        self._check_dimension(matrix.shape[1])
        last = {r.id: i for i, r in enumerate(records)}  # one batch naming an id twice: last wins
        rows = [to_params(records[last[i]], matrix[last[i]]) for i in sorted(last)]
        columns = [*RECORD_COLUMNS, VECTOR]
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c != "id")
        statement = (
            f"INSERT INTO {self._table} ({', '.join(columns)}) "
            f"VALUES ({', '.join(['%s'] * len(columns))}) ON CONFLICT (id) DO UPDATE SET {updates}"
        )
        self._run(lambda cur: cur.executemany(statement, rows), retry=True)
        self._frequencies.invalidate()  # this process sees its own writes at once; others' within seconds

    def delete(self, ids: Sequence[str]) -> int:
        unique = [i for i in dict.fromkeys(ids) if "\x00" not in i]
        if not unique:
            return 0

        def work(cur: Any) -> int:
            cur.execute(f"DELETE FROM {self._table} WHERE id = ANY(%s::text[])", (unique,))
            return int(cur.rowcount)

        deleted = self._run(work, retry=True)
        self._frequencies.invalidate()
        return deleted

    def delete_where(self, where: Filter) -> int:
        bounds = self._bounds(where)
        if bounds.upper == FALSE:
            return 0
        if not bounds.exact:
            return self.delete([r.id for r in self._scan(where, bounds)])

        def work(cur: Any) -> int:
            cur.execute(f"DELETE FROM {self._table} WHERE {bounds.upper.text}", bounds.upper.params)
            return int(cur.rowcount)

        deleted = self._run(work, retry=True)
        self._frequencies.invalidate()
        return deleted

    def reset(self) -> None:
        self._run(lambda cur: cur.execute(f"TRUNCATE {self._table}"), retry=True)
        self._stats.invalidate()
        self._frequencies.invalidate()

    # -- reads ------------------------------------------------------------------------------

    def get(self, ids: Sequence[str]) -> list[MemoryRecord]:
        unique = [i for i in dict.fromkeys(ids) if "\x00" not in i]
        if not unique:
            return []

        def work(cur: Any) -> list[MemoryRecord]:
            cur.execute(
                f"SELECT {_COLUMNS} FROM {self._table} WHERE id = ANY(%s::text[])",
                (unique,),
                binary=True,
            )
            return [from_row(r) for r in cur.fetchall()]

        return self._run(work)

    def count(self, where: Filter | None = None) -> int:
        bounds = self._bounds(where)
        if bounds.upper == FALSE:
            return 0
        if not bounds.exact:
            return len(self._scan(where, bounds))

        def work(cur: Any) -> int:
            cur.execute(f"SELECT count(*) FROM {self._table} WHERE {bounds.upper.text}", bounds.upper.params)
            return int(cur.fetchone()[0])

        return self._run(work)

    def _scan(self, where: Filter | None, bounds: Bounds) -> list[MemoryRecord]:
        """Every record ``where`` accepts: SQL narrows to ``bounds.upper``, ``evaluate`` decides."""

        def work(cur: Any) -> list[MemoryRecord]:
            # A server-side cursor: only the records evaluate accepts are held in memory.
            with cur.connection.cursor(name="memorist_scan", binary=True) as scan:
                scan.itersize = 1000
                scan.execute(f"SELECT {_COLUMNS} FROM {self._table} WHERE {bounds.upper.text}", bounds.upper.params)
                return [r for r in map(from_row, scan) if where is None or evaluate(where, r)]

        return self._run(work)

    def search_vector(self, vector: np.ndarray, k: int, where: Filter | None = None) -> list[StoreHit]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        self._check_dimension(query.shape[0])
        options = self.options

        def fetch(cur: Any, limit: int, sql: Sql) -> list[tuple[MemoryRecord, float, Any]]:
            ef_search = max(options.ef_search, min(limit, 1000))
            cur.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef_search),))
            if self._iterative and options.iterative_scan != "off":
                cur.execute("SELECT set_config('hnsw.iterative_scan', %s, true)", (options.iterative_scan,))
            base = f"SELECT {_COLUMNS}, {VECTOR} <=> %s AS distance FROM {self._table} WHERE {sql.text}"
            params = (query, *sql.params, query, limit)
            # The index answers exactly "ORDER BY embedding <=> q": that is the approximate query.
            cur.execute(f"{base} ORDER BY {VECTOR} <=> %s LIMIT %s", params, binary=True)
            rows = cur.fetchall()
            if len(rows) < limit:  # an index scan may stop short: ask again, exactly, without it
                cur.execute(f"{base} ORDER BY ({VECTOR} <=> %s) + 0 LIMIT %s", params, binary=True)
                rows = cur.fetchall()
            return [(from_row(r), _cosine(r[-1]), None) for r in rows]

        return self._top_k(fetch, k, where)

    def search_keyword(self, query: str, k: int, where: Filter | None = None) -> list[StoreHit]:
        options = self.options

        def fetch(cur: Any, limit: int, sql: Sql) -> list[tuple[MemoryRecord, float, Any]]:
            lexemes = query_lexemes(cur, options.text_search_config, query)
            if not lexemes:
                return []
            tsquery = tsquery_text(lexemes)
            if options.keyword_ranking == "bm25":
                rows_n, avgdl = self._stats.get(cur, self._table)
                idfs = [idf(rows_n, df) for df in self._frequencies.get(cur, self._table, lexemes, rows_n)]
                statement = bm25_select(self._table, _M_COLUMNS, sql.text, len(lexemes))
                per_term = [value for lx, w in zip(lexemes, idfs, strict=True) for value in (quote_lexeme(lx), w)]
                shortlist = max(limit * SHORTLIST_FACTOR, SHORTLIST_MIN)
                params: tuple[Any, ...] = (
                    tsquery,
                    *sql.params,
                    *per_term,
                    avgdl,
                    shortlist,
                    lexemes,
                    idfs,
                    avgdl,
                    limit,
                )
            else:
                statement = ts_rank_select(self._table, _M_COLUMNS, sql.text)
                params = (tsquery, tsquery, *sql.params, limit)
            cur.execute(statement, params, binary=True)
            return [(from_row(r), float(r[-1]), _array(r[-2])) for r in cur.fetchall()]

        return self._top_k(fetch, k, where)

    def _top_k(
        self,
        fetch: Callable[[Any, int, Sql], list[tuple[MemoryRecord, float, Any]]],
        k: int,
        where: Filter | None,
    ) -> list[StoreHit]:
        """The best ``k`` hits ``where`` accepts.

        With an exact filter one query suffices. Otherwise the SQL superset is
        searched for more candidates than needed and ``evaluate`` drops the
        rest; if too few survive and the search was not exhausted, it is
        repeated with a larger limit.
        """
        bounds = self._bounds(where)
        if k <= 0 or bounds.upper == FALSE:
            return []
        limit = k if bounds.exact else max(4 * k, 32)
        while True:

            def work(cur: Any, n: int = limit) -> list[tuple[MemoryRecord, float, Any]]:
                return fetch(cur, n, bounds.upper)

            rows = self._run(work)
            hits = [
                StoreHit.model_construct(record=record, score=score, vector=vec)
                for record, score, vec in rows
                if where is None or bounds.exact or evaluate(where, record)
            ]
            if len(hits) >= k or len(rows) < limit:
                break
            limit *= 4
        hits.sort(key=lambda h: (-h.score, h.record.id))
        return hits[:k]

    def snapshot(self, where: Filter, limit: int) -> tuple[list[MemoryRecord], np.ndarray] | None:
        bounds = self._bounds(where)
        if bounds.upper == FALSE:
            return [], np.zeros((0, self._dimension), dtype=np.float32)

        def work(cur: Any) -> tuple[list[MemoryRecord], np.ndarray] | None:
            # ``limit + 1`` rows tell "too many" without counting first.
            cur.execute(
                f"SELECT {_COLUMNS}, {VECTOR} FROM {self._table} WHERE {bounds.upper.text} LIMIT %s",
                (*bounds.upper.params, limit + 1),
                binary=True,
            )
            rows = cur.fetchall()
            if len(rows) > limit:
                return None
            pairs = [(from_row(r), r[-1]) for r in rows]
            kept = [(record, vec) for record, vec in pairs if bounds.exact or evaluate(where, record)]
            matrix = np.zeros((len(kept), self._dimension), dtype=np.float32)
            for i, (_, vec) in enumerate(kept):
                matrix[i] = _array(vec)
            return [record for record, _ in kept], matrix

        return self._run(work)

    # Defined after every method annotated with ``list[...]``: inside the class body the
    # name shadows the builtin for type checkers.
    def sequence(self, where: Filter | None = None, limit: int | None = None) -> list[str] | None:
        bounds = self._bounds(where)
        if bounds.upper == FALSE:
            return []
        if not bounds.exact:
            return super().sequence(where, limit)

        def work(cur: Any) -> list[str] | None:
            # Ids only, in stored order: no text, metadata or vectors leave the server.
            cap = "" if limit is None else f" LIMIT {int(limit) + 1}"
            cur.execute(
                f"SELECT id FROM {self._table} WHERE {bounds.upper.text}"
                f' ORDER BY created_at, updated_at, id COLLATE "C"{cap}',
                bounds.upper.params,
            )
            ids = [str(row[0]) for row in cur.fetchall()]
            return None if limit is not None and len(ids) > limit else ids

        return self._run(work)

    def list(self, where: Filter | None = None, offset: int = 0, limit: int = 100) -> list[MemoryRecord]:
        offset = max(offset, 0)
        bounds = self._bounds(where)
        if limit <= 0 or bounds.upper == FALSE:
            return []
        if not bounds.exact:
            records = sorted(self._scan(where, bounds), key=lambda r: r.id)
            records.sort(key=lambda r: r.created_at, reverse=True)  # stable: ties stay by id
            return records[offset : offset + limit]

        def work(cur: Any) -> list[MemoryRecord]:
            cur.execute(
                f"SELECT {_COLUMNS} FROM {self._table} WHERE {bounds.upper.text} ORDER BY {_ORDER} OFFSET %s LIMIT %s",
                (*bounds.upper.params, offset, limit),
                binary=True,
            )
            return [from_row(r) for r in cur.fetchall()]

        return self._run(work)


def _capabilities(cur: Any) -> tuple[bool, bool]:
    """(server has ``casefold()`` on UTF-8, pgvector has iterative index scans)."""
    cur.execute(
        "SELECT current_setting('server_version_num')::int >= 180000 "
        "AND current_setting('server_encoding') = 'UTF8', "
        "(SELECT extversion FROM pg_extension WHERE extname = 'vector')"
    )
    casefold, version = cur.fetchone()
    parts = tuple(int(p) for p in str(version or "0").split(".")[:2] if p.isdigit())
    return bool(casefold), parts >= (0, 8)


def _cosine(distance: float | None) -> float:
    """Cosine similarity from pgvector's cosine distance; NaN (a zero vector) scores 0."""
    if distance is None or distance != distance:
        return 0.0
    return max(-1.0, min(1.0, 1.0 - float(distance)))


def _array(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)
