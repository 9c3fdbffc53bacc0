"""Memorist and mem0 OSS side by side on the LoCoMo protocol of ``benchmarks/locomo.py``.

    python benchmarks/versus_mem0.py [--data DIR] [--split dev|all] [--limit N] [--questions N]
                                     [--mode alone|together] [--only mem0|memorist]
                                     [--order alternate|mem0-first|memorist-first] [--http-queries N] [--json OUT]

Both systems get the same conversations and the same calls: every dialogue
turn is one add (``user_id`` = the conversation, ``metadata.dia_id``; Memorist
also gets the session's date as ``timestamp``, which mem0 OSS refuses), then
every question of categories 1-4 is one search filtered by its conversation's
user at ``top_k`` 50 with ``threshold`` 0 (recall measures ranking, not a
cut-off). recall@k is the share of a question's evidence ``dia_id``s among the
top k, averaged over questions.

- mem0 OSS (``mem0ai``, see ``scenarios/versus/mem0_side.py``): ``infer=False``,
  the packaged MiniLM through mem0's ``huggingface`` embedder, local on-disk
  Qdrant, a dummy LLM that is never called (counted, and its port refused);
- Memorist: ``memorist.Engine`` with the default configuration (heuristic
  extractor, the same MiniLM on ONNX Runtime, LanceDB + SQLite) in a fresh data dir,
  or ``--memorist-config FILE`` (e.g. ``configs/fast.yaml``, the int8 embedding).

Two modes. ``--mode alone`` is the speed reference: each system alone on the
machine, as shipped, in four fresh processes one after the other (Memorist, mem0,
mem0, Memorist), each ingesting and searching the same conversations in its own
data directory (``--only``), mem0's torch with its default threads; a system's
figures are the best of its two runs (highest ingest rate, lowest p50 and lowest
p95, each taken apart); recall is deterministic and the same in both. One system
at a time, so neither starves the other; the host's load still moves the figures,
so the load average before and after each run is printed beside it.

``--mode together`` (the default) runs both in one process: ingest conversation by
conversation, the system that goes first alternating (mem0 first on the 1st,
3rd, ... conversation), then the searches interleaved question by question (who
goes first alternates too), so both see the same machine at the same moment. It
is no speed reference: mem0's torch spins one OpenMP thread per core while it
waits, so beside Memorist at its default threads each starves the other, and
capping mem0 (``--mem0-torch-threads 1``) while Memorist's ONNX Runtime uses both
cores flatters Memorist.

Each system gets one untimed warm-up add and search first (a user no question
asks about). Every outbound connection other than loopback is refused and
recorded; a run in which anything tried, or mem0's LLM was called, exits 1.

The **dev split** is the five LoCoMo conversations the repository tunes and
reports on (:data:`DEV_SPLIT`, the files in ``../shared/data/locomo``: 2,760
turns, 760 questions of categories 1-4); ``--split all`` takes every ``*.json``
in ``--data`` (e.g. the full ten-conversation release). After the searches,
``--http-queries`` searches of Memorist go over HTTP to a one-worker
``memorist serve`` on the same data (labelled as such; 0 skips it).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dateutil import parser as date_parser  # noqa: E402
from harness import percentile  # noqa: E402
from locomo import DEFAULT_DATA, evidence_ids, turn_text, turns_of  # noqa: E402
from scenarios.versus.mem0_side import LLM_PORT, Mem0Side  # noqa: E402
from scenarios.versus.netguard import guarded  # noqa: E402

#: The dev split: the five conversations of ``../shared/data/locomo`` (the targets of issue 17 are on these).
DEV_SPLIT = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
TOP_K = 50
KS = (10, 50)
SYSTEMS = ("mem0", "memorist")

Question = tuple[str, str, set[str]]  # (user, question, evidence dia_ids)


def select_files(data: Path, split: str, limit: int | None) -> list[Path]:
    files = sorted(data.glob("*.json"))
    if split == "dev":
        files = [f for f in files if f.stem in DEV_SPLIT]
    return files[:limit]


def interleave(per_conversation: Sequence[Sequence[Question]], cap: int | None) -> list[Question]:
    """Round-robin over conversations, so a ``--questions`` cap still covers every conversation."""
    out: list[Question] = []
    longest = max((len(q) for q in per_conversation), default=0)
    for i in range(longest):
        out.extend(qs[i] for qs in per_conversation if i < len(qs))
    return out[:cap]


def summary(latencies: list[float], recalls: dict[int, list[float]], turns: int, seconds: float) -> dict[str, Any]:
    return {
        "ingest_turns_per_s": round(turns / seconds, 2) if seconds else None,
        "ingest_seconds": round(seconds, 2),
        "search_p50_ms": round(statistics.median(latencies), 2),
        "search_p95_ms": round(percentile(latencies, 0.95), 2),
        "recall": {f"@{k}": round(statistics.mean(recalls[k]), 4) for k in KS},
    }


def ratios(mem0: dict[str, Any], memorist: dict[str, Any]) -> dict[str, float | None]:
    """Speed-ups (> 1: Memorist faster) and recall ratios, Memorist relative to mem0."""

    def div(a: float | None, b: float | None) -> float | None:
        return round(a / b, 2) if a and b else None

    out = {
        "ingest": div(memorist["ingest_turns_per_s"], mem0["ingest_turns_per_s"]),
        "search_p50": div(mem0["search_p50_ms"], memorist["search_p50_ms"]),
        "search_p95": div(mem0["search_p95_ms"], memorist["search_p95_ms"]),
    }
    out.update({f"recall@{k}": div(memorist["recall"][f"@{k}"], mem0["recall"][f"@{k}"]) for k in KS})
    return out


def table(figures: dict[str, Any]) -> str:
    """The comparison as a Markdown table; a run of one system (``--only``) is one row."""
    if "ratios" not in figures:
        name = next(n for n in SYSTEMS if n in figures)
        f = figures[name]
        recall = " | ".join(f"{f['recall'][f'@{k}']:.3f}" for k in KS)
        ingest = f"{f['ingest_turns_per_s']} turns/s"
        return (
            "| | ingest | search p50 | search p95 | recall@10 | recall@50 |\n|---|---|---|---|---|---|\n"
            f"| {name} alone | {ingest} | {f['search_p50_ms']} ms | {f['search_p95_ms']} ms | {recall} |"
        )
    return _pair_table(figures)


def _pair_table(figures: dict[str, Any]) -> str:
    def row(name: str, f: dict[str, Any]) -> str:
        ingest = f"{f['ingest_turns_per_s']} turns/s" if f.get("ingest_turns_per_s") else "-"
        recall = " | ".join(f"{f['recall'][f'@{k}']:.3f}" for k in KS)
        return f"| {name} | {ingest} | {f['search_p50_ms']} ms | {f['search_p95_ms']} ms | {recall} |"

    r = figures["ratios"]
    lines = [
        "| | ingest | search p50 | search p95 | recall@10 | recall@50 |",
        "|---|---|---|---|---|---|",
        row(f"mem0 OSS {figures['mem0']['version']} (infer=False, local Qdrant)", figures["mem0"]),
        row(f"Memorist, {figures['memorist']['config']} config (in process)", figures["memorist"]),
        f"| Memorist ÷ mem0 (speed-up ×; recall ratio) | {r['ingest']}× | {r['search_p50']}× | {r['search_p95']}× "
        f"| {r['recall@10']} | {r['recall@50']} |",
    ]
    if http := figures.get("memorist_http"):
        lines.append(row(f"Memorist over HTTP (memorist serve, 1 worker, {http['searches']} searches)", http))
    return "\n".join(lines)


def best_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One system's figures from its runs: the highest ingest rate, the lowest p50 and p95, each taken apart."""
    best = dict(runs[0])
    best["ingest_turns_per_s"] = max(r["ingest_turns_per_s"] for r in runs)
    best["search_p50_ms"] = min(r["search_p50_ms"] for r in runs)
    best["search_p95_ms"] = min(r["search_p95_ms"] for r in runs)
    best["runs"] = [
        {key: r[key] for key in ("ingest_turns_per_s", "search_p50_ms", "search_p95_ms", "load_average")} for r in runs
    ]
    return best


