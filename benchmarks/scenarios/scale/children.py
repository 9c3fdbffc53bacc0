"""The measurements, each run in a fresh spawned process: load, index build, search, ingest."""

from __future__ import annotations

import json
import multiprocessing
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from harness import dir_mb, peak_rss_mb, percentile, rss_mb

from .config import EXACT_PG_OPTIONS, libpq_url, open_memory, with_pg_options
from .data import batch_texts, record_id, vocabulary


def child_load(spec: dict[str, Any]) -> dict[str, Any]:
    """Fill a fresh store with ``size`` records through ``upsert``; exact top-k of the queries on the way."""
    from memorist.records import MemoryRecord, normalized_hash

    memory = open_memory(spec, "none")
    store = memory.components.vector_store
    embedder = memory.components.embedder
    words = embedder.embed(vocabulary(), "document").astype(np.float32)
    queries = embedder.embed(spec["queries"], "query").astype(np.float32)
    dim = words.shape[1]
    size, batch, k = spec["size"], spec["batch"], spec["top_k"]
    best_scores = np.full((len(queries), k), -np.inf, dtype=np.float32)
    best_rows = np.full((len(queries), k), -1, dtype=np.int64)
    if spec["store"] == "pgvector":
        drop_hnsw(spec)
    base = datetime(2024, 1, 1, tzinfo=UTC)
    upsert_seconds = 0.0
    began = time.perf_counter()
    for start in range(0, size, batch):
        count = min(batch, size - start)
        rng = np.random.default_rng([spec["seed"], start])
        texts, slots = batch_texts(rng, count)
        if spec["vectors"] == "random":
            vectors = rng.standard_normal((count, dim), dtype=np.float32)
        else:
            vectors = words[slots].mean(axis=1)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors += rng.standard_normal((count, dim), dtype=np.float32) * (spec["noise"] / np.sqrt(dim))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        records = []
        for offset, text in enumerate(texts):
            row = start + offset
            moment = base + timedelta(seconds=row)
            records.append(
                MemoryRecord.model_construct(
                    id=record_id(row),
                    text=text,
                    hash=normalized_hash(text),
                    org_id="default",
                    project_id="default",
                    user_id=f"u{row % spec['users']}",
                    agent_id=None,
                    run_id=None,
                    app_id=None,
                    categories=[],
                    metadata={"row": row},
                    attributed_to="user",
                    speaker=None,
                    source_message=0,
                    observed_at=moment,
                    created_at=moment,
                    updated_at=moment,
                    expires_at=None,
                )
            )
        t0 = time.perf_counter()
        store.upsert(records, vectors)
        upsert_seconds += time.perf_counter() - t0
        scores = queries @ vectors.T
        merged_scores = np.concatenate([best_scores, scores], axis=1)
        merged_rows = np.concatenate(
            [best_rows, np.broadcast_to(np.arange(start, start + count), scores.shape)], axis=1
        )
        top = np.argsort(-merged_scores, axis=1, kind="stable")[:, :k]
        best_scores = np.take_along_axis(merged_scores, top, axis=1)
        best_rows = np.take_along_axis(merged_rows, top, axis=1)
    load_seconds = time.perf_counter() - began
    t0 = time.perf_counter()
    if spec["store"] == "lancedb":
        store.optimize()  # folds the rows into the full-text and scalar indexes, compacts
    else:
        create_hnsw(spec)
    finish_seconds = time.perf_counter() - t0
    count = store.count()
    memory.close()
    return {
        "rows": count,
        "load_s": round(load_seconds, 1),
        "upsert_s": round(upsert_seconds, 1),
        "rows_per_s": round(size / upsert_seconds, 1),
        "finish_s": round(finish_seconds, 1),
        "truth": best_rows.tolist(),
        "load_peak_rss_mb": peak_rss_mb(),
    }


def drop_hnsw(spec: dict[str, Any]) -> None:
    import psycopg

    with psycopg.connect(libpq_url(spec["database_url"]), autocommit=True) as conn:
        conn.execute('DROP INDEX IF EXISTS "memories_hnsw"')


def create_hnsw(spec: dict[str, Any]) -> None:
    """The store's own HNSW DDL (same name and parameters), built once over the loaded table."""
    import psycopg
    from memorist_pgvector.schema import create_statements

    statement = next(s for s in create_statements("memories", 384, "english", 16, 64) if "USING hnsw" in s)
    with psycopg.connect(libpq_url(spec["database_url"]), autocommit=True) as conn:
        conn.execute(f"SET maintenance_work_mem = '{spec['pg_maintenance_work_mem']}'")
        conn.execute(statement)
        conn.execute('ANALYZE "memories"')


def child_build_ann(spec: dict[str, Any]) -> dict[str, Any]:
    """LanceDB: open with ``ivf_hnsw_sq`` and run ``optimize``, which builds the index."""
    memory = open_memory(spec, "ann")
    t0 = time.perf_counter()
    memory.components.vector_store.optimize()
    seconds = time.perf_counter() - t0
    memory.close()
    return {"index_s": round(seconds, 1)}


