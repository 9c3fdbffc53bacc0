"""One engine setting's cost per add, the two engines' adds alternated in one process.

    python benchmarks/ingest_ab.py --set engine.source_vector_weight=0.5 [--turns 400] [--config FILE]

Two engines, each on a fresh data directory: ``A`` with the configuration as it is,
``B`` with ``--set`` applied (``section.key=value``; repeatable). Every LoCoMo turn is
one add to each, the way ``benchmarks/locomo.py`` adds it (``user_id`` = the
conversation, the session's date as ``timestamp``); which engine goes first
alternates, so both see the same machine: on a shared machine the ratio is the
figure to read. Prints ms per add (median and mean) for both, their ratio, and the
memories each stored.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml
from dateutil import parser as date_parser

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import DEFAULT_DATA, turn_text, turns_of  # noqa: E402


def override(assignments: list[str]) -> dict[str, Any]:
    """``["engine.x=0.5"]`` as the nested settings override ``{"engine": {"x": 0.5}}``."""
    out: dict[str, Any] = {}
    for item in assignments:
        key, _, raw = item.partition("=")
        *path, last = key.split(".")
        node = out
        for part in path:
            node = node.setdefault(part, {})
        node[last] = yaml.safe_load(raw)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo JSON files")
    parser.add_argument("--config", type=Path, help="Memorist YAML config (default: built-in embedded default)")
    parser.add_argument("--set", action="append", required=True, help="section.key=value for engine B")
    parser.add_argument("--turns", type=int, default=400)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from memorist import Engine as Memory
    from memorist.config.settings import load_settings

    work = Path(tempfile.mkdtemp(prefix="memorist-ingest-ab-"))
    engines = {
        "A": Memory.from_settings(load_settings(args.config, {"data_dir": str(work / "a")})),
        "B": Memory.from_settings(load_settings(args.config, {"data_dir": str(work / "b"), **override(args.set)})),
    }
    turns = []
    for path in sorted(args.data.glob("*.json")):
        conversation = json.loads(path.read_text())
        turns.extend((path.stem, turn, when) for turn, when in turns_of(conversation))
    turns = turns[: args.turns]
    for memory in engines.values():  # warm-up: model load, first scope
        memory.add("warm-up", user_id="warm-up")
    times: dict[str, list[float]] = {"A": [], "B": []}
    for n, (user, turn, when) in enumerate(turns):
        order = ("A", "B") if n % 2 == 0 else ("B", "A")
        for name in order:
            started = time.perf_counter()
            engines[name].add(
                [{"role": "user", "content": turn_text(turn), "name": turn["speaker"]}],
                user_id=user,
                metadata={"dia_id": turn["dia_id"]},
                timestamp=date_parser.parse(when, fuzzy=True) if when else None,
            )
            times[name].append((time.perf_counter() - started) * 1000)
    for name, memory in engines.items():
        stored = sum(memory.list(user_id=u, page_size=1).total for u in {t[0] for t in turns})
        print(
            f"{name}: {statistics.median(times[name]):6.2f} ms/add median, {statistics.fmean(times[name]):6.2f} mean,"
            f" {stored} memories ({len(turns)} turns)"
        )
        memory.close()
    print(
        f"B / A: {statistics.median(times['B']) / statistics.median(times['A']):.3f} (median),"
        f" {statistics.fmean(times['B']) / statistics.fmean(times['A']):.3f} (mean); B: {' '.join(args.set)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
