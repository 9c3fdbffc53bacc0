"""Where an add's time goes, and single-turn versus batched ingest of LoCoMo turns.

    python benchmarks/ingest_stages.py [--turns 300] [--batch 128] [--config FILE]

Adds the first ``--turns`` turns of the LoCoMo conversations the way
``benchmarks/locomo.py`` does (one ``Memory.add`` per turn, ``user_id`` = the
conversation, ``timestamp`` = its session's date), into a fresh data directory,
timing each stage the add pipeline calls (every call wrapped, so the stages
sum to about the whole):

- ``extract``: the language model's extraction (the heuristic extractor by default);
- ``hash lookup``: the store ``list`` of stored memories with the same normalized text;
- ``embed``: the document embedding of the fresh facts;
- ``paraphrase``: the store ``search_vector`` for near duplicates;
- ``vector write``: the store ``upsert`` (with write-behind: the journal append);
- ``relational``: history rows, entity counts and graph links in one transaction;
- ``hooks``: the ``memory_added`` plugins (webhooks...);

then the same turns again through ``Memory.add_many`` (in batches of ``--batch``)
into another fresh directory. Prints turns/s for both, and ms per add per stage.

Adds spread over many users of a large store (the first add to a scope loads it):

    cp -r /data/scale/lancedb-100000 /tmp/one; cp -r /data/scale/lancedb-100000 /tmp/bulk
    python benchmarks/ingest_stages.py --data-dir /tmp/one --bulk-data-dir /tmp/bulk --spread 1000 --turns 400

``--data-dir`` adds one at a time into that data directory and ``--bulk-data-dir``
through ``add_many`` into that one (both are modified: pass copies; with ``--data-dir``
alone ``add_many`` is skipped). ``--spread N`` sends each turn to one of the users ``u0``
to ``u{N-1}`` (seeded, the same user for a turn in both runs) instead of its
conversation's; ``scope load`` is then a stage of its own (the scope index loading a
scope it does not hold). Such an add
embeds its facts while its scope loads, so those two stages overlap and ``other`` (the
wall time no stage accounts for) can come out below zero.
The background flusher of the LanceDB store runs beside the adds (its cost shows
only in the wall time, as it does in a served process).
"""

from __future__ import annotations

import argparse
import json
import os
import random
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

from locomo import DEFAULT_DATA, turn_text, turns_of  # noqa: E402


def turns(data: Path, limit: int) -> list[tuple[str, dict[str, Any], str]]:
    out: list[tuple[str, dict[str, Any], str]] = []
    for path in sorted(data.glob("*.json")):
        conversation = json.loads(path.read_text())
        out.extend((path.stem, turn, when) for turn, when in turns_of(conversation))
        if len(out) >= limit:
            break
    return out[:limit]


def wrap(owner: Any, name: str, label: str, spent: dict[str, float]) -> None:
    """Replace ``owner.name`` by a timed call adding its seconds to ``spent[label]``."""
    real: Callable[..., Any] = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - began

    setattr(owner, name, timed)


def engine(config: Path | None, data_dir: Path | None = None) -> Any:
    from memorist import Engine as Memory
    from memorist.config.settings import load_settings

    where = str(data_dir) if data_dir is not None else tempfile.mkdtemp(prefix="memorist-ingest-")
    return Memory.from_settings(load_settings(config, {"data_dir": where}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="directory of LoCoMo JSON files")
    parser.add_argument("--config", type=Path, help="Memorist YAML config (default: built-in embedded default)")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--batch", type=int, default=128, help="requests per add_many call")
    parser.add_argument("--data-dir", type=Path, help="add into this data directory (modified: pass a copy)")
    parser.add_argument("--bulk-data-dir", type=Path, help="add_many into this data directory (modified: a copy)")
    parser.add_argument("--spread", type=int, default=0, help="send each turn to one of N users u0..u{N-1}")
    args = parser.parse_args(argv)
    from dateutil import parser as date_parser

    selected = turns(args.data, args.turns)
    if not selected:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 2

    def request_args(
        user: str, turn: dict[str, Any], when: str, users: random.Random | None
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """One add's arguments; with ``users`` (``--spread``), the turn goes to a user it picks."""
        messages = [{"role": "user", "content": turn_text(turn), "name": turn["speaker"]}]
        moment = date_parser.parse(when, fuzzy=True) if when else None
        if users is not None:
            user = f"u{users.randrange(args.spread)}"
        return messages, {"user_id": user, "metadata": {"dia_id": turn["dia_id"]}, "timestamp": moment}

    memory = engine(args.config, args.data_dir)
    memory.add("warm up the embedder and the store", user_id="warm-up")
    spent: dict[str, float] = defaultdict(float)
    store, adder = memory.components.vector_store, memory.adder
    wrap(memory.components.language_model, "extract_detailed", "extract", spent)
    wrap(store, "list", "hash lookup", spent)
    wrap(memory.components.embedder, "embed", "embed", spent)
    wrap(store, "search_vector", "paraphrase", spent)
    wrap(store, "upsert", "vector write", spent)
    wrap(store, "snapshot", "scope load", spent)
    wrap(adder, "commit", "relational", spent)
    wrap(memory, "emit", "hooks", spent)
    held = memory.components.vector_store.count(None)  # the warm-up's, and a kept store's memories
    users = random.Random(7) if args.spread else None
    began = time.perf_counter()
    for user, turn, when in selected:
        messages, kwargs = request_args(user, turn, when, users)
        memory.add(messages, **kwargs)
    single = time.perf_counter() - began
    stored = memory.components.vector_store.count(None) - held
    memory.close()
    count = len(selected)
    print(
        f"single: {count / single:7.1f} turns/s ({count} turns, {stored} memories, {single * 1000 / count:.2f} ms/add)"
    )
    for label, seconds in spent.items():
        print(f"  {label:<13} {seconds * 1000 / count:6.2f} ms/add")
    accounted = sum(spent.values())
    print(f"  {'other':<13} {(single - accounted) * 1000 / count:6.2f} ms/add")
    if args.data_dir is not None and args.bulk_data_dir is None:
        return 0  # the first run changed that store: add_many needs a copy of its own

    memory = engine(args.config, args.bulk_data_dir)
    memory.add("warm up the embedder and the store", user_id="warm-up")
    held = memory.components.vector_store.count(None)
    users = random.Random(7) if args.spread else None  # each turn to the user it went to above
    requests = [memory.add_request(m, **k) for m, k in (request_args(*t, users) for t in selected)]
    began = time.perf_counter()
    for start in range(0, count, args.batch):
        memory.add_many(requests[start : start + args.batch])
    bulk = time.perf_counter() - began
    stored_bulk = memory.components.vector_store.count(None) - held
    memory.close()
    print(f"add_many: {count / bulk:7.1f} turns/s ({count} turns, {stored_bulk} memories, batches of {args.batch})")
    print(f"ratio add_many / single: {single / bulk:.2f}x (same run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
