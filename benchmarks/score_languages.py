"""What a calibrated search score says in each language: unrelated memories < 0.2, answers >= 0.5?

    python benchmarks/score_languages.py

Each language's facts (``multilingual_cases.yaml``, and ``score_languages.yaml`` for Dutch
and Swedish) are added to one user of that language through the Python API (the embedded
default); each fact's question in the same language is searched (``limit=50``,
``threshold=0``). Prints per language the share of the other memories (unrelated to the
question) scoring below 0.2, the share of answers scoring 0.5 or more, and the answers
below the v3 default threshold 0.1 (which that threshold would drop). Deterministic.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

HERE = Path(__file__).parent


def cases() -> list[tuple[str, str, str]]:
    """(language, fact, question in the fact's language)."""
    rows = []
    for path, width in ((HERE / "multilingual_cases.yaml", 3), (HERE / "score_languages.yaml", 2)):
        for language, lines in yaml.safe_load(path.read_text(encoding="utf-8")).items():
            for line in lines:
                parts = [part.strip() for part in line.split(" | ")]
                assert len(parts) == width, line
                rows.append((language, parts[0], parts[1]))
    return rows


def main() -> None:
    from memorist import Memory

    rows = cases()
    with tempfile.TemporaryDirectory() as data_dir:
        memory = Memory.from_config({"data_dir": data_dir})
        try:
            ids = [{r["id"] for r in memory.add(fact, user_id=f"u-{code}")["results"]} for code, fact, _ in rows]
            stats: dict[str, list[int]] = {}
            for (code, _, question), wanted in zip(rows, ids, strict=True):
                found = memory.search(question, user_id=f"u-{code}", limit=50, threshold=0.0)["results"]
                counts = stats.setdefault(code, [0, 0, 0, 0, 0])
                for row in found:
                    if row["id"] in wanted:
                        counts[2] += 1
                        counts[3] += row["score"] >= 0.5
                        counts[4] += row["score"] < 0.1
                    else:
                        counts[0] += 1
                        counts[1] += row["score"] < 0.2
        finally:
            memory.close()
    print(f"{'language':<10}{'unrelated < 0.2':>18}{'answers >= 0.5':>16}{'answers < 0.1':>15}")
    for code, (unrelated, low, answers, high, dropped) in sorted(stats.items()):
        share = f"{low}/{unrelated} {low / max(unrelated, 1):.0%}"
        print(f"{code:<10}{share:>18}{f'{high}/{answers}':>16}{f'{dropped}/{answers}':>15}")


if __name__ == "__main__":
    main()
