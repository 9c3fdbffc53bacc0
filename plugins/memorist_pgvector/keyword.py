"""Keyword search on PostgreSQL full-text search, scored like BM25.

The query is never parsed as tsquery syntax: its text goes through
``to_tsvector`` (the same parser, stemmer and stop words as the documents)
and the resulting lexemes are OR-ed into a tsquery built here, each lexeme
quoted. So ``"tea" AND (morning`` searches ``tea | morn`` and nothing in a
query can change the shape of the search.

Why BM25 and not only ``ts_rank_cd``: the engine divides keyword scores by
the best one, floored at ``KEYWORD_FLOOR`` (6.5), a value calibrated on BM25;
``ts_rank_cd`` yields about 0.1 per matching term, which would flatten the
keyword signal to nothing, and it ignores how rare a term is. The BM25 here
takes term frequencies from the tsvector positions, document frequencies
from the GIN index (one count per query lexeme, cached per lexeme for
``STATS_SECONDS``: at 100k rows counting four common lexemes took 98 of a
query's 265 ms; past 100k rows common lexemes' come from ``pg_stats``), and
the table size and mean document length from a statistics cache refreshed as
often. ``ranking: ts_rank_cd`` is kept as an
option.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

#: BM25 parameters (the usual defaults, as in Lucene and Tantivy).
K1 = 1.2
B = 0.75
#: Query lexemes beyond this many are ignored: each costs one index count.
MAX_LEXEMES = 128
#: How long table statistics (row count, mean document length) are reused.
STATS_SECONDS = 30.0
#: The exact BM25 score is computed for this many times the requested rows (at least
#: ``SHORTLIST_MIN``), picked by the single-count score; a row whose repeated terms would
#: lift it from beyond that many places is the only one the two phases can miss.
SHORTLIST_FACTOR = 4
SHORTLIST_MIN = 200
#: Lexemes whose document frequency is remembered; past this the cache starts over.
MAX_CACHED_LEXEMES = 100_000
#: Above this many rows the mean document length is sampled and the document frequencies
#: of common lexemes are read from ``pg_stats`` (see ``DocumentFrequencies``), not counted.
SAMPLE_ABOVE = 100_000
#: At that size, a lexeme ``ANALYZE`` did not list as common is counted up to this many rows.
COUNT_CAP = 10_000


def query_lexemes(cur: Any, config: str, query: str) -> list[str]:
    """The distinct lexemes of ``query`` under text-search configuration ``config``."""
    text = query.replace("\x00", " ")
    if not text.strip():
        return []
    cur.execute(
        "SELECT lexeme FROM unnest(to_tsvector(%s::regconfig, %s)) LIMIT %s",
        (config, text, MAX_LEXEMES),
    )
    return [row[0] for row in cur.fetchall()]


def quote_lexeme(lexeme: str) -> str:
    """A tsquery operand matching exactly ``lexeme`` (quotes doubled, backslashes escaped)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def tsquery_text(lexemes: list[str]) -> str:
    """Any of ``lexemes``: OR semantics, like a BM25 engine's default query."""
    return " | ".join(quote_lexeme(lx) for lx in lexemes)


