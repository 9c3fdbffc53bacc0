"""Where an add's CPU goes outside the embedding, one ``Engine.add`` at a time.

    python benchmarks/add_cpu.py [--turns 400] [--data DIR] [--config FILE]

Adds the first ``--turns`` LoCoMo turns as ``benchmarks/ingest_stages.py`` does, into a
fresh data directory, and times the add pipeline's calls by the calling thread's CPU time
(``time.thread_time``) beside the wall time. On a shared host the wall time of each piece
moves with the load; its CPU time much less, so two versions compared in alternated runs
show what a change saved even when the machine is busy. Pieces nest (``decide`` holds the
embedding and the duplicate lookups, ``commit`` the history rows, entity links and
generation bumps): read the lines as a profile, not as a sum. Also printed: the CPU of
every thread of the process (ONNX Runtime's second thread, LanceDB's, the write-behind
flusher) and the garbage collector's pauses during the adds.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest_stages import engine, turns  # noqa: E402
from locomo import DEFAULT_DATA, turn_text  # noqa: E402


class Clock:
    """Wall and thread-CPU seconds per label, and call counts."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def wrap(self, owner: Any, name: str, label: str | None = None) -> None:
        real: Callable[..., Any] = getattr(owner, name)
        key = label or name

        def timed(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.thread_time()
            try:
                return real(*args, **kwargs)
            finally:
                self.wall[key] += time.perf_counter() - wall
                self.cpu[key] += time.thread_time() - cpu
                self.calls[key] += 1

        setattr(owner, name, timed)


def threads_cpu() -> dict[tuple[str, str], float]:
    """CPU seconds of each thread of this process (Linux ``/proc``; empty elsewhere)."""
    out: dict[tuple[str, str], float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return out
    for tid in tids:
        try:
            name = Path(f"/proc/self/task/{tid}/comm").read_text().strip()
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[(tid, name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo JSON files")
    parser.add_argument("--config", type=Path, help="Memorist YAML config (default: built-in embedded default)")
    parser.add_argument("--turns", type=int, default=400)
    args = parser.parse_args(argv)
    from dateutil import parser as date_parser
    from memorist.engine import duplicate_rule, supersession_rule

    selected = turns(args.data, args.turns)
    if not selected:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 2
    memory = engine(args.config, Path(tempfile.mkdtemp(prefix="memorist-add-cpu-")))
    memory.add("warm up the embedder and the store", user_id="warm-up")
    clock, adder = Clock(), memory.adder
    for name in ("extracted", "decide", "commit", "written"):
        clock.wrap(adder, name)
    clock.wrap(adder.rule, "not_stored")
    clock.wrap(adder.rule, "not_paraphrases")
    clock.wrap(adder.guard, "open_intent")
    clock.wrap(adder.guard, "close_intent")
    clock.wrap(memory.graph, "link", "entity links")
    clock.wrap(memory.history_log, "record", "history rows")
    clock.wrap(memory.generations, "bump_added", "generation bump")
    clock.wrap(memory.components.language_model, "extract_detailed", "extractor")
    clock.wrap(memory.components.embedder, "embed")
    clock.wrap(memory.components.vector_store, "upsert", "vector write")
    clock.wrap(duplicate_rule, "supersedes", "supersession rule")
    clock.wrap(supersession_rule, "read", "supersession reading")
    clock.wrap(memory, "emit", "hooks")
    requests = [
        (
            [{"role": "user", "content": turn_text(turn), "name": turn["speaker"]}],
            {
                "user_id": user,
                "metadata": {"dia_id": turn["dia_id"]},
                "timestamp": date_parser.parse(when, fuzzy=True) if when else None,
            },
        )
        for user, turn, when in selected
    ]
    paused: dict[int, float] = defaultdict(float)
    collections: dict[int, int] = defaultdict(int)
    began_gc = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began_gc[0] = time.perf_counter()
        else:
            paused[info["generation"]] += time.perf_counter() - began_gc[0]
            collections[info["generation"]] += 1

    before = threads_cpu()
    gc.callbacks.append(on_gc)
    wall, cpu = time.perf_counter(), time.thread_time()
    for messages, kwargs in requests:
        memory.add(messages, **kwargs)
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    gc.callbacks.remove(on_gc)
    after = threads_cpu()
    memory.close()
    count = len(requests)
    outside = (cpu - clock.cpu["embed"]) * 1000 / count
    print(
        f"{count / wall:.1f} turns/s, {wall * 1000 / count:.2f} ms an add; the adding thread's CPU "
        f"{cpu * 1000 / count:.2f} ms an add, {outside:.2f} outside the embedding "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    print(f"  {'piece':<22} {'wall ms':>8} {'cpu ms':>8}  calls")
    for label in sorted(clock.wall, key=lambda k: -clock.cpu[k]):
        print(
            f"  {label:<22} {clock.wall[label] * 1000 / count:8.3f} {clock.cpu[label] * 1000 / count:8.3f}"
            f"  {clock.calls[label]}"
        )
    for generation in sorted(paused):
        print(
            f"  gc generation {generation}: {collections[generation]} collections, "
            f"{paused[generation] * 1000 / count:.3f} ms an add"
        )
    for key in sorted(after, key=lambda k: -(after[k] - before.get(k, 0.0))):
        spent = after[key] - before.get(key, 0.0)
        if spent > 0.01:
            print(f"  thread {key[1]:<16} {spent * 1000 / count:6.2f} ms of CPU an add")
    return 0


if __name__ == "__main__":
    sys.exit(main())