def alone(args: argparse.Namespace, argv: list[str]) -> int:
    """``--mode alone``: each system in its own process, Memorist, mem0, mem0, Memorist; best of two each."""
    import subprocess

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memorist-versus-alone-"))
    workdir.mkdir(parents=True, exist_ok=True)
    passed = [a for a in argv if a != "--mode" and a not in ("alone", "together")]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in SYSTEMS}
    for i, name in enumerate(("memorist", "mem0", "mem0", "memorist")):
        out = workdir / f"run-{i + 1}-{name}.json"
        command = [sys.executable, __file__, *_without(passed, ("--json", "--workdir"))]
        command += [
            "--mode",
            "together",
            "--only",
            name,
            "--workdir",
            str(workdir / f"run-{i + 1}"),
            "--json",
            str(out),
        ]
        if name == "mem0":
            command += ["--http-queries", "0"]
        done = subprocess.run(command, check=False)
        if done.returncode:
            return done.returncode
        figures = json.loads(out.read_text())
        run = {**figures[name], "load_average": figures["load_average"]}
        runs[name].append(run)
        print(
            f"run {i + 1} {name} alone: {run['ingest_turns_per_s']} turns/s, search p50 {run['search_p50_ms']} ms, "
            f"p95 {run['search_p95_ms']} ms (load average {figures['load_average']['before'][0]:.1f} -> "
            f"{figures['load_average']['after'][0]:.1f})",
            flush=True,
        )
    combined: dict[str, Any] = {
        "mode": "alone",
        "order": ["memorist", "mem0", "mem0", "memorist"],
        "mem0": best_of(runs["mem0"]),
        "memorist": best_of(runs["memorist"]),
    }
    if http := runs["memorist"][-1].get("http"):
        combined["memorist_http"] = http
    combined["ratios"] = ratios(combined["mem0"], combined["memorist"])
    print(table(combined))
    if args.json:
        args.json.write_text(json.dumps(combined, indent=2, default=str) + "\n")
    return 0


