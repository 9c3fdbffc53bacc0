"""Fact retention: say each statement of the suite once, ask for it back.

    python benchmarks/retention.py [--config FILE] [--surface python|selfhosted|platform|all] [--json OUT]

Replays ``tests/retention/statements.yaml`` (written for this suite) into one
user's memory through the chosen doors and prints, per door: the share of
distinct facts stored, retention (found in the top 5 by their question), the
false-duplicate rate (distinct facts merged away) and the true-duplicate rate
(exact and paraphrase repeats merged), then every failure. The default
configuration is the embedded default (heuristic extractor, all-MiniLM-L6-v2,
LanceDB, SQLite) in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import falcon.testing  # noqa: E402
from memorist.config.settings import load_settings  # noqa: E402
from memorist.http import create_app  # noqa: E402
from memorist.kernel.core import Kernel  # noqa: E402
from memorist.python.engine import Engine  # noqa: E402

from tests.retention.doors import PlatformDoor, PythonDoor, SelfHostedDoor, platform_key  # noqa: E402
from tests.retention.suite import Door, Report, run  # noqa: E402


def measure(surface: str, config: Path | None, data_dir: Path) -> Report:
    overrides: dict[str, Any] = {
        "data_dir": str(data_dir),
        "queue": {"workers": 1, "poll_seconds": 0.02},
        "request_log": {"enabled": False},  # its buffer would flush into a deleted directory at exit
    }
    settings = load_settings(config, overrides)
    if surface == "python":
        memory = Engine.from_settings(settings)
        try:
            return run(PythonDoor(memory))
        finally:
            memory.close()
    if surface == "selfhosted":
        # falcon.testing's Host is served by an auth-disabled app only when listed (memorist.http.hosts).
        settings = load_settings(
            config, {**overrides, "auth": {"disabled": True}, "server": {"allowed_hosts": ["falconframework.org"]}}
        )
    kernel = Kernel.build(settings)
    try:
        client = falcon.testing.TestClient(create_app(kernel))
        door: Door = SelfHostedDoor(client) if surface == "selfhosted" else PlatformDoor(client, platform_key(data_dir))
        return run(door)
    finally:
        kernel.close()  # the queue workers and the watcher stop before the directory goes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--surface", choices=("python", "selfhosted", "platform", "all"), default="python")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    surfaces = ("python", "selfhosted", "platform") if args.surface == "all" else (args.surface,)
    results: dict[str, Any] = {}
    for surface in surfaces:
        with tempfile.TemporaryDirectory(prefix="memorist-retention-", ignore_cleanup_errors=True) as tmp:
            started = time.perf_counter()
            report = measure(surface, args.config, Path(tmp))
            figures = {**report.figures(), "seconds": round(time.perf_counter() - started, 1)}
        results[surface] = {**figures, "failures": report.failures, "older_first": report.older_first}
        print(f"{surface}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))
        for failure in report.failures:
            print(f"  FAIL {failure}")
        for note in report.older_first:
            print(f"  older version first: {note}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
