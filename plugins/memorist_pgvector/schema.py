"""The table layout, its DDL, and conversions between rows and :class:`MemoryRecord`.

Every record field is its own column so filters compile to plain SQL on
columns: scope ids and other strings as ``text``, categories as ``text[]``
(GIN-indexed for ``@>``/``&&``), metadata as ``jsonb``, dates as
``timestamptz`` (microseconds, like Python), the vector as ``vector(dim)``
with an HNSW cosine index, and a generated ``tsvector`` of the text with a GIN
index for keyword search, so no write path can forget to maintain it.

Startup may run in several processes at once (gunicorn workers), so the DDL
runs under a transaction-scoped advisory lock keyed by the table name and uses
``IF NOT EXISTS`` throughout.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from memorist.plugin_api import ConfigurationError, DimensionMismatchError, MemoryRecord
from pydantic_core import to_jsonable_python

log = logging.getLogger(__name__)

#: Record fields in column order (everything but the vector and the tsvector).
RECORD_COLUMNS: tuple[str, ...] = (
    "id",
    "text",
    "hash",
    "org_id",
    "project_id",
    "user_id",
    "agent_id",
    "run_id",
    "app_id",
    "categories",
    "metadata",
    "attributed_to",
    "speaker",
    "source_message",
    "observed_at",
    "created_at",
    "updated_at",
    "expires_at",
)
VECTOR = "embedding"
TSV = "tsv"
_DATES = frozenset(["observed_at", "created_at", "updated_at", "expires_at"])
#: pgvector's HNSW index takes ``vector`` columns of at most this many dimensions.
HNSW_MAX_DIMENSION = 2000
#: First key of the two-int advisory lock taken around DDL ("memorist pgvector").
_LOCK_NAMESPACE = 7_311_043


def quote_ident(name: str) -> str:
    """A double-quoted identifier; names are validated by the Options pattern first."""
    return '"' + name.replace('"', '""') + '"'


def create_statements(table: str, dimension: int, text_config: str, m: int, ef_construction: int) -> list[str]:
    """DDL for the table and its indexes; every statement is idempotent."""
    t = quote_ident(table)
    statements = [
        f"""CREATE TABLE IF NOT EXISTS {t} (
            id text PRIMARY KEY,
            text text NOT NULL,
            hash text NOT NULL,
            org_id text NOT NULL,
            project_id text NOT NULL,
            user_id text,
            agent_id text,
            run_id text,
            app_id text,
            categories text[] NOT NULL DEFAULT '{{}}',
            metadata jsonb NOT NULL DEFAULT '{{}}',
            attributed_to text,
            speaker text,
            source_message bigint,
            observed_at timestamptz NOT NULL,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            expires_at timestamptz,
            {VECTOR} vector({int(dimension)}) NOT NULL,
            {TSV} tsvector GENERATED ALWAYS AS (to_tsvector('{text_config}'::regconfig, text)) STORED
        )""",
        f"CREATE INDEX IF NOT EXISTS {quote_ident(table + '_tsv')} ON {t} USING gin ({TSV})",
        f"CREATE INDEX IF NOT EXISTS {quote_ident(table + '_categories')} ON {t} USING gin (categories)",
        f"CREATE INDEX IF NOT EXISTS {quote_ident(table + '_scope')} ON {t} (org_id, project_id, user_id)",
        f'CREATE INDEX IF NOT EXISTS {quote_ident(table + "_created")} ON {t} (created_at DESC, id COLLATE "C")',
        f"CREATE INDEX IF NOT EXISTS {quote_ident(table + '_hash')} ON {t} (hash)",
    ]
    if dimension <= HNSW_MAX_DIMENSION:
        statements.append(
            f"CREATE INDEX IF NOT EXISTS {quote_ident(table + '_hnsw')} ON {t} "
            f"USING hnsw ({VECTOR} vector_cosine_ops) "
            f"WITH (m = {int(m)}, ef_construction = {int(ef_construction)})"
        )
    else:
        log.warning(
            "pgvector: %d dimensions exceed HNSW's %d; vector search on %s stays exact",
            dimension,
            HNSW_MAX_DIMENSION,
            table,
        )
    return statements


def ensure_table(cur: Any, table: str, dimension: int, text_config: str, m: int, ef: int) -> bool:
    """Create the extension, table and indexes if missing; refuse another dimension or layout.
    True when this call created the table (:func:`drop_if_empty` may take it back).

    Runs inside the caller's transaction, serialized across processes by an
    advisory lock so two workers starting together never race on the catalog.
    """
    _lock_ddl(cur, table)
    cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
    if cur.fetchone() is None:
        try:
            cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except Exception as exc:
            raise ConfigurationError(
                f"vector_store 'pgvector': the database lacks the 'vector' extension and this "
                f"role cannot create it ({exc}); run CREATE EXTENSION vector as its owner"
            ) from exc
    cur.execute("SELECT %s::regconfig", (text_config,))
    stored = stored_dimension(cur, table)
    if stored is None:
        for statement in create_statements(table, dimension, text_config, m, ef):
            cur.execute(statement)
        return True
    if stored != dimension:
        held = f"{stored}-dimensional vectors" if stored > 0 else "no vector column"
        raise DimensionMismatchError(
            f"vector store table '{table}' in database '{cur.connection.info.dbname}' holds "
            f"{held}; the configured embedder produces {dimension}. Use another table, or "
            "re-embed the store: a new vector_store.options.table, then "
            "`memorist reembed --from-table <this table>`."
        )
    if missing := missing_columns(cur, table):
        raise ConfigurationError(
            f"vector store table '{table}' lacks columns {', '.join(missing)}; "
            "it was written by another program or version"
        )
    return False


def drop_if_empty(cur: Any, table: str) -> bool:
    """Drop ``table`` (its indexes go with it) unless it holds a row; True when it is gone.

    For a store that never served (a refused ``POST /configure``) to take back the table its
    opening created. Under the DDL lock, with the table locked against writers until the
    transaction ends, so a row written by another process is never dropped.
    """
    _lock_ddl(cur, table)
    if stored_dimension(cur, table) is None:
        return True
    cur.execute(f"LOCK TABLE {quote_ident(table)} IN ACCESS EXCLUSIVE MODE")
    cur.execute(f"SELECT EXISTS (SELECT 1 FROM {quote_ident(table)})")
    if cur.fetchone()[0]:
        return False
    cur.execute(f"DROP TABLE {quote_ident(table)}")
    return True


def _lock_ddl(cur: Any, table: str) -> None:
    """The transaction-scoped advisory lock that serializes DDL on ``table`` across processes."""
    cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LOCK_NAMESPACE, table))


def stored_dimension(cur: Any, table: str) -> int | None:
    """The vector size of an existing table; None when there is no table, 0 for no vector column."""
    cur.execute("SELECT to_regclass(%s)::oid", (quote_ident(table),))
    row = cur.fetchone()
    if row is None or row[0] is None:
        return None
    cur.execute(
        "SELECT a.atttypmod, format_type(a.atttypid, NULL) FROM pg_attribute a "
        "WHERE a.attrelid = %s AND a.attname = %s AND NOT a.attisdropped",
        (row[0], VECTOR),
    )
    column = cur.fetchone()
    if column is None or column[1] != "vector":
        return 0
    return int(column[0])


def missing_columns(cur: Any, table: str) -> list[str]:
    cur.execute(
        "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
        "AND a.attnum > 0 AND NOT a.attisdropped",
        (quote_ident(table),),
    )
    present = {r[0] for r in cur.fetchall()}
    return [c for c in (*RECORD_COLUMNS, TSV) if c not in present]


def _utc(value: datetime | None) -> datetime | None:
    """Aware UTC; a naive datetime is taken to be UTC already (what ``utcnow`` makes)."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def to_params(record: MemoryRecord, vector: Any) -> tuple[Any, ...]:
    """Parameters for one row, in :data:`RECORD_COLUMNS` order plus the vector."""
    from psycopg.types.json import Jsonb

    values: list[Any] = []
    for name in RECORD_COLUMNS:
        value = getattr(record, name)
        if name in _DATES:
            value = _utc(value)
        elif name == "metadata":
            value = Jsonb(to_jsonable_python(value))
        elif name == "categories":
            value = list(value)
        values.append(value)
    values.append(vector)
    return tuple(values)


def from_row(row: Sequence[Any]) -> MemoryRecord:
    """A record from a row whose first columns are :data:`RECORD_COLUMNS`."""
    values = dict(zip(RECORD_COLUMNS, row, strict=False))
    for name in _DATES:
        values[name] = _utc(values[name])
    values["metadata"] = values["metadata"] or {}
    values["categories"] = list(values["categories"] or [])
    # Rows were validated when written; construct without re-validating (hot path of search).
    return MemoryRecord.model_construct(**values)
