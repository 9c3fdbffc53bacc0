"""Where a search's and an add's time goes: each stage of ``Memory.search`` and ``Memory.add`` timed alone.

    # a store kept by the scale benchmark (--keep), searched as it searched it
    python benchmarks/search_stages.py --data-dir /data/scale/lancedb-100000 --store lancedb --index ann
    python benchmarks/search_stages.py --data-dir /data/scale/pgvector-100000 --store pgvector \\
        --database-url postgresql+psycopg://...
    # no kept store: a fresh data dir loaded with LoCoMo conversations (default config), searches and adds
    python benchmarks/search_stages.py --locomo [DIR] [--limit 1] [--adds 60] [--json OUT]

The stages are the calls ``memorist.engine.search.HybridSearch`` makes, with
the same arguments (candidate pool, the filter a search by one user builds):

- ``embed``: the query embedding;
- ``graph``: the entity lookup (runs beside the embedding);
- ``keyword``: ``match_keyword`` (runs beside the embedding and the vector query);
- ``vector``: ``match_vector`` (waits for the embedding);
- ``fetch``: whole records of the ``top_k`` winners;
- ``search``: ``Memory.search`` end to end, stages overlapped as it runs them;
- with the scope index (``engine.scope_index``, on by default) and a scope within its
  cap, its stages too: ``ix-gen`` (the generation read every search makes),
  ``ix-load`` (loading the scope's snapshot: what a search after another process's
  write pays), ``ix-vec`` and ``ix-kw`` (the retrievers in memory), and
  ``store-search`` (``Memory.search`` with the index off, for the ratio).

Each stage alone, one after another, on the same queries as the scale
benchmark: the sum of the stages on the critical path (embed, vector, fetch)
is what a search cannot go below on this machine with this store, however its
stages are overlapped.

With ``--locomo`` the store is a fresh data directory (``--data-dir``, or a
temporary one) with the default configuration, loaded with the first
``--limit`` LoCoMo conversations through ``Memory.add_many``; the searches are
the first conversation's questions within its user, and the last ``--adds``
turns of that conversation, held out of the load, are added stage by stage and
then whole (see ``scenarios/stages/ingest.py`` for the stages of an add).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import percentile  # noqa: E402
from locomo import DEFAULT_DATA  # noqa: E402
from scenarios.scale.data import make_queries  # noqa: E402  (the scale benchmark's queries)


def timed(label: str, count: int, call: Callable[[int], Any]) -> dict[str, float]:
    """p50/p95 of ``call(i)`` over ``count`` calls after two untimed ones."""
    for i in range(2):
        call(i)
    samples = []
    for i in range(count):
        began = time.perf_counter()
        call(i)
        samples.append((time.perf_counter() - began) * 1000)
    result = {"p50_ms": round(statistics.median(samples), 2), "p95_ms": round(percentile(samples, 0.95), 2)}
    print(f"{label:<12} p50 {result['p50_ms']:7.2f} ms   p95 {result['p95_ms']:7.2f} ms", flush=True)
    return result


def index_stages(
    memory: Any,
    settings: dict[str, Any],
    queries: list[str],
    vectors: list[Any],
    where: Any,
    pool: int,
    top_k: int,
    user: str = "u0",
) -> dict[str, dict[str, float]]:
    """The scope index's stages for ``user`` (nothing when it is off or the scope too large)."""
    from memorist import Engine as Memory
    from memorist.engine.scope_index import Pinned, ScopeView, Snapshot

    index = memory.scope_index
    pinned = Pinned("default", "default", "user_id", user)
    # A scope is loaded on its second search: the first get goes to the store.
    snapshot = None if index is None else index.get(pinned) or index.get(pinned)
    if snapshot is None:
        print(f"scope index: off, or {user}'s scope is above engine.scope_index_max_rows")
        return {}
    store, cap = memory.components.vector_store, memory.settings.engine.scope_index_max_rows
    view = ScopeView(snapshot)
    n = len(queries)
    out = {
        "ix-gen": timed("ix-gen", n, lambda i: memory.generations.read(pinned.key)),
        "ix-load": timed(
            "ix-load", min(n, 10), lambda i: Snapshot.build(pinned, (0, 0), *store.snapshot(pinned.filter(), cap))
        ),
        "ix-vec": timed("ix-vec", n, lambda i: view.match_vector(vectors[i], pool, where)),
        "ix-kw": timed("ix-kw", n, lambda i: view.match_keyword(queries[i], pool, where)),
    }
    plain = Memory.from_config({**settings, "engine": {"scope_index": False}})
    out["store-search"] = timed("store", n, lambda i: plain.search(queries[i], user_id=user, top_k=top_k))
    plain.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, help="a data directory the scale benchmark kept (or for --locomo)")
    parser.add_argument(
        "--locomo", type=Path, nargs="?", const=DEFAULT_DATA, help="load LoCoMo conversations into a fresh store"
    )
    parser.add_argument("--limit", type=int, default=1, help="--locomo: conversations loaded")
    parser.add_argument("--adds", type=int, default=60, help="--locomo: held-out turns the ingest stages add")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--store", choices=("lancedb", "pgvector"), default="lancedb")
    parser.add_argument("--index", choices=("none", "ann"), default="ann", help="as the scale benchmark's modes")
    parser.add_argument("--database-url", help="pgvector: the database the scale benchmark loaded")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7, help="the scale benchmark's seed (same queries)")
    args = parser.parse_args(argv)
    if not args.locomo and not args.data_dir:
        parser.error("--data-dir (a kept store) or --locomo is required")

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from memorist import Engine as Memory
    from memorist.engine.entities import scope_key
    from memorist.engine.scope import visible
    from memorist.filters import Condition
    from memorist.records import Scope

    settings: dict[str, Any] = {"data_dir": str(args.data_dir or tempfile.mkdtemp(prefix="memorist-stages-"))}
    if args.locomo:
        pass  # the default configuration
    elif args.store == "lancedb":
        options: dict[str, Any] = {"optimize_every": 0}
        if args.index == "ann":
            options.update(vector_index="ivf_hnsw_sq", vector_index_min_rows=1000)
        settings["vector_store"] = {"provider": "lancedb", "options": options}
    else:
        if not args.database_url:
            parser.error("--database-url is required for pgvector")
        settings["database"] = {"url": args.database_url}
        settings["vector_store"] = {"provider": "pgvector", "options": {"url": args.database_url}}
    memory = Memory.from_config(settings)
    components = memory.components
    store = components.vector_store
    pool = min(max(memory.settings.engine.candidate_pool, args.top_k * 3), 5000)
    if args.locomo:
        from scenarios.stages.locomo_store import load

        loaded = load(memory, args.locomo, args.limit, args.adds)
        print(f"loaded {loaded.loaded_turns} LoCoMo turns of {', '.join(loaded.users)} in {loaded.load_seconds:.1f} s")
        user, queries = loaded.user, loaded.questions[: args.queries]
    else:
        user, queries = "u0", make_queries(args.queries, args.seed)
    where = visible(Condition("user_id", "eq", user), "default", "default", show_expired=False)
    scope_keys = [scope_key(Scope(org_id="default", project_id="default", user_id=user))]
    vectors = [components.embedder.embed([q], "query")[0] for q in queries]
    winners = [store.match_vector(v, args.top_k, where) for v in vectors]
    where_from = f"LoCoMo, user {user}" if args.locomo else f"{args.store} ({args.index})"
    print(f"{where_from} at {settings['data_dir']}: {store.count()} memories, pool {pool}")
    n = len(queries)
    figures = {
        "embed": timed("embed", n, lambda i: components.embedder.embed([queries[i]], "query")),
        "graph": timed(
            "graph",
            n,
            lambda i: memory.graph.match(components.entity_extractor.extract(queries[i]), scope_keys),
        ),
        "keyword": timed("keyword", n, lambda i: store.match_keyword(queries[i], pool, where)),
        "vector": timed("vector", n, lambda i: store.match_vector(vectors[i], pool, where)),
        "fetch": timed("fetch", n, lambda i: store.fetch(winners[i])),
        "search": timed("search", n, lambda i: memory.search(queries[i], user_id=user, top_k=args.top_k)),
    }
    figures.update(index_stages(memory, settings, queries, vectors, where, pool, args.top_k, user))
    floor = sum(figures[s]["p50_ms"] for s in ("embed", "vector", "fetch"))
    print(f"critical path (embed + vector + fetch, p50s): {floor:.1f} ms")
    output: dict[str, Any] = {"store": where_from, "memories": store.count(), "search": figures}
    if args.locomo and loaded.held_out:
        from scenarios.stages.ingest import ingest_stages

        output["ingest"] = ingest_stages(memory, loaded.held_out)
    if args.json:
        args.json.write_text(json.dumps(output, indent=2) + "\n")
    memory.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
