"""Opening the LanceDB table safely: dimension check, indexes, commit retries.

Several processes (gunicorn workers) may start at once on one directory, so
every step tolerates another process doing the same thing at the same moment:
table creation uses ``exist_ok``, an index another process created first is
fine, and a commit that loses a race is retried with jittered backoff.

``lancedb`` is imported inside these functions, never at module import: the
gunicorn master loads every plugin and then forks, and importing lancedb
starts an event-loop thread that a fork would not carry over.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from memorist.plugin_api import ConfigurationError, DimensionMismatchError

from .schema import missing_columns, stored_dimension, table_schema

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class FtsSettings:
    """Tokenizer of the full-text index; a change makes :func:`ensure_indexes` rebuild it."""

    language: str = "English"
    stem: bool = True
    remove_stop_words: bool = True


def open_table(db: Any, name: str, path: Path, dimension: int) -> tuple[Any, bool]:
    """Open (creating if absent) table ``name``; refuse one of another dimension or layout.

    Also answers whether this call created the table (see :mod:`.created`). A table another
    process created at the same moment may be counted as created here too: whoever removes
    a created table checks that it holds no row first.
    """
    created = False
    try:
        table = db.open_table(name)
    except ValueError:  # not found
        try:
            table = db.create_table(name, schema=table_schema(dimension), exist_ok=True)
            created = True
        except ValueError:  # another process created it first, with another schema
            table = db.open_table(name)
    schema = table.schema
    stored = stored_dimension(schema)
    if stored != dimension:
        held = f"{stored}-dimensional vectors" if stored else "no vector column"
        raise DimensionMismatchError(
            f"vector store at {path} holds {held}; the configured embedder produces "
            f"{dimension}. Use another data directory, or re-embed the store: a new "
            "vector_store.options.table, then `memorist reembed --from-table <this table>`."
        )
    if missing := missing_columns(schema):
        raise ConfigurationError(
            f"vector store at {path} (table '{name}') lacks columns "
            f"{', '.join(missing)}; it was written by another program or version"
        )
    return table, created


def ensure_indexes(table: Any, fts: FtsSettings, scalar: bool, retries: int) -> None:
    """Create the BM25 index on ``text`` and, with ``scalar``, the filter indexes if missing.

    BTrees on ``id`` and ``user_id`` (many distinct values); bitmaps on
    ``org_id`` and ``project_id``, which every search filters on and which
    have few values: without them each query scans both columns to build its
    prefilter (about 4 ms per query at 100k rows). All of them can be created
    on an empty table; rows written later are searched unindexed until
    ``optimize`` folds them in.
    """
    from lancedb.index import FTS, Bitmap, BTree

    indexes = {tuple(i.columns): i for i in table.list_indices()}
    current = indexes.get(("text",))
    wanted = {
        "language": fts.language,
        "stem": fts.stem,
        "remove_stop_words": fts.remove_stop_words,
    }
    stale = current is not None and any((current.index_details or {}).get(k, v) != v for k, v in wanted.items())
    if current is None or stale:
        config = FTS(
            language=fts.language,
            stem=fts.stem,
            remove_stop_words=fts.remove_stop_words,
            with_position=False,
        )
        _create_index(table, "text", config, replace=stale, retries=retries)
    if scalar:
        for column, kind in (("id", BTree), ("user_id", BTree), ("org_id", Bitmap), ("project_id", Bitmap)):
            if (column,) not in indexes:
                _create_index(table, column, kind(), replace=False, retries=retries)


def _create_index(table: Any, column: str, config: Any, replace: bool, retries: int) -> None:
    """Create an index; losing the race to another process creating it is not an error."""
    try:
        retry(lambda: table.create_index(column, config=config, replace=replace), retries)
    except Exception:
        if not any(tuple(i.columns) == (column,) for i in table.list_indices()):
            raise
        log.debug("index on %s was created concurrently", column, exc_info=True)


def build_vector_index(table: Any, kind: str, min_rows: int) -> None:
    """Build the configured ANN index once the table is big enough (never rebuilt here)."""
    if kind == "none" or any(tuple(i.columns) == ("vector",) for i in table.list_indices()):
        return
    if table.count_rows() < min_rows:
        return
    from lancedb.index import HnswSq, IvfPq

    config: Any = IvfPq(distance_type="cosine") if kind == "ivf_pq" else None
    if config is None:
        config = HnswSq(distance_type="cosine")
    table.create_index("vector", config=config, replace=False)


def prewarm_indexes(table: Any) -> None:
    """Ask LanceDB to load every index of ``table`` into its cache (a hint; best effort)."""
    try:
        for index in table.list_indices():
            table.prewarm_index(index.name)
    except Exception:  # the store may be closed, or its directory gone, meanwhile
        log.debug("lancedb index prewarm stopped", exc_info=True)


def retry(operation: Callable[[], T], retries: int) -> T:
    """Run ``operation``, retrying up to ``retries`` times after a lost commit race."""
    attempt = 0
    while True:
        try:
            return operation()
        except (RuntimeError, OSError, ValueError) as exc:
            if attempt >= retries or not is_conflict(exc):
                raise
            attempt += 1
            time.sleep(min(0.02 * 2**attempt, 1.0) * (0.5 + random.random()))


def is_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` is a lost commit race that a retry can win.

    Lance reports these as ``RuntimeError("lance error: Retryable commit
    conflict for version N: ...")``; it already retries appends and deletes
    internally, so these reach us mostly from compaction and index commits.
    """
    message = str(exc).lower()
    return "conflict" in message or "retryable" in message or "concurrent" in message
