"""Retrieval benchmark on LoCoMo conversations: evidence recall@k, ingest speed, search latency.

    python benchmarks/locomo.py [--data DIR] [--config FILE] [--k 1,5,10,20,50] [--split tune|validate|all]
                                [--data-dir DIR --reuse] [--json OUT] [--ranks OUT.jsonl]

Every dialogue turn is one add through the Python API (``user_id`` = the
conversation file's name, ``metadata={"dia_id": ...}``, ``timestamp`` = its
session's date and time; an image's caption is appended as "[shares ...]").
Then, for every question of categories 1-4, a search with
``filters={"user_id": ...}`` scores the share of the question's evidence turns
whose ``dia_id`` appears among the top-k memories, averaged over questions.
Searches use ``threshold=0.0`` so that recall measures ranking, not cut-off.
The data is read in place (CC BY-NC 4.0) and never copied into the repository.

Tune and validate: retrieval is tuned on :data:`TUNE` (three of the five dev
conversations) and a change is kept only if :data:`VALIDATE` (the other two) gains
too. ``--split all`` (the default) runs all five and prints each half beside the
total; recall by category names LoCoMo's categories (1 multi-hop, 2 temporal,
3 open-domain, 4 single-hop). ``--data-dir DIR --reuse`` keeps the ingested
conversations between runs, for experiments that change only the search.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from dateutil import parser as date_parser
from memorist.testing.stats import percentile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo"
_SESSION = re.compile(r"^session_(\d+)$")
#: The conversations retrieval is tuned on, and the ones it is checked on (fixed, by name).
TUNE = ("conv-26", "conv-30", "conv-41")
VALIDATE = ("conv-42", "conv-43")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def split_of(user: str) -> str:
    """``tune`` or ``validate`` for the dev conversations; any other file counts as ``validate``."""
    return "tune" if user in TUNE else "validate"


def turns_of(conversation: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Every turn with its session's date-time string, in session order."""
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conversation
        if (m := _SESSION.match(key)) and isinstance(conversation[key], list)
    )
    out = []
    for number, key in sessions:
        when = conversation.get(f"session_{number}_date_time", "")
        out.extend((turn, when) for turn in conversation[key])
    return out


def turn_text(turn: dict[str, Any]) -> str:
    text = turn.get("text", "")
    if caption := turn.get("blip_caption"):
        text = f"{text} [shares {caption}]"
    return text


def evidence_ids(raw: list[str]) -> set[str]:
    ids: set[str] = set()
    for item in raw:
        ids.update(part for part in re.split(r"[;,\s]+", item) if part.startswith("D"))
    return ids