class TableStats:
    """Row count and mean document length of one table, cached for a few seconds.

    Exact values are not needed (they only scale IDF and length normalization);
    what matters is that a keyword search never pays a full scan.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value: tuple[float, float] | None = None
        self._at = 0.0

    def invalidate(self) -> None:
        with self._lock:
            self._value = None

    def get(self, cur: Any, table_sql: str) -> tuple[float, float]:
        """``(rows, mean lexemes per document)``, at least 1 each."""
        with self._lock:
            if self._value is not None and time.monotonic() - self._at < STATS_SECONDS:
                return self._value
        cur.execute(f"SELECT reltuples FROM pg_class WHERE oid = '{table_sql}'::regclass")
        estimate = float(cur.fetchone()[0] or -1)
        if estimate > SAMPLE_ABOVE:
            cur.execute(f"SELECT avg(length(tsv)) FROM {table_sql} TABLESAMPLE SYSTEM (1)")
            rows, mean = estimate, cur.fetchone()[0]
        else:
            cur.execute(f"SELECT count(*), avg(length(tsv)) FROM {table_sql}")
            rows, mean = cur.fetchone()
        value = (max(float(rows or 0), 1.0), max(float(mean or 0), 1.0))
        with self._lock:
            self._value, self._at = value, time.monotonic()
        return value


class DocumentFrequencies:
    """How many documents contain each lexeme, reused for ``STATS_SECONDS`` (like the table
    statistics, exact values are not needed).

    Up to ``SAMPLE_ABOVE`` rows each lexeme is counted through the GIN index.
    Beyond that a count is too dear (a lexeme in 5% of a million rows took
    0.4 to 2.8 s, and a search brings a few new ones), so the frequencies of
    common lexemes come from PostgreSQL's own statistics (``ANALYZE``, which
    autovacuum runs, keeps the most common lexemes of a tsvector column with
    the fraction of rows holding each, in ``pg_stats``) and only the rest are
    counted, each up to ``COUNT_CAP`` rows: a lexeme ``ANALYZE`` did not find
    common is rare, and before the first ``ANALYZE`` the cap bounds the cost.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, tuple[float, float]] = {}
        self._common: dict[str, float] = {}
        self._common_at = -math.inf

    def invalidate(self) -> None:
        with self._lock:
            self._counts.clear()

    def get(self, cur: Any, table_sql: str, lexemes: list[str], rows: float) -> list[float]:
        """Documents containing each of ``lexemes`` in a table of about ``rows`` rows."""
        now = time.monotonic()
        known: dict[str, float] = {}
        with self._lock:
            for lexeme in lexemes:  # a lookup per query lexeme, never a pass over the cache
                entry = self._counts.get(lexeme)
                if entry is not None and now - entry[1] < STATS_SECONDS:
                    known[lexeme] = entry[0]
        missing = [lx for lx in lexemes if lx not in known]
        if missing and rows > SAMPLE_ABOVE:
            common = self._common_fractions(cur, table_sql, now)
            known.update((lx, common[lx] * rows) for lx in missing if lx in common)
            missing = [lx for lx in missing if lx not in known]
        if missing:
            cap = COUNT_CAP if rows > SAMPLE_ABOVE else None
            counted = self._count(cur, table_sql, missing, cap)
            known.update(counted)
            with self._lock:
                if len(self._counts) + len(counted) > MAX_CACHED_LEXEMES:
                    self._counts.clear()
                self._counts.update((lx, (c, now)) for lx, c in counted.items())
        return [known.get(lx, 0.0) for lx in lexemes]

    @staticmethod
    def _count(cur: Any, table_sql: str, lexemes: list[str], cap: int | None) -> dict[str, float]:
        """Rows holding each lexeme, through the GIN index (at most ``cap`` each)."""
        rows = f"SELECT 1 FROM {table_sql} WHERE tsv @@ u.q" + ("" if cap is None else f" LIMIT {int(cap)}")
        cur.execute(
            f"SELECT u.lexeme, (SELECT count(*) FROM ({rows}) AS hit)::float8 "
            "FROM unnest(%s::text[], %s::tsquery[]) AS u(lexeme, q)",
            (lexemes, [quote_lexeme(lx) for lx in lexemes]),
        )
        return {str(lexeme): float(count) for lexeme, count in cur.fetchall()}

    def _common_fractions(self, cur: Any, table_sql: str, now: float) -> dict[str, float]:
        """``lexeme -> fraction of rows`` for the lexemes ``ANALYZE`` found most common."""
        with self._lock:
            if now - self._common_at < STATS_SECONDS:
                return self._common
        cur.execute(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
            "WHERE format('%%I.%%I', schemaname, tablename)::regclass = %s::regclass AND attname = 'tsv'",
            (table_sql,),
        )
        row = cur.fetchone()
        common: dict[str, float] = {}
        if row is not None and row[0] is not None:
            # The frequencies list ends with a few summary values (min, max, null fraction).
            common = {str(lexeme): float(fraction) for lexeme, fraction in zip(row[0], row[1], strict=False)}
        with self._lock:
            self._common, self._common_at = common, now
        return common


def idf(rows: float, df: float) -> float:
    """BM25's inverse document frequency (Lucene's form: never negative)."""
    return math.log(1 + (max(rows, df) - df + 0.5) / (df + 0.5))


def bm25_select(table_sql: str, columns: str, where_sql: str, terms: int) -> str:
    """The keyword query for ``terms`` lexemes. Parameters: the OR tsquery, the filter's
    parameters, then per lexeme its tsquery and IDF, the mean length, the shortlist size;
    then the lexemes, their IDFs, the mean length again, and the limit.

    Two phases, because PostgreSQL has no top-k pruning for text search: every row
    containing any query term must be scored (17k of 100k rows for a common query).
    The shortlist scores them with plain ``@@`` tests (C, no per-row subquery) as BM25
    with each matched term counted once, which is exact for the usual term frequency of
    1; only the shortlist gets the exact score from the tsvector's positions. The CTEs
    are ``MATERIALIZED``: inlined, PostgreSQL would recompute them per row.
    """
    matched = " + ".join(["CASE WHEN m.tsv @@ %s::tsquery THEN %s::float8 ELSE 0 END"] * terms) or "0"
    return f"""
        WITH shortlist AS MATERIALIZED (
            SELECT m.id FROM {table_sql} AS m
            WHERE m.tsv @@ %s::tsquery AND {where_sql}
            ORDER BY ({matched}) * {K1 + 1} / (1 + {K1} * (1 - {B} + {B} * length(m.tsv) / %s::float8)) DESC,
                m.id COLLATE "C"
            LIMIT %s
        ), terms(lexeme, idf) AS MATERIALIZED (
            SELECT * FROM unnest(%s::text[], %s::float8[])
        ), params(avgdl) AS MATERIALIZED (SELECT %s::float8)
        SELECT {columns}, m.embedding,
            (SELECT coalesce(sum(
                 terms.idf * tf.n * {K1 + 1} / (tf.n + {K1} * (1 - {B} + {B} * length(m.tsv) / params.avgdl))
             ), 0)
             FROM unnest(m.tsv) AS v(lexeme, positions, weights)
             JOIN terms ON terms.lexeme = v.lexeme
             CROSS JOIN LATERAL (SELECT coalesce(array_length(v.positions, 1), 1)::float8 AS n) AS tf
             CROSS JOIN params) AS score
        FROM {table_sql} AS m
        JOIN shortlist ON shortlist.id = m.id
        ORDER BY score DESC, m.id COLLATE "C"
        LIMIT %s
    """


def ts_rank_select(table_sql: str, columns: str, where_sql: str) -> str:
    """The ``ts_rank_cd`` variant. Parameters: the OR tsquery twice, the filter's, limit."""
    return f"""
        SELECT {columns}, m.embedding, ts_rank_cd(m.tsv, %s::tsquery) AS score
        FROM {table_sql} AS m
        WHERE m.tsv @@ %s::tsquery AND {where_sql}
        ORDER BY score DESC, m.id COLLATE "C"
        LIMIT %s
    """
