"""Chance-level cosines per language, and what a change hides because of them.

    python benchmarks/chance_levels.py [--config FILE] [--embedder multilingual-use]

The supersession rule compares a cosine with bars set on English (``CHANGE_SIMILARITY``
0.6, ``BARE_CHANGE_SIMILARITY`` 0.4, ...). Two short statements that say nothing of each
other score far higher in some languages than in English under an embedder trained on
English, so in those languages the bars pass for unrelated facts. This prints:

- per language, the **chance level**: the mean cosine (and its spread) of the distinct pairs
  of the lexicon's ``unrelated_statements`` (short first-person facts on different topics)
  under the configured embedder (``--config``, or ``--embedder`` to swap the embedder of the
  default configuration);
- per language of ``benchmarks/unrelated_changes.yaml``, a replay through the Python API
  (one add a day, each pair in its own user, ``latest_only`` list): how many ``unrelated``
  older facts a change wrongly hid, and how many ``change`` rows replaced the older value.

Quality figures: deterministic for a given embedder.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

CASES = Path(__file__).with_name("unrelated_changes.yaml")


def chance_level(vectors: np.ndarray) -> tuple[float, float]:
    """The mean and standard deviation of the cosines of the distinct pairs of ``vectors``."""
    matrix = np.asarray(vectors, dtype=np.float64)
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    upper = np.triu_indices(len(unit), 1)
    cosines = (unit @ unit.T)[upper]
    return float(cosines.mean()), float(cosines.std())


def current(memory: Any, user: str, older: str, newer: str) -> tuple[bool, bool]:
    """Whether the older and the newer fact's memories are current after the two adds."""
    ids = []
    for day, text in enumerate((older, newer), start=2):
        results = memory.add(text, user_id=user, timestamp=f"2026-03-{day:02d}T09:00:00Z")["results"]
        ids.append({row["id"] for row in results})
    shown = {row["id"] for row in memory.get_all(user_id=user, latest_only=True, limit=50)["results"]}
    return bool(ids[0]) and ids[0] <= shown, bool(ids[1]) and ids[1] <= shown


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, help="A YAML configuration (default: the embedded default).")
    parser.add_argument("--embedder", help="Swap the embedder provider (e.g. multilingual-use).")
    parser.add_argument("--cases", type=Path, default=CASES)
    args = parser.parse_args(argv)

    from memorist import Memory
    from memorist.language import languages, lexicon

    with tempfile.TemporaryDirectory() as data_dir:
        config: dict[str, Any] = yaml.safe_load(args.config.read_text()) if args.config else {}
        config["data_dir"] = data_dir
        if args.embedder:
            config["embedder"] = {"provider": args.embedder, "options": {}}
        memory = Memory.from_config(config)
        try:
            embedder = memory.engine.components.embedder
            print(f"embedder: {embedder.describe()}")
            levels = {}
            for code in languages():
                statements = [str(s) for s in lexicon(code).get("unrelated_statements") or ()]
                if len(statements) >= 2:
                    levels[code] = chance_level(np.asarray(embedder.embed(statements, "document")))
            english = levels.get("en", (0.0, 0.0))[0]
            print(f"\n{'language':<10}{'chance':>8}{'spread':>8}{'- en':>8}")
            for code, (mean, spread) in levels.items():
                print(f"{code:<10}{mean:>8.3f}{spread:>8.3f}{mean - english:>+8.3f}")

            cases = yaml.safe_load(args.cases.read_text(encoding="utf-8"))
            print(f"\n{'language':<10}{'unrelated hidden':>18}{'changes replaced':>18}")
            totals = [0, 0, 0, 0]
            for code, kinds in cases.items():
                hidden = replaced = 0
                for i, row in enumerate(kinds.get("unrelated", [])):
                    older, newer = (part.strip() for part in row.split(" | "))
                    kept, _ = current(memory, f"unrelated-{code}-{i}", older, newer)
                    hidden += not kept
                for i, row in enumerate(kinds.get("change", [])):
                    older, newer = (part.strip() for part in row.split(" | "))
                    kept, _ = current(memory, f"change-{code}-{i}", older, newer)
                    replaced += not kept
                n_unrelated, n_change = len(kinds.get("unrelated", [])), len(kinds.get("change", []))
                totals = [totals[0] + hidden, totals[1] + n_unrelated, totals[2] + replaced, totals[3] + n_change]
                print(f"{code:<10}{f'{hidden}/{n_unrelated}':>18}{f'{replaced}/{n_change}':>18}")
            print(f"{'all':<10}{f'{totals[0]}/{totals[1]}':>18}{f'{totals[2]}/{totals[3]}':>18}")
        finally:
            memory.close()


if __name__ == "__main__":
    main()
