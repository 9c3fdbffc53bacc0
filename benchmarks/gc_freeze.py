"""What a served worker's full garbage collections cost, with and without ``server.gc_freeze``.

    python benchmarks/gc_freeze.py --adds 800

Builds the app as a ``memorist serve`` worker builds it (``MemoristGunicorn._build_app``:
the shipped default providers, a fresh temporary data directory), once with
``server.gc_freeze: false`` and once with ``true``, each in a process of its own, and
prints for each:

- the objects the cyclic collector tracks once the app is built, and how many are frozen;
- the time of one full (generation 2) collection then (median of 5, ``gc.collect(2)``);
- ``--adds`` adds of one short message each through the HTTP app in process
  (``falcon.testing.TestClient``, ``POST /memories``, the admin key), with every
  collection the interpreter ran meanwhile timed by ``gc.callbacks``: how many full
  collections, their mean and longest time, and the time spent in all collections per add.

Milliseconds are wall time on whatever machine runs it (noisy on a shared host):
compare the two lines of one run.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ADMIN_KEY = "gc-freeze-admin-key-0123456789abcdef"
SENTENCES = [
    "I moved to Lisbon in {n} and I work as a nurse.",
    "My daughter Ana plays the cello every {n}th day.",
    "I'm allergic to peanuts, so no satay for me at dinner {n}.",
    "We adopted a dog called Biscuit, he is {n} months old.",
]


def measure(freeze: bool, adds: int) -> dict[str, Any]:
    """One worker-like process: build, time full collections, then ``adds`` adds over HTTP."""
    import falcon.testing
    from memorist.config.settings import load_settings
    from memorist.serve.gunicorn_app import MemoristGunicorn

    with tempfile.TemporaryDirectory(prefix="memorist-gc-", ignore_cleanup_errors=True) as tmp:
        overrides = {"data_dir": tmp, "auth": {"admin_api_key": ADMIN_KEY}, "server": {"gc_freeze": freeze}}
        worker = MemoristGunicorn(load_settings(None, overrides))
        app = worker._build_app()
        tracked, frozen = len(gc.get_objects()), gc.get_freeze_count()
        full = []
        for _ in range(5):
            started = time.perf_counter()
            gc.collect(2)
            full.append(time.perf_counter() - started)

        pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        began: list[float] = []

        def timed(phase: str, info: dict[str, int]) -> None:
            if phase == "start":
                began.append(time.perf_counter())
            elif began:
                pauses[info["generation"]].append(time.perf_counter() - began.pop())

        client = falcon.testing.TestClient(app)
        headers = {"X-API-Key": ADMIN_KEY}
        gc.callbacks.append(timed)
        started = time.perf_counter()
        for n in range(adds):
            body = {"messages": [{"role": "user", "content": SENTENCES[n % 4].format(n=n)}], "user_id": f"u{n % 20}"}
            answer = client.simulate_post("/memories", headers=headers, json=body)
            assert answer.status_code < 300, answer.text
        elapsed = time.perf_counter() - started
        gc.callbacks.remove(timed)
        worker.kernel.close()
    in_gc = sum(sum(p) for p in pauses.values())
    return {
        "gc_freeze": freeze,
        "tracked": tracked,
        "frozen": frozen,
        "full_ms": statistics.median(full) * 1000,
        "adds": adds,
        "adds_per_s": adds / elapsed,
        "full_collections": len(pauses[2]),
        "full_mean_ms": statistics.mean(pauses[2]) * 1000 if pauses[2] else 0.0,
        "full_max_ms": max(pauses[2], default=0.0) * 1000,
        "gc_ms_per_add": in_gc * 1000 / adds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adds", type=int, default=800)
    parser.add_argument("--one", choices=["on", "off"], help=argparse.SUPPRESS)  # a child process's mode
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one == "on", args.adds)))
        return
    print(f"python {sys.version.split()[0]}, {args.adds} adds per mode, each mode in a fresh process")
    print("gc_freeze  tracked  frozen  full gc   adds/s  full gcs  mean full  max full  gc ms/add")
    for mode in ("off", "on"):
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--adds", str(args.adds), "--one", mode],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(
            f"{mode:>9} {r['tracked']:>8,} {r['frozen']:>7,} {r['full_ms']:>6.1f} ms {r['adds_per_s']:>7.1f}"
            f" {r['full_collections']:>9} {r['full_mean_ms']:>7.1f} ms {r['full_max_ms']:>6.1f} ms"
            f" {r['gc_ms_per_add']:>9.3f}"
        )


if __name__ == "__main__":
    main()
