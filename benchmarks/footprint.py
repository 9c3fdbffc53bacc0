"""Resident memory of a real ``memorist serve``: one worker and the whole node, as the store grows and requests pass.

    python benchmarks/footprint.py [--sizes 1000,10000,50000] [--users 1000] [--requests 1000,5000]
                                   [--workers 2] [--embedder default|hashing] [--json OUT]

A node is the gunicorn master and its workers (default 2, as ``memorist serve``
starts). Figures, each an RSS in MiB (and PSS, which counts pages shared
between the forked processes once):

- ``start``: right after ``/health`` answers;
- ``warm``: after ``--probe`` searches (every worker has embedded a query and opened the store);
- ``N memories``: a fresh node on a store of N memories spread over ``--users`` users, after
  ``--probe`` searches across those users (the store is filled between steps with the server
  stopped, through ``VectorStore.upsert`` with synthetic texts and vectors composed from the
  embedder's word vectors, as ``benchmarks/scale.py`` does: relational rows such as entity
  links are not written, so this is the vector side of a store's size);
- ``after R requests``: the same node (largest store) after R requests, four searches to one
  add (``--add-every``; 0 for searches only), from two client threads; the growth per 1,000
  requests between the first and the last checkpoint says whether a request leaves memory
  behind (flat means none).

Uses ``psutil`` when installed, else ``/proc``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ROOT, ServeProcess, hashing_env  # noqa: E402
from memorist.testing.server import code_path  # noqa: E402
from scenarios.scale.data import batch_texts, make_queries, vocabulary  # noqa: E402


def memory_of(pid: int) -> dict[str, float]:
    """RSS and PSS of one process in MiB (psutil, else /proc)."""
    try:
        import psutil

        info = psutil.Process(pid).memory_full_info()
        return {"rss_mb": round(info.rss / 2**20, 1), "pss_mb": round(getattr(info, "pss", 0) / 2**20, 1)}
    except ImportError:
        fields: dict[str, float] = {}
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("Rss", "Pss"):
                fields[f"{key.lower()}_mb"] = round(int(value.split()[0]) / 1024, 1)
        return fields


def children_of(pid: int) -> list[int]:
    try:
        import psutil

        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except ImportError:
        path = Path(f"/proc/{pid}/task/{pid}/children")
        direct = [int(p) for p in path.read_text().split()] if path.exists() else []
        return [*direct, *(grand for child in direct for grand in children_of(child))]


def snapshot(server: ServeProcess, label: str) -> dict[str, Any]:
    """RSS/PSS of the master, of each worker, the largest worker, and the node's sums."""
    assert server.process is not None
    master = server.process.pid
    workers = {pid: memory_of(pid) for pid in children_of(master)}
    node = [memory_of(master), *workers.values()]
    out = {
        "label": label,
        "master": node[0],
        "workers": list(workers.values()),
        "worker_rss_mb": max(w["rss_mb"] for w in workers.values()),
        "node_rss_mb": round(sum(p["rss_mb"] for p in node), 1),
        "node_pss_mb": round(sum(p.get("pss_mb", 0.0) for p in node), 1),
    }
    print(
        f"{label:<28} worker {out['worker_rss_mb']:7.1f} MiB   node RSS {out['node_rss_mb']:7.1f} MiB   "
        f"node PSS {out['node_pss_mb']:7.1f} MiB   ({len(workers)} workers)",
        flush=True,
    )
    return out


class Node:
    """``memorist serve`` on ``data_dir`` with a random admin key."""

    def __init__(self, env: dict[str, str], workers: int, workdir: Path) -> None:
        self.env, self.workers, self.workdir = env, workers, workdir
        self.headers = {"X-API-Key": env["ADMIN_API_KEY"]}
        self.server: ServeProcess | None = None

    def start(self) -> ServeProcess:
        self.server = ServeProcess(self.env, workers=self.workers, log_path=self.workdir / "serve.log", cwd=ROOT)
        self.server.start(timeout=300.0)
        return self.server

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server.kill()
            self.server = None

    def search(self, query: str, user: str) -> None:
        assert self.server is not None
        body = {"query": query, "user_id": user, "top_k": 10}
        self.server.post("/search", json=body, headers=self.headers, timeout=120).raise_for_status()

    def add(self, text: str, user: str) -> None:
        assert self.server is not None
        body = {"messages": [{"role": "user", "content": text}], "user_id": user}
        self.server.post("/memories", json=body, headers=self.headers, timeout=120).raise_for_status()