def rank_line(user: str, qa: dict[str, Any], wanted: set[str], hits: list[Any], ranked: list[Any]) -> str:
    """One question's diagnostic line: each evidence turn's first rank (None: not in the hits)
    with its memory's text and signals, and the signals of the hits that are not evidence."""
    evidence: dict[str, Any] = {}
    for dia_id in sorted(wanted):
        rank = ranked.index(dia_id) if dia_id in ranked else None
        hit = hits[rank] if rank is not None else None
        evidence[dia_id] = {
            "rank": rank,
            "text": hit.record.text if hit is not None else None,
            "signals": hit.details if hit is not None else None,
        }
    above = [
        {"rank": i, "dia_id": ranked[i], "text": h.record.text, "signals": h.details}
        for i, h in enumerate(hits[:10])
        if ranked[i] not in wanted
    ]
    return json.dumps(
        {
            "user": user,
            "split": split_of(user),
            "category": CATEGORIES.get(qa["category"], str(qa["category"])),
            "question": qa["question"],
            "evidence": evidence,
            "top10_not_evidence": above,
        },
        default=str,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo JSON files")
    parser.add_argument("--config", type=Path, help="Memorist YAML config (default: built-in embedded default)")
    parser.add_argument("--k", default="1,5,10,20,50", help="comma-separated cut-offs")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--data-dir", type=Path, help="Memorist data directory (default: a fresh temporary one)")
    parser.add_argument("--limit", type=int, help="only the first N conversation files (quick runs)")
    parser.add_argument(
        "--split",
        choices=("tune", "validate", "all"),
        default="all",
        help=f"tune: {', '.join(TUNE)}; validate: the others; all: both, each reported apart",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --data-dir: skip ingesting conversations already stored there (ranking experiments)",
    )
    parser.add_argument(
        "--ranks",
        type=Path,
        help="write one JSON line per question: where each evidence turn ranked (null: below the largest k) "
        "and its signals, beside the signals of the hits above it (the diagnostic for ranking work)",
    )
    args = parser.parse_args(argv)

    from memorist import Engine as Memory
    from memorist.config.settings import load_settings

    ks = sorted({int(k) for k in args.k.split(",")})
    files = sorted(args.data.glob("*.json"))
    if args.split != "all":
        files = [f for f in files if split_of(f.stem) == args.split]
    files = files[: args.limit]
    if not files:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 2
    workdir = args.data_dir or Path(tempfile.mkdtemp(prefix="memorist-locomo-"))
    settings = load_settings(args.config, {"data_dir": str(workdir)})
    memory = Memory.from_settings(settings)

    turns_total, ingest_seconds = 0, 0.0
    questions: list[tuple[str, dict[str, Any]]] = []
    for path in files:
        conversation = json.loads(path.read_text())
        user = path.stem
        questions.extend((user, q) for q in conversation["qa"] if q.get("category") in (1, 2, 3, 4))
        if args.reuse and memory.list(user_id=user, page_size=1).total:
            continue
        started = time.perf_counter()
        for turn, when in turns_of(conversation):
            memory.add(
                [{"role": "user", "content": turn_text(turn), "name": turn["speaker"]}],
                user_id=user,
                metadata={"dia_id": turn["dia_id"]},
                timestamp=date_parser.parse(when, fuzzy=True) if when else None,
            )
            turns_total += 1
        ingest_seconds += time.perf_counter() - started

    max_k = max(ks)
    recall: dict[int, list[float]] = defaultdict(list)
    by_category: dict[tuple[int, int], list[float]] = defaultdict(list)
    by_split: dict[tuple[str, int], list[float]] = defaultdict(list)
    by_split_category: dict[tuple[str, int, int], list[float]] = defaultdict(list)
    latencies: list[float] = []
    rank_lines: list[str] | None = [] if args.ranks is not None else None
    for user, qa in questions:
        wanted = evidence_ids(qa.get("evidence", []))
        if not wanted:
            continue
        started = time.perf_counter()
        hits = memory.search(
            qa["question"], filters={"user_id": user}, top_k=max_k, threshold=0.0, explain=args.ranks is not None
        )
        latencies.append((time.perf_counter() - started) * 1000)
        ranked = [h.record.metadata.get("dia_id") for h in hits]
        if rank_lines is not None:
            rank_lines.append(rank_line(user, qa, wanted, hits, ranked))
        for k in ks:
            found = len(wanted & set(ranked[:k])) / len(wanted)
            recall[k].append(found)
            by_category[(k, qa["category"])].append(found)
            by_split[(split_of(user), k)].append(found)
            by_split_category[(split_of(user), k, qa["category"])].append(found)

    stored = memory.components.vector_store.count(None)
    figures: dict[str, Any] = {
        "conversations": len(files),
        "turns": turns_total,
        "memories": stored,
        "questions": len(recall[ks[0]]),
        "ingest_turns_per_s": round(turns_total / ingest_seconds, 2) if ingest_seconds else None,
        "search_p50_ms": round(statistics.median(latencies), 2),
        "search_p95_ms": round(percentile(latencies, 0.95), 2),
        "recall": {f"@{k}": round(statistics.mean(recall[k]), 4) for k in ks},
        "recall_by_category": {
            f"@{k}": {
                str(c): round(statistics.mean(by_category[(k, c)]), 4) for c in (1, 2, 3, 4) if by_category[(k, c)]
            }
            for k in ks
        },
        "splits": {
            half: {
                "recall": {f"@{k}": round(statistics.mean(by_split[(half, k)]), 4) for k in ks},
                "recall_by_category": {
                    f"@{k}": {
                        CATEGORIES[c]: round(statistics.mean(v), 4)
                        for c in (1, 2, 3, 4)
                        if (v := by_split_category[(half, k, c)])
                    }
                    for k in ks
                },
            }
            for half in ("tune", "validate")
            if by_split[(half, ks[0])]
        },
        "components": memory.components.describe(),
    }
    for k in ks:
        per_cat = " ".join(f"cat{c}={v}" for c, v in figures["recall_by_category"][f"@{k}"].items())
        print(f"recall@{k} = {figures['recall'][f'@{k}']:.3f}  ({per_cat})")
    for half, part in figures["splits"].items():
        for k in ks:
            per_cat = " ".join(f"{c}={v}" for c, v in part["recall_by_category"][f"@{k}"].items())
            print(f"  {half:8s} recall@{k} = {part['recall'][f'@{k}']:.3f}  ({per_cat})")
    print(f"ingest: {figures['ingest_turns_per_s']} turns/s ({turns_total} turns, {stored} memories stored)")
    p50, p95 = figures["search_p50_ms"], figures["search_p95_ms"]
    print(f"search latency: p50 {p50} ms, p95 {p95} ms ({len(latencies)} queries)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    if args.ranks is not None and rank_lines is not None:
        args.ranks.write_text("".join(line + "\n" for line in rank_lines))
    memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
