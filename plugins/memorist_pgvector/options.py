"""Settings of the PostgreSQL vector store (``vector_store.options`` in a config), and
where its database URL comes from."""

from __future__ import annotations

from typing import Literal

from memorist.plugin_api import ConfigurationError, ProviderContext, ProviderOptions
from pydantic import Field, model_validator


def resolve_url(url: str | None, context: ProviderContext) -> str:
    """The store's database: its ``url`` option, else the kernel's (``context.database_url``).

    The kernel hands over its database URL after every settings source (file,
    environment, runtime overrides) was applied; the store never reads the
    environment itself.
    """
    found = url or context.database_url
    if not found:
        raise ConfigurationError("vector_store 'pgvector' needs a PostgreSQL URL: set its 'url' option or database.url")
    return found


class PgVectorStoreOptions(ProviderOptions):
    #: SQLAlchemy-style URL (``postgresql+psycopg://user@host/db``); default: database.url.
    url: str | None = None
    table: str = Field("memories", pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
    #: Text-search configuration of the keyword index (fixed when the table is created).
    text_search_config: str = Field("english", pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
    keyword_ranking: Literal["bm25", "ts_rank_cd"] = "bm25"
    #: HNSW build parameters (used when the index is created).
    hnsw_m: int = Field(16, ge=2, le=100)
    hnsw_ef_construction: int = Field(64, ge=4, le=1000)
    #: Candidate list size of an HNSW search (raised to k for larger k, up to 1000).
    ef_search: int = Field(40, ge=1, le=1000)
    #: pgvector >= 0.8 keeps scanning the index until a filtered search has k rows.
    iterative_scan: Literal["off", "relaxed_order", "strict_order"] = "relaxed_order"
    pool_size: int = Field(5, ge=1, le=100)
    max_overflow: int = Field(5, ge=0, le=100)
    #: Attempts after a deadlock or serialization failure.
    retries: int = Field(3, ge=0, le=20)

    @model_validator(mode="after")
    def _ef_covers_m(self) -> PgVectorStoreOptions:
        if self.hnsw_ef_construction < 2 * self.hnsw_m:
            raise ValueError("hnsw_ef_construction must be at least twice hnsw_m")
        return self
