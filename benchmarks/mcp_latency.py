"""How fast ``memorist mcp`` starts, and what MCP adds to a search, against the Python API.

    python benchmarks/mcp_latency.py                       # embedded default (MiniLM, LanceDB, SQLite)
    python benchmarks/mcp_latency.py --config configs/x.yaml --memories 2000 --starts 5
    python benchmarks/mcp_latency.py --http              # also /mcp vs POST /search on memorist serve

Measured, on one data directory seeded with ``--memories`` memories of one user:

- ``python_api``: ``Memory.search`` in this process (warm), p50/p95;
- ``stdio_start``: a fresh ``memorist mcp`` process spawned by the official
  client SDK until the ``initialize`` handshake and ``tools/list`` answered
  (what a desktop client waits for before the server is usable), per start,
  in wall-clock time and in the CPU time the server process used until then
  (what an idle machine would wait; read from ``/proc``);
- ``stdio_first_search``: from spawning to the first search result (includes
  loading the embedding model, which the server does in the background while
  the handshake answers);
- ``stdio_search``: ``search_memories`` over the stdio pipe once warm, p50/p95:
  the Python API's time plus JSON-RPC framing, validation and the pipe;
- with ``--http``: ``search_memories`` through ``/mcp`` against ``POST /search``
  on one ``memorist serve`` worker (both over HTTP, same engine).

The figures depend on the machine and on whatever else runs on it: report
them with the load they were taken under.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOPICS = ("hiking", "cooking", "jazz", "chess", "gardening", "sailing", "photography", "pottery", "running", "poetry")
PLACES = ("Lisbon", "Oslo", "Kyoto", "Quito", "Perth", "Tallinn", "Accra", "Bergen", "Cusco", "Hanoi")


def facts(count: int) -> list[str]:
    out = []
    for i in range(count):
        topic, place = TOPICS[i % len(TOPICS)], PLACES[(i // 10) % len(PLACES)]
        out.append(f"Friend number {i} loves {topic} and moved to {place} in {2000 + i % 25}.")
    return out


def queries(count: int) -> list[str]:
    return [f"who likes {TOPICS[i % len(TOPICS)]} in {PLACES[(i * 3) % len(PLACES)]}" for i in range(count)]


def server_cpu_seconds() -> float | None:
    """CPU time (user + system) used so far by the ``memorist mcp`` child of this process.

    Wall-clock figures on a shared machine mostly measure the other tenants; the
    CPU the server spent until its handshake is what an idle machine would wait."""
    tick = os.sysconf("SC_CLK_TCK")
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                if b"memorist.cli" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                    continue
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            return (int(fields[11]) + int(fields[12])) / tick
    return None


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(samples), 1),
        "p95_ms": round(percentile(samples, 0.95), 1),
        "n": len(samples),
    }


def seed_and_time_api(config: str | None, data_dir: Path, memories: int, searches: int) -> dict[str, Any]:
    from memorist.config.settings import load_settings
    from memorist.python.engine import Engine

    memory = Engine.from_config(load_settings(config, {"data_dir": str(data_dir)}))
    try:
        if memory.list(user_id="bench", page_size=1).total < memories:
            for start in range(0, memories, 100):
                batch = facts(memories)[start : start + 100]
                memory.add([{"role": "user", "content": text} for text in batch], user_id="bench", infer=False)
        asked = queries(searches)
        for query in asked[:3]:
            memory.search(query, user_id="bench")
        samples = []
        for query in asked:
            began = time.perf_counter()
            memory.search(query, user_id="bench", top_k=10)
            samples.append((time.perf_counter() - began) * 1000)
        return summary(samples)
    finally:
        memory.close()


async def one_stdio_run(config: str | None, data_dir: Path, searches: int) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters

    args = ["-m", "memorist.cli", "mcp", "--data-dir", str(data_dir), "--user-id", "bench"]
    if config:
        args += ["--config", config]
    server = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ), cwd=str(ROOT))
    began = time.perf_counter()
    async with Client(server, mode="legacy", read_timeout_seconds=300) as client:
        await client.list_tools()
        started = (time.perf_counter() - began) * 1000
        start_cpu = server_cpu_seconds()
        first = await client.call_tool("search_memories", {"query": queries(1)[0]})
        assert not first.is_error, first.content
        first_search = (time.perf_counter() - began) * 1000
        first_search_cpu = server_cpu_seconds()
        samples = []
        for query in queries(searches):
            t0 = time.perf_counter()
            result = await client.call_tool("search_memories", {"query": query, "top_k": 10})
            samples.append((time.perf_counter() - t0) * 1000)
            assert not result.is_error, result.content
    return {
        "start_ms": round(started, 1),
        "start_cpu_s": start_cpu,
        "first_search_ms": round(first_search, 1),
        "first_search_cpu_s": first_search_cpu,
        "searches": samples,
    }


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def time_http(config: str | None, data_dir: Path, searches: int) -> dict[str, Any]:
    """``/mcp`` vs ``POST /search`` on one ``memorist serve`` worker (auth disabled: a local benchmark)."""
    import subprocess
    import urllib.request

    port = free_port()
    args = [sys.executable, "-m", "memorist.cli", "serve", "--port", str(port), "--workers", "1"]
    args += ["--data-dir", str(data_dir)] + (["--config", config] if config else [])
    env = {**os.environ, "AUTH_DISABLED": "true"}
    server = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=str(ROOT))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                urllib.request.urlopen(f"{base}/health", timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("memorist serve did not start") from None
                time.sleep(0.5)

        def rest(query: str) -> None:
            body = json.dumps({"query": query, "user_id": "bench", "top_k": 10}).encode()
            request = urllib.request.Request(f"{base}/search", body, {"Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=60).read()

        asked = queries(searches)
        for query in asked[:3]:
            rest(query)
        rest_samples = []
        for query in asked:
            t0 = time.perf_counter()
            rest(query)
            rest_samples.append((time.perf_counter() - t0) * 1000)
        mcp_samples = asyncio.run(mcp_http_searches(f"{base}/mcp", asked))
        return {"rest_search": summary(rest_samples), "mcp_http_search": summary(mcp_samples)}
    finally:
        server.terminate()
        server.wait(60)


async def mcp_http_searches(url: str, asked: list[str]) -> list[float]:
    from mcp import Client

    samples = []
    async with Client(url, mode="legacy") as client:
        for query in asked[:3]:
            await client.call_tool("search_memories", {"query": query, "user_id": "bench"})
        for query in asked:
            t0 = time.perf_counter()
            result = await client.call_tool("search_memories", {"query": query, "user_id": "bench", "top_k": 10})
            samples.append((time.perf_counter() - t0) * 1000)
            assert not result.is_error, result.content
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="YAML config (default: the embedded default)")
    parser.add_argument("--data-dir", type=Path, help="data directory (default: a temporary one)")
    parser.add_argument("--memories", type=int, default=500, help="memories seeded for the user 'bench'")
    parser.add_argument("--searches", type=int, default=50, help="timed searches per measurement")
    parser.add_argument("--starts", type=int, default=3, help="fresh stdio processes started")
    parser.add_argument("--http", action="store_true", help="also time /mcp and POST /search on memorist serve")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="memorist-mcp-bench-") as scratch:
        data_dir = args.data_dir or Path(scratch) / "data"
        api = seed_and_time_api(args.config, data_dir, args.memories, args.searches)
        print(f"python_api search      p50 {api['p50_ms']:8.1f} ms   p95 {api['p95_ms']:8.1f} ms", flush=True)
        runs = [asyncio.run(one_stdio_run(args.config, data_dir, args.searches)) for _ in range(args.starts)]
        http = time_http(args.config, data_dir, args.searches) if args.http else None
    starts = [r["start_ms"] for r in runs]
    firsts = [r["first_search_ms"] for r in runs]
    searches = summary([s for r in runs for s in r["searches"]])
    print(f"stdio start (init)     {' '.join(f'{s / 1000:.2f}s' for s in starts)}   max {max(starts) / 1000:.2f} s")
    cpus = [r["start_cpu_s"] for r in runs]
    print(f"stdio start CPU        {' '.join(f'{c:.2f}s' if c is not None else '?' for c in cpus)}")
    print(f"stdio first search     {' '.join(f'{s / 1000:.2f}s' for s in firsts)}")
    first_cpus = [r["first_search_cpu_s"] for r in runs]
    print(f"stdio first search CPU {' '.join(f'{c:.2f}s' if c is not None else '?' for c in first_cpus)}")
    print(f"stdio search (warm)    p50 {searches['p50_ms']:8.1f} ms   p95 {searches['p95_ms']:8.1f} ms")
    print(f"transport overhead     p50 {searches['p50_ms'] - api['p50_ms']:+8.1f} ms")
    if http is not None:
        rest, over_http = http["rest_search"], http["mcp_http_search"]
        print(f"REST POST /search      p50 {rest['p50_ms']:8.1f} ms   p95 {rest['p95_ms']:8.1f} ms")
        print(f"MCP over HTTP search   p50 {over_http['p50_ms']:8.1f} ms   p95 {over_http['p95_ms']:8.1f} ms")
    figures = {
        "memories": args.memories,
        "config": args.config or "default",
        "python_api_search": api,
        "stdio_start_ms": starts,
        "stdio_start_cpu_s": cpus,
        "stdio_first_search_ms": firsts,
        "stdio_first_search_cpu_s": first_cpus,
        "stdio_search": searches,
        **(http or {}),
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if max(starts) < 3000 else 1


if __name__ == "__main__":
    sys.exit(main())
