"""What detecting each clause's language costs the keyword index, per LoCoMo turn.

    python benchmarks/index_terms.py [--data DIR] [--rounds 5]

Times ``engine.keywords.index_terms`` (each clause's language detected, its function
words dropped, Latin languages stemmed in their own language) against ``terms`` (the
English-only terms the stores index) over every LoCoMo turn, framed as a memory is
("The user: ..."), with the term and detection caches cleared before each round: the
cost a scope snapshot's first build pays. Prints the best round of each, in µs per turn.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import DEFAULT_DATA, turn_text  # noqa: E402


def turns(data: Path) -> list[str]:
    import json

    out = []
    for path in sorted(data.glob("*.json")):
        document = json.loads(path.read_text())
        conversation = document.get("conversation", document)
        for value in conversation.values():
            if isinstance(value, list):
                out.extend(f"The user: {turn_text(turn)}" for turn in value if isinstance(turn, dict))
    return out


def best_us(index: Callable[[str], list[str]], texts: list[str], rounds: int) -> float:
    from memorist import language
    from memorist.engine import keywords

    spent = []
    for _ in range(rounds):
        keywords._term.cache_clear()
        keywords._latin_term.cache_clear()
        language.language_of.cache_clear()
        began = time.perf_counter()
        for text in texts:
            index(text)
        spent.append((time.perf_counter() - began) / len(texts) * 1e6)
    return min(spent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    texts = turns(args.data)
    if not texts:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 2
    from memorist.engine.keywords import index_terms, terms

    index_terms("warm up")  # lexicons loaded outside the timing
    print(f"{len(texts)} LoCoMo turns, best of {args.rounds} rounds, caches cleared each round")
    print(f"index_terms (per-clause language) {best_us(index_terms, texts, args.rounds):7.2f} µs per turn")
    print(f"terms (English-only)              {best_us(terms, texts, args.rounds):7.2f} µs per turn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
