"""How the default embedder's throughput depends on how texts are batched, on LoCoMo turns.

    python benchmarks/embedding_batches.py [--data DIR] [--turns 640] [--call 128] [--rounds 2]

Runs the embedder the default configuration builds (all-MiniLM-L6-v2 on ONNX Runtime,
the cached export) over the first ``--turns`` LoCoMo turns, fed four ways, each round in
the same order (so all see the same moments of a host whose speed drifts):

- ``one per call``: what one add at a time asks for;
- ``calls of N, batches cut by token count``: what ``add_many`` and ``memorist import``
  ask for (the encoder cuts each call into batches of similar token counts);
- ``calls of N, fixed batches``: the same calls cut into fixed groups of ``batch_size``
  after sorting by characters (how the encoder batched before; padding to the longest);
- ``one text repeated``: calls of N copies of one median-length turn, nothing to pad (the
  ceiling batching can reach).

Prints texts/s for each, per round.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from ingest_stages import engine, turns  # noqa: E402
from locomo import DEFAULT_DATA, turn_text  # noqa: E402


def fixed_batches(encoder: Any, texts: Sequence[str], batch_size: int) -> None:
    """The encoder's runs over fixed groups of ``batch_size`` texts sorted by characters."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch_size):
        encoder._run(encoder._tokenizer.encode_batch([texts[i] for i in order[start : start + batch_size]]))


def rate(feed: Callable[[Sequence[str]], Any], texts: Sequence[str], call: int) -> float:
    """Texts per second embedding ``texts`` in calls of ``call``."""
    began = time.perf_counter()
    for start in range(0, len(texts), call):
        feed(texts[start : start + call])
    return len(texts) / (time.perf_counter() - began)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--turns", type=int, default=640)
    parser.add_argument("--call", type=int, default=128, help="texts per embedder call (add_many's chunk is 128)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    said = [turn_text(turn) for _, turn, _ in turns(args.data, args.turns)]
    if not said:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 2
    memory = engine(None)  # the default configuration's embedder, as an add gets it
    embedder = memory.components.embedder
    encoder = getattr(embedder, "_onnx", None)
    if encoder is None:
        print("the default embedder is not running on ONNX Runtime here", file=sys.stderr)
        return 2
    batch_size = embedder.options.batch_size
    counts = [len(e.ids) for e in encoder._tokenizer.encode_batch(said)]
    lengths = sorted(counts)
    median = said[counts.index(lengths[len(lengths) // 2])]
    print(
        f"{len(said)} turns, tokens p10 {lengths[len(lengths) // 10]} median {statistics.median(lengths):.0f} "
        f"p90 {lengths[len(lengths) * 9 // 10]} max {lengths[-1]}; calls of {args.call}, batch_size {batch_size}"
    )
    embedder.embed(said[:8])  # warm up

    def embed(chunk: Sequence[str]) -> Any:
        return embedder.embed(list(chunk))

    ways: dict[str, Callable[[], float]] = {
        "one per call": lambda: rate(embed, said, 1),
        "calls, batches cut by token count": lambda: rate(embed, said, args.call),
        "calls, fixed batches (before)": lambda: rate(lambda c: fixed_batches(encoder, c, batch_size), said, args.call),
        "one text repeated (no padding)": lambda: rate(embed, [median] * len(said), args.call),
    }
    for round_number in range(1, args.rounds + 1):
        for label, run in ways.items():
            print(f"round {round_number}  {label:<36} {run():7.1f} texts/s")
    np.asarray(embedder.embed(said[:2]))  # the embedder still answers after the runs
    memory.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
