"""How long a first-time user waits: ``memorist --help``, ``Memory()``, ``memorist serve`` to ``/health``.

Each figure is the median of ``--runs`` fresh processes after one warm-up (the warm-up
prepares the embedder's ONNX graph once, as the first start on a machine does, and waits
for its fused copy). ``--cold`` measures first starts instead: every run gets an empty
graph cache and data directory, as a fresh clone on a new machine has (targets: ``/health``
within 5 s). The stages that dominate are timed alone too (``import lancedb``, plain and as
the store imports it, importing the facade, torch), so a missed target names what prevents
it. The graph cache is the benchmark's own (``MEMORIST_MODEL_CACHE``), never the user's. The
machine's load average is recorded beside the figures: on a shared machine they are only
indicative.

``serve_health`` launches ``memorist serve`` with two workers and reports three figures: the
first ``/health`` 200 (liveness, answered before a worker's engine is built), the first
``/ready`` 200 (one worker's engine built) and ``serve_all_ready`` (both workers logged
"Worker ready": no request waits any more). ``--alternate N`` runs N cold/warm pairs back to
back (on one graph cache per pair), the way figures on a loaded host can be compared.

    python benchmarks/startup.py --runs 5 --json startup.json
    python benchmarks/startup.py --cold --runs 3 --only memory,serve_health
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

TARGETS = {"help": 0.5, "memory": 3.0, "serve_health": 3.0}
#: ``serve_health`` also yields these (one launch measures all three).
SERVE_FIGURES = ("serve_health", "serve_ready", "serve_all_ready")
#: A first start on an empty graph cache (``--cold``).
COLD_TARGETS = {"help": 0.5, "memory": 5.0, "serve_health": 5.0}
MEMORIST = str(Path(sys.executable).parent / "memorist")
#: What each worker of ``memorist serve`` logs once its engine is built (memorist.serve.gunicorn_app.READY_LINE).
READY_LINE = b"Worker ready: engine built"
#: The graph cache every measured process uses (set in main: the benchmark's own directory).
GRAPH_CACHE: dict[str, Path] = {}


def env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_") and k != "JWT_SECRET"}
    clean.setdefault("HF_HUB_OFFLINE", "1")
    if "path" in GRAPH_CACHE:
        clean["MEMORIST_MODEL_CACHE"] = str(GRAPH_CACHE["path"])
    return clean


def timed(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env(), check=True, capture_output=True, timeout=300)
    return time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_to_health(cwd: Path) -> dict[str, float]:
    """Seconds from launching ``memorist serve`` (two workers) to the first 200 from ``/health``
    (liveness: a worker answers it before its engine is built), from ``/ready`` (one worker's engine
    built) and to both workers' "Worker ready" log lines (everything served without waiting)."""
    port = free_port()
    log_path = cwd / "serve.log"
    found: dict[str, float] = {}
    started = time.perf_counter()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [MEMORIST, "serve", "--port", str(port), "--workers", "2"],
            cwd=cwd,
            env=env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        legacy = False  # code from before /ready (404, no "Worker ready" line): /health alone
        while len(found) < 3 and not (legacy and "serve_health" in found):
            if process.poll() is not None:
                raise RuntimeError(f"memorist serve exited with {process.returncode}:\n{log_path.read_text()}")
            for name, path in (("serve_health", "/health"), ("serve_ready", "/ready")):
                if name in found:
                    continue
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
                        if answer.status == 200:
                            found[name] = time.perf_counter() - started
                except urllib.error.HTTPError as refused:
                    legacy = legacy or (path == "/ready" and refused.code == 404)
                except OSError:
                    pass
            if "serve_all_ready" not in found and log_path.read_bytes().count(READY_LINE) >= 2:
                found["serve_all_ready"] = time.perf_counter() - started
            time.sleep(0.02)
        return found
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:  # it exited by itself (the error above names why)
            pass
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


