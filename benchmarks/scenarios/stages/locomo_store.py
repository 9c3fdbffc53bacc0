"""A fresh data directory loaded with LoCoMo conversations, for the stage benchmark without a kept store.

Why: the scale benchmark's 100k store takes many minutes to build; a store of
one or a few real conversations (a user's scope of a few hundred memories, the
size issue 17's targets are about) loads in a minute and gives real questions
to search with. The last ``held_out`` turns of the first conversation are not
loaded: the ingest stages add them, so each is new to the store (not merged
as a duplicate of itself).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dateutil import parser as date_parser
from locomo import evidence_ids, turn_text, turns_of


@dataclass
class LocomoStore:
    user: str  # the first conversation: questions and held-out turns are its
    questions: list[str]
    held_out: list[dict[str, Any]]  # ``Memory.add`` keyword arguments, one turn each
    loaded_turns: int = 0
    load_seconds: float = 0.0
    users: list[str] = field(default_factory=list)


def add_kwargs(user: str, turn: dict[str, Any], when: str) -> dict[str, Any]:
    """``Memory.add_request`` arguments of one turn, as ``benchmarks/locomo.py`` adds it."""
    return {
        "messages": [{"role": "user", "content": turn_text(turn), "name": turn["speaker"]}],
        "user_id": user,
        "metadata": {"dia_id": turn["dia_id"]},
        "timestamp": date_parser.parse(when, fuzzy=True) if when else None,
    }


def load(memory: Any, data: Path, limit: int, held_out: int) -> LocomoStore:
    """Add the first ``limit`` conversations of ``data`` to ``memory`` (``add_many``), but ``held_out`` turns."""
    files = sorted(data.glob("*.json"))[:limit]
    if not files:
        raise SystemExit(f"no LoCoMo files in {data}")
    store: LocomoStore | None = None
    for path in files:
        conversation = json.loads(path.read_text())
        user = path.stem
        turns = [add_kwargs(user, turn, when) for turn, when in turns_of(conversation)]
        if store is None:
            questions = [
                qa["question"]
                for qa in conversation["qa"]
                if qa.get("category") in (1, 2, 3, 4) and evidence_ids(qa.get("evidence", []))
            ]
            keep = max(len(turns) - held_out, 0)
            store = LocomoStore(user, questions, turns[keep:])
            turns = turns[:keep]
        began = time.perf_counter()
        memory.add_many([memory.add_request(**kwargs) for kwargs in turns])
        store.load_seconds += time.perf_counter() - began
        store.loaded_turns += len(turns)
        store.users.append(user)
    assert store is not None
    return store
