"""One store's configuration: Memorist settings, the same as environment variables, an engine on it."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from harness import hashing_env

ADMIN_KEY = "scale-admin-key-0123456789abcdef"
JWT_SECRET = "scale-jwt-secret-0123456789abcdef0123456789"
EXACT_PG_OPTIONS = "-c enable_indexscan=off"


def settings_for(spec: dict[str, Any], mode: str) -> dict[str, Any]:
    """Memorist settings (runtime overrides) for ``spec``'s store in index ``mode``.

    ``mode`` "default" is the store's shipped configuration (the ingest
    measurement: the write path as users get it); "none" and "ann" turn off
    periodic optimization, since nothing but the load writes.
    """
    settings: dict[str, Any] = {"data_dir": spec["data_dir"]}
    if spec["embedder"] == "hashing":
        settings["embedder"] = {"provider": "hashing", "options": {"dimension": 384}}
    if spec["store"] == "lancedb":
        options: dict[str, Any] = {} if mode == "default" else {"optimize_every": 0}
        if mode == "ann":
            options.update(vector_index="ivf_hnsw_sq", vector_index_min_rows=1000)
        settings["vector_store"] = {"provider": "lancedb", "options": options}
    else:
        url = spec["database_url"]
        store_url = with_pg_options(url, EXACT_PG_OPTIONS) if mode == "none" else url
        settings["database"] = {"url": url}
        settings["vector_store"] = {"provider": "pgvector", "options": {"url": store_url}}
    return settings


def server_env(spec: dict[str, Any], mode: str) -> dict[str, str]:
    """The same configuration as environment variables, for ``memorist serve``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env.update(
        {
            "ADMIN_API_KEY": ADMIN_KEY,
            "JWT_SECRET": JWT_SECRET,
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "MEMORIST_QUEUE__WORKERS": "0",
        }
    )
    if spec["embedder"] == "hashing":
        env.update(hashing_env())
    for key, value in flatten("MEMORIST", settings_for(spec, mode)).items():
        env[key] = value
    return env


def flatten(prefix: str, value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for key, item in value.items():
            out.update(flatten(f"{prefix}__{key.upper()}" if prefix != "MEMORIST" else f"{prefix}_{key.upper()}", item))
        return out
    return {prefix: str(value)}


def with_pg_options(url: str, options: str) -> str:
    """``url`` with libpq ``options`` (server settings for every connection of that pool)."""
    return f"{url}{'&' if '?' in url else '?'}options={quote(options)}"


def libpq_url(url: str) -> str:
    """A SQLAlchemy ``postgresql+psycopg://`` URL as a libpq URI for psycopg.connect.

    A plain string replacement, unlike ``memorist.testing.pg.libpq_url``: the
    ``options`` query of :func:`with_pg_options` must stay encoded exactly as built.
    """
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def open_memory(spec: dict[str, Any], mode: str) -> Any:
    if spec["embedder"] == "hashing":
        os.environ.update(hashing_env())
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from memorist import Engine as Memory

    return Memory.from_config(settings_for(spec, mode))