def fill(target: int, users: int, seed: int) -> int:
    """Upsert synthetic memories (this process's settings: the node's environment) until the store holds ``target``."""
    from memorist import Engine
    from memorist.records import MemoryRecord, normalized_hash

    memory = Engine.from_config()
    store, embedder = memory.components.vector_store, memory.components.embedder
    have = store.count()
    words = embedder.embed(vocabulary(), "document").astype(np.float32)
    base = datetime(2024, 1, 1, tzinfo=UTC)
    for start in range(have, target, 2000):
        count = min(2000, target - start)
        rng = np.random.default_rng([seed, start])
        texts, slots = batch_texts(rng, count)
        vectors = words[slots].mean(axis=1)
        vectors += rng.standard_normal(vectors.shape, dtype=np.float32) * (0.3 / np.sqrt(vectors.shape[1]))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        records = []
        for offset, text in enumerate(texts):
            row, moment = start + offset, base + timedelta(seconds=start + offset)
            records.append(
                MemoryRecord.model_construct(
                    id=f"00000000-0000-4000-8000-{row:012d}", text=text, hash=normalized_hash(text),
                    org_id="default", project_id="default", user_id=f"u{row % users}", agent_id=None,
                    run_id=None, app_id=None, categories=[], metadata={"row": row}, attributed_to="user",
                    speaker=None, source_message=0, observed_at=moment, created_at=moment, updated_at=moment,
                    expires_at=None,
                )
            )  # fmt: skip
        store.upsert(records, vectors)
    if hasattr(store, "optimize"):
        store.optimize()  # folds the rows into the full-text and scalar indexes, as a long-lived store would be
    total = int(store.count())
    memory.close()
    return total


def drive(node: Node, count: int, users: int, queries: list[str], seed: int, add_every: int, clients: int = 2) -> None:
    """``count`` requests from ``clients`` threads: every ``add_every``-th an add (0: none), else a search."""

    def client(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        for i in range(index, count, clients):
            user = f"u{rng.randrange(users)}"
            if add_every and i % add_every == add_every - 1:
                node.add(f"Request {i} says {rng.choice(queries).rstrip('?')} happened again.", user)
            else:
                node.search(rng.choice(queries), user)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,50000", help="store sizes, ascending")
    parser.add_argument("--users", type=int, default=1000, help="users the memories are spread over")
    parser.add_argument("--requests", default="1000,5000", help="request-count checkpoints, ascending")
    parser.add_argument("--probe", type=int, default=100, help="searches before each store-size figure")
    parser.add_argument("--add-every", type=int, default=5, help="every Nth request is an add (0: searches only)")
    parser.add_argument(
        "--env", action="append", default=[], metavar="KEY=VALUE", help="extra server settings (repeatable)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--embedder", choices=("default", "hashing"), default="default")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--workdir", type=Path, help="default: a fresh temporary directory")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    checkpoints = [int(r) for r in args.requests.split(",") if r]

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memorist-footprint-"))
    workdir.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env.update(
        MEMORIST_DATA_DIR=str(workdir / "data"),
        ADMIN_API_KEY=secrets.token_hex(16),
        JWT_SECRET=secrets.token_hex(24),
        HF_HUB_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        PYTHONPATH=code_path(),
    )
    if args.embedder == "hashing":
        env.update(hashing_env())
    env.update(item.split("=", 1) for item in args.env)
    os.environ.clear()
    os.environ.update(env)  # fill() opens the store exactly as the node's workers do
    queries = make_queries(50, args.seed)
    node = Node(env, args.workers, workdir)
    figures: dict[str, Any] = {
        "workers": args.workers,
        "embedder": args.embedder,
        "users": args.users,
        "add_every": args.add_every,
        "env": args.env,
        "steps": [],
    }
    figures["load_average_before"] = os.getloadavg()

    def probe() -> None:
        rng = random.Random(args.seed)
        for i in range(args.probe):
            node.search(queries[i % len(queries)], f"u{rng.randrange(args.users)}")

    try:
        server = node.start()
        figures["steps"].append(snapshot(server, "start (empty store)"))
        probe()
        figures["steps"].append(snapshot(server, f"warm ({args.probe} searches)"))
        for size in sizes:
            node.stop()
            began = time.perf_counter()
            stored = fill(size, args.users, args.seed)
            print(f"filled to {stored} memories in {time.perf_counter() - began:.0f} s", flush=True)
            server = node.start()
            probe()
            step = snapshot(server, f"{stored} memories")
            figures["steps"].append({**step, "memories": stored})
        done = 0
        for checkpoint in checkpoints:
            began = time.perf_counter()
            drive(node, checkpoint - done, args.users, queries, args.seed + checkpoint, args.add_every)
            rate = (checkpoint - done) / (time.perf_counter() - began)
            done = checkpoint
            assert node.server is not None
            step = snapshot(node.server, f"after {checkpoint} requests")
            figures["steps"].append({**step, "requests": checkpoint, "requests_per_s": round(rate, 1)})
    finally:
        node.stop()
    by_requests = [s for s in figures["steps"] if "requests" in s]
    if len(by_requests) >= 2:
        first, last = by_requests[0], by_requests[-1]
        per_k = 1000 / (last["requests"] - first["requests"])
        figures["growth_per_1000_requests_mb"] = {
            "worker_rss": round((last["worker_rss_mb"] - first["worker_rss_mb"]) * per_k, 2),
            "node_rss": round((last["node_rss_mb"] - first["node_rss_mb"]) * per_k, 2),
            "node_pss": round((last["node_pss_mb"] - first["node_pss_mb"]) * per_k, 2),
        }
        growth = figures["growth_per_1000_requests_mb"]
        print(f"growth per 1,000 requests ({first['requests']} -> {last['requests']}), MiB: {growth}")
    figures["load_average_after"] = os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
