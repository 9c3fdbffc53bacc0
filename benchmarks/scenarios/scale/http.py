"""The same searches over HTTP: a one-worker ``memorist serve`` on the loaded data."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from harness import ROOT, ServeProcess, percentile

from .config import ADMIN_KEY, server_env


def measure_http(spec: dict[str, Any], mode: str, count: int, workdir: Path) -> dict[str, Any]:
    """A one-worker ``memorist serve`` on the same data; sequential ``POST /search``; its RSS afterwards."""
    import psutil

    server = ServeProcess(
        server_env(spec, mode),
        workers=1,
        log_path=workdir / f"server-{spec['store']}-{spec['size']}-{mode}.log",
        cwd=ROOT,
    )
    http = server.session
    url = server.url
    try:
        server.start(timeout=300.0)
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
        assert server.process is not None
        tree = [psutil.Process(server.process.pid), *psutil.Process(server.process.pid).children(recursive=True)]
        server_rss = round(sum(p.memory_info().rss for p in tree) / 2**20, 1)
    finally:
        server.stop()
        server.kill()
    return {
        "http_p50_ms": round(statistics.median(latencies), 2),
        "http_p95_ms": round(percentile(latencies, 0.95), 2),
        "server_rss_mb": server_rss,
    }
