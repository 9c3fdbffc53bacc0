"""What one hostile request costs (issue 39, items 1, 8, 12): stored bytes, time, peak RSS.

    python benchmarks/request_costs.py --messages 50 --metadata-mb 1.9

Runs in process on ``falcon.testing.TestClient`` (the self-hosted routes, the
admin key) over a fresh temporary data directory with the test kit's hashing
embedder (no model load: what is measured is the request, not embedding), and
prints one line per case:

- **metadata-heavy add**: ``--messages`` short messages stored verbatim with
  ``--metadata-mb`` of metadata (``POST /memories``): status, seconds, growth of
  the data directory in MB, growth of the process's peak RSS in MB;
- **filter flood**: a search whose filter is 200 ``OR`` x an ``in`` of 300
  values (``POST /search``), and one ``in`` of 50,000 values;
- **filter at the limit**: ``MAX_FILTER_VALUES`` values over a few ``OR``
  branches, to show an accepted filter's cost;
- **long query**: a 1.5 MB query.

Seconds are wall time on whatever machine runs it (noisy on a shared host):
compare figures of one run, or of runs on one quiet machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "framework"), str(ROOT / "plugins")]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ADMIN_KEY = "request-costs-benchmark-admin-key"


def du_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(label: str, call: Any, data: Path | None = None) -> None:
    disk, rss, started = (du_mb(data) if data else 0.0), peak_mb(), time.perf_counter()
    resp = call()
    seconds = time.perf_counter() - started
    grown = f" disk +{du_mb(data) - disk:.1f} MB" if data else ""
    detail = (resp.json or {}).get("detail", "") if resp.status_code >= 400 else ""
    print(
        f"{label:<28} {resp.status_code} in {seconds:6.2f} s{grown} peak RSS +{peak_mb() - rss:.0f} MB"
        + (f"  ({str(detail)[:110]})" if detail else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=50)
    parser.add_argument("--metadata-mb", type=float, default=1.9)
    args = parser.parse_args()

    import falcon.testing
    from memorist.config.settings import load_settings
    from memorist.http import create_app
    from memorist.kernel.core import Kernel
    from memorist.plugin.manager import load_plugins
    from memorist.testing import hashing

    with tempfile.TemporaryDirectory(prefix="memorist-costs-", ignore_cleanup_errors=True) as tmp:
        data = Path(tmp)
        overrides = {
            "data_dir": str(data),
            "embedder": {"provider": "hashing", "options": {"dimension": 64}},
            "auth": {"admin_api_key": ADMIN_KEY},
            "limits": {"sync_add_chars": 1_000_000},  # answered in the request: its cost is measured here
        }
        kernel = Kernel.build(load_settings(None, overrides), load_plugins({}, extra=[hashing]))
        client = falcon.testing.TestClient(create_app(kernel))
        headers = {"X-API-Key": ADMIN_KEY}
        seed = [{"role": "user", "content": f"I keep {n} beehives on the roof."} for n in range(5)]
        client.simulate_post("/memories", headers=headers, json={"messages": seed, "user_id": "u", "infer": False})
        print(f"python {sys.version.split()[0]}, data dir {data}, baseline peak RSS {peak_mb():.0f} MB")

        messages = [{"role": "user", "content": f"note {i}: the gate code changed"} for i in range(args.messages)]
        metadata = {"doc": "m" * int(args.metadata_mb * 1e6)}
        body = {"messages": messages, "user_id": "heavy", "metadata": metadata, "infer": False}
        timed(
            f"metadata-heavy add x{args.messages}",
            lambda: client.simulate_post("/memories", headers=headers, json=body),
            data,
        )

        flood = {"OR": [{"metadata.k": {"in": [f"v{i}-{j}" for j in range(300)]}} for i in range(200)]}
        search = {"query": "beehives", "user_id": "u"}
        timed(
            "filter 200 OR x 300 in",
            lambda: client.simulate_post("/search", headers=headers, json={**search, "filters": flood}),
        )
        wide = {"metadata.k": {"in": [f"v{j}" for j in range(50_000)]}}
        timed(
            "filter in of 50,000",
            lambda: client.simulate_post("/search", headers=headers, json={**search, "filters": wide}),
        )
        at_limit = {"OR": [{"metadata.k": {"in": [f"v{i}-{j}" for j in range(250)]}} for i in range(4)]}
        timed(
            "filter 4 OR x 250 in",
            lambda: client.simulate_post("/search", headers=headers, json={**search, "filters": at_limit}),
        )
        long_query = {"query": "beehive " * 190_000, "user_id": "u"}
        timed("query of 1.5 MB", lambda: client.simulate_post("/search", headers=headers, json=long_query))
        kernel.close()


if __name__ == "__main__":
    main()