MEASUREMENTS: dict[str, Any] = {
    "help": lambda cwd: timed([MEMORIST, "--help"], cwd),
    "memory": lambda cwd: timed(python("from memorist import Memory; Memory()"), cwd),
    "serve_health": serve_to_health,
    # stages, each alone in a fresh interpreter
    "python_alone": lambda cwd: timed(python("pass"), cwd),
    "import_facade": lambda cwd: timed(python("import memorist.python.memory"), cwd),
    "import_lancedb": lambda cwd: timed(python("import lancedb"), cwd),
    # the store's way (after the plugin, LanceDB's REST namespace client deferred: see
    # memorist_lancedb.deferred_client) against the plain import after the plugin
    "import_plugin_then_lancedb": lambda cwd: timed(python("import memorist_lancedb, lancedb"), cwd),
    "import_plugin_then_lancedb_as_the_store_does": lambda cwd: timed(
        python("import memorist_lancedb.deferred_client as d; d.defer_namespace_client(); import lancedb"), cwd
    ),
    "import_torch": lambda cwd: timed(python("import torch"), cwd),
    "memory_imports_torch": lambda cwd: float(
        subprocess.run(
            python("import sys; from memorist import Memory; Memory(); print(int('torch' in sys.modules))"),
            cwd=cwd,
            env=env(),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    ),
}


def warm_up(workdir: Path) -> None:
    """Prepare the graph cache as a machine's first start does, and wait for its fused copy
    (a server's background thread makes it; a short-lived process would leave it unfinished)."""
    run_dir = workdir / "warm-up"
    run_dir.mkdir()
    timed(python(PREPARE_GRAPH), run_dir)
    timed(python("from memorist import Memory; Memory()"), run_dir)


PREPARE_GRAPH = (
    "from memorist.plugin_api import resolve_model_path\n"
    "from memorist_sentence_transformers.onnx_runtime import CacheMiss, OnnxSentenceEncoder, SessionTuning\n"
    "from memorist_sentence_transformers.onnx_runtime import default_cache_dir\n"
    "path, cache, tuning = resolve_model_path('all-MiniLM-L6-v2', 'model'), default_cache_dir(), SessionTuning()\n"
    "try:\n"
    "    encoder = OnnxSentenceEncoder.from_cache(path, cache, tuning)\n"
    "except CacheMiss:\n"
    "    encoder = OnnxSentenceEncoder.assemble(path, cache, tuning)\n"
    "if encoder.preparing is not None:\n"
    "    encoder.preparing.join()\n"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", help="comma-separated measurement names")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--cold", action="store_true", help="first starts: an empty graph cache for every run")
    parser.add_argument(
        "--alternate", type=int, metavar="N", help="N cold/warm pairs, alternated (each run's load average printed)"
    )
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(MEASUREMENTS)
    results: dict[str, Any] = {
        "load_average_before": os.getloadavg(),
        "runs": args.runs,
        "cold": args.cold,
        "median_seconds": {},
    }
    workdir = Path(tempfile.mkdtemp(prefix="memorist-startup-"))
    try:
        GRAPH_CACHE["path"] = workdir / "graph-cache"
        if args.alternate:
            results["pairs"] = alternate(workdir, names, args.alternate)
        else:
            if not args.cold:
                warm_up(workdir)
            measure(workdir, names, args.runs, args.cold, results)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    results["load_average_after"] = os.getloadavg()
    print(f"load average before {results['load_average_before']}, after {results['load_average_after']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def measure(workdir: Path, names: list[str], runs: int, cold: bool, results: dict[str, Any]) -> None:
    """Each measurement ``runs`` times in fresh processes; medians and runs printed and kept in ``results``."""
    targets = COLD_TARGETS if cold else TARGETS
    for name in names:
        if name == "import_torch" and importlib.util.find_spec("torch") is None:
            print(f"{name:22s} -- torch is not installed (the lean install)")
            continue
        samples: dict[str, list[float]] = {}
        for run in range(runs):
            run_dir = Path(tempfile.mkdtemp(prefix=f"{name}-{run}-", dir=workdir))
            if cold:
                GRAPH_CACHE["path"] = run_dir / "graph-cache"  # empty: this start prepares the graph
            measured = MEASUREMENTS[name](run_dir)
            for figure, value in (measured if isinstance(measured, dict) else {name: measured}).items():
                samples.setdefault(figure, []).append(value)
        for figure, values in samples.items():
            median = statistics.median(values)
            results["median_seconds"][figure] = round(median, 3)
            results.setdefault("runs_seconds", {})[figure] = [round(v, 3) for v in values]
            target = targets.get(figure)
            verdict = "" if target is None else (" (target met)" if median <= target else f" (target {target} s)")
            print(f"{figure:22s} {median:7.3f} s{verdict}   runs: {', '.join(f'{v:.2f}' for v in values)}")


def alternate(workdir: Path, names: list[str], pairs: int) -> list[dict[str, Any]]:
    """``pairs`` times: one cold run (an empty graph cache), then one warm run (the cache prepared once)."""
    warm_cache = workdir / "graph-cache"
    warm_up(workdir)
    found = []
    for pair in range(pairs):
        for cold in (True, False):
            GRAPH_CACHE["path"] = warm_cache
            row: dict[str, Any] = {"pair": pair, "cold": cold, "load_average": os.getloadavg()[0]}
            results: dict[str, Any] = {"median_seconds": {}}
            print(f"-- pair {pair + 1}, {'cold' if cold else 'warm'}, load average {row['load_average']:.2f}")
            measure(workdir, names, 1, cold, results)
            row.update(results["median_seconds"])
            found.append(row)
    return found


if __name__ == "__main__":
    sys.exit(main())
