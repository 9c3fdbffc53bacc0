"""An agent's loop on one user: add a turn, search, add the next, search again.

    python benchmarks/agent_loop.py [--data DIR] [--conversation conv-26] [--load 300] [--rounds 119]
                                    [--writer same|other] [--config FILE] [--json OUT]

Loads the first ``--load`` turns of one LoCoMo conversation for one user through
``Memory.add_many``, then alternates one ``Memory.add`` of the next held-out turn
with one search of that conversation's questions (``top_k`` 50, ``threshold`` 0),
``--rounds`` times, default configuration in a fresh data directory. Prints
search and add p50/p95 and how often the scope index had to load a scope or
a whole entity-graph partition.

Why: the other benchmarks ingest everything first and then search. An agent adds
and searches the same user turn after turn, so every search follows this
process's own add: the path where the scope index takes the add in place
(write-through), its graph partition included, instead of reloading the scope.

``--writer other``: the adds go through a second engine on the same data (as
another worker or node of the same server would take them), so every search
follows another process's add: the path where the snapshot catches up through
the additions log. The report counts those catch-ups.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import percentile  # noqa: E402
from locomo import DEFAULT_DATA, turn_text, turns_of  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo JSON files")
    parser.add_argument("--conversation", default="conv-26", help="file stem of the conversation")
    parser.add_argument("--load", type=int, default=300, help="turns stored before the loop")
    parser.add_argument("--rounds", type=int, default=119, help="add-then-search rounds (at most the turns left)")
    parser.add_argument(
        "--writer", choices=("same", "other"), default="same", help="other: a second engine on the same data adds"
    )
    parser.add_argument("--config", type=Path, help="Memorist YAML config (default: built-in embedded default)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args(argv)
    from memorist import Engine
    from memorist.config.settings import load_settings

    conversation = json.loads((args.data / f"{args.conversation}.json").read_text())
    turns = [turn for turn, _ in turns_of(conversation)]
    questions = [q["question"] for q in conversation.get("qa", []) if q.get("question")] or ["What happened?"]
    held_out = turns[args.load : args.load + args.rounds]
    if not held_out:
        print(f"{args.conversation} has {len(turns)} turns: nothing left after --load {args.load}", file=sys.stderr)
        return 2

    def messages(turn: dict[str, Any]) -> list[dict[str, str]]:
        return [{"role": "user", "content": turn_text(turn), "name": turn.get("speaker", "")}]

    settings = load_settings(args.config, {"data_dir": tempfile.mkdtemp(prefix="memorist-agent-loop-")})
    memory = Engine.from_settings(settings)
    writer = Engine.from_settings(settings) if args.writer == "other" else memory
    try:
        user = args.conversation
        memory.add_many([memory.add_request(messages(t), user_id=user, infer=False) for t in turns[: args.load]])
        for question in questions[:5]:  # the scope is in memory before the loop starts
            memory.search(question, user_id=user, top_k=50, threshold=0)
        index = memory.scope_index
        loads_before = (index.loads, index.graph_loads, index.catch_ups) if index is not None else (0, 0, 0)
        adds: list[float] = []
        searches: list[float] = []
        for i, turn in enumerate(held_out):
            began = time.perf_counter()
            writer.add(messages(turn), user_id=user, infer=False)
            adds.append(time.perf_counter() - began)
            began = time.perf_counter()
            memory.search(questions[i % len(questions)], user_id=user, top_k=50, threshold=0)
            searches.append(time.perf_counter() - began)
        counters = (index.loads, index.graph_loads, index.catch_ups) if index is not None else (0, 0, 0)
        loads = tuple(now - before for now, before in zip(counters, loads_before, strict=True))
    finally:
        if writer is not memory:
            writer.close()
        memory.close()
    figures = {
        "rounds": len(searches),
        "loaded": args.load,
        "search_p50_ms": round(percentile(searches, 0.5) * 1000, 2),
        "search_p95_ms": round(percentile(searches, 0.95) * 1000, 2),
        "add_p50_ms": round(percentile(adds, 0.5) * 1000, 2),
        "add_p95_ms": round(percentile(adds, 0.95) * 1000, 2),
        "scope_loads": loads[0],
        "graph_loads": loads[1],
        "catch_ups": loads[2],
        "writer": args.writer,
    }
    print(
        f"{figures['rounds']} rounds after {args.load} turns of {args.conversation}: "
        f"search p50 {figures['search_p50_ms']} ms, p95 {figures['search_p95_ms']} ms; "
        f"add p50 {figures['add_p50_ms']} ms, p95 {figures['add_p95_ms']} ms; "
        f"scope and graph-partition loads during the loop {loads[0]} and {loads[1]}, catch-ups {loads[2]} "
        f"(adds by {'this' if args.writer == 'same' else 'another'} engine)"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
