"""Small scopes as a first user fills them: how high the memory that answers ranks.

    python benchmarks/first_users.py [--config FILE] [--json OUT] [--verbose]

Two sets, each into the embedded default (or ``--config``) in a temporary directory:

- ``first users``: ``first_users/conversations.yaml``, five short conversations typed
  as a new user would, then questions in their own words ("What do I...?", "What did you
  recommend?");
- ``retention, about the user`` and ``retention, first person``: the retention suite's
  statements (``tests/retention/statements.yaml``) in one user's memory, every question
  asked as written ("What does the user like to drink?") and in the first person ("What
  do I like to drink?").

Prints, per set, the mean reciprocal rank of the first hit containing the expected word
(top 10; a miss counts 0) and the share ranked first. A LoCoMo figure can hide what a
scope of five memories does; this is the check for that. In the retention suite a
changed fact's older value is asked for too, so its expected rank is 2 by design:
compare runs, not against 1.0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from memorist.config.settings import load_settings  # noqa: E402
from memorist.python.engine import Engine  # noqa: E402

CONVERSATIONS = Path(__file__).resolve().parent / "first_users" / "conversations.yaml"
STATEMENTS = ROOT / "tests" / "retention" / "statements.yaml"
TOP_K = 10

#: "the user" questions of the retention suite in the first person, in this order.
_TO_FIRST_PERSON = [
    (r"\bthe user's\b", "my"),
    (r"\bThe user's\b", "My"),
    (r"\bdoes the user\b", "do I"),
    (r"\bDoes the user\b", "Do I"),
    (r"\bis the user\b", "am I"),
    (r"\bIs the user\b", "Am I"),
    (r"\bhas the user\b", "have I"),
    (r"\bHas the user\b", "Have I"),
    (r"\b(was|did) the user\b", r"\1 I"),
    (r"\b(give|with|to|for|tell|remind) the user\b", r"\1 me"),
    (r"\bthe user\b", "I"),
]


def first_person(question: str) -> str:
    for pattern, replacement in _TO_FIRST_PERSON:
        question = re.sub(pattern, replacement, question)
    return question


def rank(memory: Engine, user: str, question: str, expect: str) -> int | None:
    """1-based rank of the first hit containing ``expect``; None past the top 10."""
    for position, hit in enumerate(memory.search(question, user_id=user, top_k=TOP_K), start=1):
        if expect.lower() in hit.record.text.lower():
            return position
    return None


def first_users(memory: Engine) -> list[tuple[str, str, int | None]]:
    out = []
    for conversation in yaml.safe_load(CONVERSATIONS.read_text()):
        user = conversation["user"]
        for said in conversation.get("say", []):
            memory.add([{"role": "user", "content": said}], user_id=user)
        for messages in conversation.get("messages", []):
            memory.add(messages, user_id=user)
        out += [(q, e, rank(memory, user, q, str(e))) for q, e in conversation["ask"]]
    return out


def retention(memory: Engine) -> tuple[list[tuple[str, str, int | None]], list[tuple[str, str, int | None]]]:
    cases = yaml.safe_load(STATEMENTS.read_text())
    for case in cases:
        messages = case.get("messages") or ([{"role": "user", "content": case["say"]}] if "say" in case else None)
        if messages is not None:
            memory.add(messages, user_id="retention")
    as_written, in_first_person = [], []
    for case in cases:
        pairs = ([(case["ask"], case["expect"])] if "ask" in case else []) + [tuple(p) for p in case.get("checks", [])]
        for question, expect in pairs:
            as_written.append((question, str(expect), rank(memory, "retention", question, str(expect))))
            if (asked := first_person(question)) != question:
                in_first_person.append((asked, str(expect), rank(memory, "retention", asked, str(expect))))
    return as_written, in_first_person


def summary(rows: list[tuple[str, str, int | None]]) -> dict[str, Any]:
    return {
        "questions": len(rows),
        "mrr": round(sum(1 / r for _, _, r in rows if r) / len(rows), 4),
        "first": round(sum(1 for _, _, r in rows if r == 1) / len(rows), 3),
        "missed": [(q, e, r) for q, e, r in rows if r != 1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, help="Memorist YAML config (default: the embedded default)")
    parser.add_argument("--json", type=Path, help="write the figures and every question not ranked first here")
    parser.add_argument("--verbose", action="store_true", help="print every question not ranked first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings(args.config, {"data_dir": data_dir, "request_log": {"enabled": False}})
        memory = Engine.from_settings(settings)
        try:
            sets = {"first users": first_users(memory)}
            sets["retention, about the user"], sets["retention, first person"] = retention(memory)
        finally:
            memory.close()
    results = {name: summary(rows) for name, rows in sets.items()}
    for name, result in results.items():
        print(f"{name}: {result['questions']} questions, MRR {result['mrr']:.4f}, ranked first {result['first']:.3f}")
        if args.verbose:
            for question, expect, position in result["missed"]:
                print(f"    {position or '-'}  {question}  ({expect})")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