def _without(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """``argv`` less ``options`` and each one's value."""
    out: list[str] = []
    skip = False
    for item in argv:
        if skip:
            skip = False
            continue
        if item in options:
            skip = True
            continue
        if any(item.startswith(f"{o}=") for o in options):
            continue
        out.append(item)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo JSON files")
    parser.add_argument("--split", choices=("dev", "all"), default="dev", help="dev: DEV_SPLIT; all: every file")
    parser.add_argument("--limit", type=int, help="only the first N conversations of the split")
    parser.add_argument("--questions", type=int, help="at most N questions (round-robin over conversations)")
    parser.add_argument(
        "--mode",
        choices=("together", "alone"),
        default="together",
        help="alone: each system in its own process, as shipped, best of two (the speed reference)",
    )
    parser.add_argument("--only", choices=SYSTEMS, help="run one system (what --mode alone runs in each process)")
    parser.add_argument("--order", choices=("alternate", "mem0-first", "memorist-first"), default="alternate")
    parser.add_argument("--http-queries", type=int, default=100, help="Memorist searches over HTTP (0 skips)")
    parser.add_argument(
        "--mem0-torch-threads", type=int, help="torch threads for mem0's embedder (default: torch's own, as shipped)"
    )
    parser.add_argument(
        "--mem0-speaker-prefix",
        action="store_true",
        help='mem0 stores "Speaker: text" (its infer=False keeps the name out of the text otherwise)',
    )
    parser.add_argument(
        "--memorist-config",
        type=Path,
        help="Memorist's YAML config, in process and over HTTP (default: the built-in embedded default)",
    )
    parser.add_argument("--workdir", type=Path, help="where both systems store (default: a fresh temporary dir)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if args.mode == "alone":
        if args.only or args.mem0_torch_threads:
            parser.error("--mode alone runs both systems as shipped: no --only, no --mem0-torch-threads")
        return alone(args, argv)

    files = select_files(args.data, args.split, args.limit)
    if not files:
        print(f"no LoCoMo files of split {args.split!r} in {args.data}", file=sys.stderr)
        return 2
    systems = (args.only,) if args.only else SYSTEMS
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="memorist-versus-"))
    workdir.mkdir(parents=True, exist_ok=True)
    conversations = [(f.stem, json.loads(f.read_text())) for f in files]
    per_conversation = [
        [
            (user, qa["question"], wanted)
            for qa in conversation["qa"]
            if qa.get("category") in (1, 2, 3, 4) and (wanted := evidence_ids(qa.get("evidence", [])))
        ]
        for user, conversation in conversations
    ]
    questions = interleave(per_conversation, args.questions)
    load_before = os.getloadavg()

    with guarded(forbidden_ports={LLM_PORT}) as guard:
        init: dict[str, float] = {}
        adders: dict[str, Callable[[str, str, str, str, str], None]] = {}
        searchers: dict[str, Callable[[str, str], list[str | None]]] = {}
        if "mem0" in systems:
            began = time.perf_counter()
            mem0 = Mem0Side(workdir, args.mem0_torch_threads)
            init["mem0"] = time.perf_counter() - began
            adders["mem0"] = lambda text, speaker, user, dia, _when: mem0.add(
                f"{speaker}: {text}" if args.mem0_speaker_prefix else text, speaker, user, dia
            )
            searchers["mem0"] = lambda query, user: mem0.search(query, user, TOP_K, 0.0)
        if "memorist" in systems:
            from memorist import Engine
            from memorist.config.settings import load_settings

            began = time.perf_counter()
            where = {"data_dir": str(workdir / "memorist")}
            memorist = Engine.from_config(load_settings(args.memorist_config, where) if args.memorist_config else where)
            init["memorist"] = time.perf_counter() - began

            def memorist_add(text: str, speaker: str, user: str, dia_id: str, when: str) -> None:
                stamp = date_parser.parse(when, fuzzy=True) if when else None
                memorist.add(
                    [{"role": "user", "content": text, "name": speaker}],
                    user_id=user,
                    metadata={"dia_id": dia_id},
                    timestamp=stamp,
                )

            def memorist_search(query: str, user: str) -> list[str | None]:
                hits = memorist.search(query, filters={"user_id": user}, top_k=TOP_K, threshold=0.0)
                return [h.record.metadata.get("dia_id") for h in hits]

            adders["memorist"] = memorist_add
            searchers["memorist"] = memorist_search
        for name in systems:  # untimed warm-up: first-call costs (lazy loads, graph export) are not ingest
            adders[name]("I adopted a cat named Pixel last spring.", "Warm", "versus-warmup", "W:1", "")
            searchers[name]("warm-up query", "versus-warmup")

        seconds = dict.fromkeys(systems, 0.0)
        turns = 0
        for index, (user, conversation) in enumerate(conversations):
            order = (
                list(systems)
                if args.order == "mem0-first" or (args.order == "alternate" and index % 2 == 0)
                else list(reversed(systems))
            )
            items = [(turn_text(t), t["speaker"], t["dia_id"], when) for t, when in turns_of(conversation)]
            for name in order:
                began = time.perf_counter()
                for text, speaker, dia, when in items:
                    adders[name](text, speaker, user, dia, when)
                seconds[name] += time.perf_counter() - began
            turns += len(items)
            so_far = ", ".join(f"{name} {seconds[name]:.1f} s" for name in systems)
            print(f"ingested {user}: {len(items)} turns (so far {so_far})", flush=True)

        latencies: dict[str, list[float]] = {name: [] for name in systems}
        recalls: dict[str, dict[int, list[float]]] = {name: {k: [] for k in KS} for name in systems}
        for i, (user, query, wanted) in enumerate(questions):
            for name in systems if i % 2 == 0 else tuple(reversed(systems)):
                began = time.perf_counter()
                ranked = searchers[name](query, user)
                latencies[name].append((time.perf_counter() - began) * 1000)
                for k in KS:
                    recalls[name][k].append(len(wanted & set(ranked[:k])) / len(wanted))

        figures: dict[str, Any] = {
            "split": args.split,
            "conversations": [user for user, _ in conversations],
            "turns": turns,
            "questions": len(questions),
            "top_k": TOP_K,
            "ingest_order": args.order,
            "mem0_speaker_prefix": args.mem0_speaker_prefix,
        }
        if "mem0" in systems:
            figures["mem0"] = {
                **summary(latencies["mem0"], recalls["mem0"], turns, seconds["mem0"]),
                "memories": mem0.count([user for user, _ in conversations]),
                "init_seconds": round(init["mem0"], 2),
                **mem0.describe(),
            }
            mem0.close()
        if "memorist" in systems:
            figures["memorist"] = {
                **summary(latencies["memorist"], recalls["memorist"], turns, seconds["memorist"]),
                "memories": sum(memorist.list(user_id=user, page_size=1).total for user, _ in conversations),
                "init_seconds": round(init["memorist"], 2),
                "version": importlib.metadata.version("memorist"),
                "config": args.memorist_config.stem if args.memorist_config else "default",
                "components": memorist.components.describe(),
            }
            memorist.close()
        if len(systems) == 2:
            figures["ratios"] = ratios(figures["mem0"], figures["memorist"])
        if args.http_queries and "memorist" in systems:
            from scenarios.versus.http import measure_http

            figures["memorist_http"] = measure_http(
                workdir / "memorist", questions, TOP_K, args.http_queries, config=args.memorist_config
            )
            figures["memorist"]["http"] = figures["memorist_http"]
        figures["network"] = {"refused": guard.refused, "loopback_connections": guard.loopback}
    figures["load_average"] = {"before": load_before, "after": os.getloadavg()}

    print(table(figures))
    llm_calls = figures.get("mem0", {}).get("llm_calls", 0)
    print(
        f"{turns} turns, {len(questions)} questions, ingest order {args.order}; "
        f"load average {load_before[0]:.1f} -> {figures['load_average']['after'][0]:.1f}; "
        f"mem0 LLM calls {llm_calls}, refused connections {len(guard.refused)}"
    )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n")
    return 1 if guard.refused or llm_calls else 0


if __name__ == "__main__":
    sys.exit(main())