def index_check(spec: dict[str, Any], mode: str, query_vector: np.ndarray) -> str:
    """What the store will really do: LanceDB's index list, or pgvector's query plan."""
    if spec["store"] == "lancedb":
        import lancedb

        table = lancedb.connect(str(Path(spec["data_dir"]) / "lancedb")).open_table("memories")
        found = [f"{i.index_type}({','.join(i.columns)})" for i in table.list_indices()]
        vector = [x for x in found if "vector" in x]
        if mode == "none":  # the store bypasses an index it is not configured to use
            return "vector index: " + (f"{vector[0]} bypassed (brute force)" if vector else "none (brute force)")
        return "vector index: " + (", ".join(vector) if vector else "none (brute force)")
    import psycopg
    from pgvector.psycopg import register_vector

    url = spec["database_url"] if mode == "ann" else with_pg_options(spec["database_url"], EXACT_PG_OPTIONS)
    with psycopg.connect(libpq_url(url)) as conn:
        register_vector(conn)
        conn.execute("SET hnsw.ef_search = 100")
        rows = conn.execute(
            "EXPLAIN SELECT id FROM memories WHERE org_id = 'default' AND project_id = 'default' "
            "AND user_id = 'u0' ORDER BY embedding <=> %s LIMIT 100",
            (query_vector,),
        ).fetchall()
    nodes = [r[0].strip().removeprefix("->").strip().split("  (cost")[0] for r in rows]
    chain = " > ".join(n for n in nodes if n and not n.startswith(("Order By", "Filter", "Sort Key", "Index Cond")))
    return f"plan ({'HNSW' if 'memories_hnsw' in chain else 'no HNSW'}): {chain}"


def child_measure(spec: dict[str, Any], mode: str) -> dict[str, Any]:
    """Open the engine in ``mode`` and time ``Memory.search`` and ``search_vector``; RSS before and after."""
    memory = open_memory(spec, mode)
    store = memory.components.vector_store
    embedder = memory.components.embedder
    queries: list[str] = spec["queries"]
    vectors = embedder.embed(queries, "query").astype(np.float32)  # loads the model: part of "open"
    rss_open = rss_mb()
    check = index_check(spec, mode, vectors[0])
    users = spec["users"]
    for i in range(spec["warmup"]):
        memory.search(queries[i % len(queries)], user_id=f"u{i % users}", top_k=spec["top_k"])
    search_ms = []
    for i, query in enumerate(queries):
        t0 = time.perf_counter()
        memory.search(query, user_id=f"u{i % users}", top_k=spec["top_k"])
        search_ms.append((time.perf_counter() - t0) * 1000)
    vector_ms, recalls = [], []
    truth = spec["truth"]
    for i, vector in enumerate(vectors):
        t0 = time.perf_counter()
        hits = store.search_vector(vector, spec["top_k"])
        vector_ms.append((time.perf_counter() - t0) * 1000)
        if truth is not None:
            expected = {record_id(r) for r in truth[i] if r >= 0}
            recalls.append(len(expected & {h.record.id for h in hits}) / max(len(expected), 1))
    result = {
        "check": check,
        "search_p50_ms": round(statistics.median(search_ms), 2),
        "search_p95_ms": round(percentile(search_ms, 0.95), 2),
        "vector_p50_ms": round(statistics.median(vector_ms), 2),
        "vector_p95_ms": round(percentile(vector_ms, 0.95), 2),
        "recall_at_k": round(statistics.mean(recalls), 3) if recalls else None,
        "rss_open_mb": rss_open,
        "rss_after_mb": rss_mb(),
        "rss_peak_mb": peak_rss_mb(),
    }
    if spec["store"] == "lancedb":
        result["disk_mb"] = dir_mb(Path(spec["data_dir"]) / "lancedb")
    else:
        import psycopg

        with psycopg.connect(libpq_url(spec["database_url"])) as conn:
            size = conn.execute("SELECT pg_total_relation_size('memories')").fetchone()[0]  # type: ignore[index]
        result["disk_mb"] = round(size / 2**20, 1)
    memory.close()
    return result


def child_ingest(spec: dict[str, Any]) -> dict[str, Any]:
    """``Memory.add`` with the configured embedder on a fresh store: the real write path, timed per add."""
    memory = open_memory(spec, "default")
    rng = np.random.default_rng(spec["seed"] + 7)
    texts, _ = batch_texts(rng, spec["adds"] + 3)
    users = spec["users"]

    def add(i: int) -> int:
        words = texts[i].split(" ", 1)
        message = {"role": "user", "content": f"I {words[1]}", "name": words[0]}
        return len(memory.add([message], user_id=f"u{i % users}"))

    for i in range(3):  # warm-up: model, tables, indexes
        add(spec["adds"] + i)
    before = memory.components.vector_store.count()
    per_add = []
    began = time.perf_counter()
    for i in range(spec["adds"]):
        t0 = time.perf_counter()
        add(i)
        per_add.append((time.perf_counter() - t0) * 1000)
    seconds = time.perf_counter() - began
    stored = memory.components.vector_store.count() - before
    memory.close()
    return {
        "store": spec["store"],
        "adds": spec["adds"],
        "memories": stored,
        "seconds": round(seconds, 1),
        "adds_per_s": round(spec["adds"] / seconds, 2),
        "add_p50_ms": round(statistics.median(per_add), 1),
        "add_p95_ms": round(percentile(per_add, 0.95), 1),
        "rss_mb": rss_mb(),
    }


def in_child(function: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """Run ``function`` in a fresh spawned process (clean RSS, no state shared with other configurations)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


class LoadRecord:
    """What loading a store produced (timings, ground truth, its database), kept beside the
    store so a later ``--reuse`` run can measure it without loading and indexing again."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "scale-load.json"

    def exists(self) -> bool:
        return self.path.exists()

    def read(self) -> dict[str, Any]:
        return dict(json.loads(self.path.read_text()))

    def write(self, values: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(values))

    def update(self, **values: Any) -> None:
        self.write({**self.read(), **values})
