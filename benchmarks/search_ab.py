"""The scope index against the store path on LoCoMo, query by query alternated in one process.

    python benchmarks/locomo.py --data ../shared/data/locomo --data-dir /tmp/locomo   # ingest once
    python benchmarks/search_ab.py --data ../shared/data/locomo --data-dir /tmp/locomo

Two engines on the same data directory, one with ``engine.scope_index`` on (the
default) and one with it off, answer every question of categories 1-4 as
``benchmarks/locomo.py`` asks it (``user_id`` filter, ``top_k`` 50,
``threshold`` 0). Their searches alternate (which goes first alternates too), so
both see the same machine: on a shared machine the ratio is the figure to read.
Prints search p50/p95 and recall@10/@50 for both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import DEFAULT_DATA, evidence_ids  # noqa: E402
from memorist.testing.stats import percentile  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo JSON files")
    parser.add_argument("--data-dir", type=Path, required=True, help="a data directory locomo.py ingested")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from memorist import Engine as Memory
    from memorist.config.settings import load_settings

    questions: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(args.data.glob("*.json")):
        conversation = json.loads(path.read_text())
        questions.extend((path.stem, q) for q in conversation["qa"] if q.get("category") in (1, 2, 3, 4))
    base = {"data_dir": str(args.data_dir)}
    engines = {
        "index": Memory.from_settings(load_settings(None, base)),
        "store": Memory.from_settings(load_settings(None, {**base, "engine": {"scope_index": False}})),
    }
    latency: dict[str, list[float]] = {name: [] for name in engines}
    recall: dict[str, dict[int, list[float]]] = {name: {10: [], 50: []} for name in engines}
    for n, (user, qa) in enumerate(questions):
        wanted = evidence_ids(qa.get("evidence", []))
        names = list(engines) if n % 2 else list(reversed(engines))
        for name in names:
            began = time.perf_counter()
            hits = engines[name].search(qa["question"], filters={"user_id": user}, top_k=50, threshold=0.0)
            latency[name].append((time.perf_counter() - began) * 1000)
            if wanted:
                ranked = [h.record.metadata.get("dia_id") for h in hits]
                for k in (10, 50):
                    recall[name][k].append(len(wanted & set(ranked[:k])) / len(wanted))
    for name, samples in latency.items():
        at = {k: statistics.mean(v) for k, v in recall[name].items()}
        print(
            f"{name:<6} search p50 {statistics.median(samples):6.2f} ms  p95 {percentile(samples, 0.95):6.2f} ms"
            f"  recall@10 {at[10]:.4f}  recall@50 {at[50]:.4f}  ({len(samples)} queries)"
        )
    ratio = statistics.median(latency["store"]) / statistics.median(latency["index"])
    print(f"store/index p50 ratio: {ratio:.1f}x")
    for memory in engines.values():
        memory.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
