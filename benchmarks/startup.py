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
import urllib.request
from pathlib import Path
from typing import Any

TARGETS = {"help": 0.5, "memory": 3.0, "serve_health": 3.0}
#: A first start on an empty graph cache (``--cold``).
COLD_TARGETS = {"help": 0.5, "memory": 5.0, "serve_health": 5.0}
MEMORIST = str(Path(sys.executable).parent / "memorist")
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


def serve_to_health(cwd: Path) -> float:
    """Seconds from launching ``memorist serve`` to the first 200 from ``/health``."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [MEMORIST, "serve", "--port", str(port)],
        cwd=cwd,
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"memorist serve exited with {process.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - started
            except OSError:
                time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


MEASUREMENTS = {
    "help": lambda cwd: timed([MEMORIST, "--help"], cwd),
    "memory": lambda cwd: timed(python("from memorist import Memory; Memory()"), cwd),
    "serve_health": serve_to_health,
    # stages, each alone in a fresh interpreter
    "python_alone": lambda cwd: timed(python("pass"), cwd),
    "import_facade": lambda cwd: timed(python("import memorist.facade"), cwd),
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
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(MEASUREMENTS)
    results: dict[str, Any] = {
        "load_average_before": os.getloadavg(),
        "runs": args.runs,
        "cold": args.cold,
        "median_seconds": {},
    }
    workdir = Path(tempfile.mkdtemp(prefix="memorist-startup-"))
    targets = COLD_TARGETS if args.cold else TARGETS
    try:
        GRAPH_CACHE["path"] = workdir / "graph-cache"
        if not args.cold:
            warm_up(workdir)
        for name in names:
            if name == "import_torch" and importlib.util.find_spec("torch") is None:
                print(f"{name:22s} -- torch is not installed (the lean install)")
                continue
            samples = []
            for _ in range(args.runs):
                run_dir = workdir / f"{name}-{len(samples)}"
                run_dir.mkdir()
                if args.cold:
                    GRAPH_CACHE["path"] = run_dir / "graph-cache"  # empty: this start prepares the graph
                samples.append(MEASUREMENTS[name](run_dir))
            median = statistics.median(samples)
            results["median_seconds"][name] = round(median, 3)
            target = targets.get(name)
            verdict = "" if target is None else (" (target met)" if median < target else f" (target {target} s)")
            print(f"{name:22s} {median:7.3f} s{verdict}   runs: {', '.join(f'{s:.2f}' for s in samples)}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    results["load_average_after"] = os.getloadavg()
    print(f"load average before {results['load_average_before']}, after {results['load_average_after']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
