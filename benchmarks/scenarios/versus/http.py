"""Memorist's single searches over HTTP: a real ``memorist serve`` on the data the run just loaded.

Why a real server and not the in-process test client: the figure a user sees
from another process includes gunicorn, the socket round trip and the JSON
both ways. One worker (a sequential client keeps one busy), the default
configuration otherwise; the in-process engine is closed first, so the server
is the only process on the data directory.
"""

from __future__ import annotations

import os
import secrets
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import ROOT, ServeProcess, percentile
from memorist.testing.server import code_path


def measure_http(
    data_dir: Path,
    questions: Sequence[tuple[str, str, set[str]]],
    top_k: int,
    count: int,
    warmup: int = 3,
    config: Path | None = None,
) -> dict[str, Any]:
    """p50/p95 of ``count`` sequential ``POST /search`` (``threshold`` 0) and the recall@10/@top_k they give."""
    admin_key = secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env.update(
        {
            "MEMORIST_DATA_DIR": str(data_dir),
            "ADMIN_API_KEY": admin_key,
            "JWT_SECRET": secrets.token_hex(24),
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "PYTHONPATH": code_path(),
        }
    )
    server = ServeProcess(env, workers=1, log_path=data_dir.parent / "memorist-serve.log", cwd=ROOT, config=config)
    latencies: list[float] = []
    recalls: dict[int, list[float]] = {10: [], top_k: []}
    try:
        server.start(timeout=300.0)
        headers = {"X-API-Key": admin_key}
        for i in range(warmup + count):
            user, query, wanted = questions[i % len(questions)]
            body = {"query": query, "user_id": user, "top_k": top_k, "threshold": 0.0}
            began = time.perf_counter()
            answer = server.session.post(f"{server.url}/search", json=body, headers=headers, timeout=120)
            elapsed = (time.perf_counter() - began) * 1000
            answer.raise_for_status()
            if i < warmup:
                continue
            latencies.append(elapsed)
            ranked = [(hit.get("metadata") or {}).get("dia_id") for hit in answer.json()["results"]]
            for k in recalls:
                recalls[k].append(len(wanted & set(ranked[:k])) / len(wanted))
    finally:
        server.stop()
        server.kill()
    return {
        "searches": len(latencies),
        "workers": 1,
        "search_p50_ms": round(statistics.median(latencies), 2),
        "search_p95_ms": round(percentile(latencies, 0.95), 2),
        "recall": {f"@{k}": round(statistics.mean(v), 4) for k, v in sorted(recalls.items())},
    }
