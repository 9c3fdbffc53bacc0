"""Settings of the LanceDB vector store (``vector_store.options`` in a config)."""

from __future__ import annotations

from typing import Literal

from memorist.plugin_api import ProviderOptions
from pydantic import Field


class LanceDBVectorStoreOptions(ProviderOptions):
    #: Database directory; default ``<data_dir>/lancedb``.
    path: str | None = None
    table: str = Field("memories", pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
    #: Tokenizer of the full-text index (changing these rebuilds the index on startup).
    fts_language: str = "English"
    fts_stem: bool = True
    fts_remove_stop_words: bool = True
    #: Run ``optimize`` (index refresh, compaction, pruning) after this many writes; 0 = never.
    optimize_every: int = Field(20, ge=0)
    #: Also optimize once writes have paused this long (0 = only every ``optimize_every``;
    #: ``optimize_every: 0`` turns both off).
    optimize_idle_seconds: float = Field(5.0, ge=0)
    #: Old table versions are deleted once older than this (other processes read the latest).
    keep_versions_seconds: float = Field(10.0, ge=1.0)
    #: BTree indexes on ``id`` and ``user_id`` (faster gets, upserts and per-user filters).
    scalar_indexes: bool = True
    #: Approximate vector index built once the table has ``vector_index_min_rows`` rows;
    #: "none" keeps search exact.
    vector_index: Literal["none", "ivf_pq", "ivf_hnsw_sq"] = "none"
    vector_index_min_rows: int = Field(100_000, ge=1_000)
    nprobes: int = Field(20, ge=1)
    #: Re-rank ``k * refine_factor`` ANN candidates with exact cosine, so scores stay
    #: exact (quantized indexes alone report distorted distances) ...
    refine_factor: int = Field(5, ge=1)
    #: ... but no more than this many rows (never fewer than ``k``): a deep search (the
    #: engine asks for 100+ candidates) already holds the true neighbours, and re-reading
    #: five times its rows would double its cost.
    refine_max_rows: int = Field(300, ge=1)
    #: Apply a scope filter after the search, not before, when it keeps at least this
    #: fraction of the table (see ``memorist_lancedb.planner``); above 1 = always before.
    postfilter_min_fraction: float = Field(0.5, gt=0.0)
    #: Load the indexes into memory in the background on open: otherwise LanceDB reads
    #: each ANN partition on its first use, and a fresh process's first searches at 1M
    #: rows take hundreds of milliseconds (the vector index loads in ~1.4 s).
    prewarm_indexes: bool = True
    #: Attempts after a commit conflict with another process.
    commit_retries: int = Field(5, ge=0)
    #: Acknowledge upserts once they are in a durable journal beside the table (a SQLite
    #: WAL file) and move them into the table in batches (see ``memorist_lancedb.writebehind``);
    #: false: every upsert commits a table version before returning.
    write_behind: bool = True
    #: Flush the journal into the table once this many rows are pending ...
    flush_rows: int = Field(256, ge=1)
    #: ... or this long after the first pending row was written.
    flush_delay_seconds: float = Field(0.5, ge=0.0)
