"""Multilingual retrieval benchmark (issue 37): hit@3 per language, same- and cross-language.

    python benchmarks/multilingual.py [--cases FILE] [--json OUT]

Reads ``multilingual_cases.yaml`` (hand-written: a fact, a question in the fact's
language, a question in English; Spanish for the English facts). Runs twice, each
in a fresh data directory through ``memorist.Memory``:

- ``default``: the default configuration (English MiniLM embedder; keyword and
  entity signals do the rest for other languages);
- ``multilingual``: the same with ``multilingual.enabled: true`` (the
  ``multilingual-use`` embedder's vector space).

Every fact is added (``infer=True``: the extractor runs; a fact it skips is
counted and named). Each language has a bilingual user holding its ten facts and
the ten English ones (the English user: the Spanish ones), so a question competes
with facts in the question's language sharing its words, the hard case across
languages. (One user holding every language was tried first: then a generic
question such as "What is the user allergic to?" has six right answers, one per
language, and top-3 measures nothing.) A case hits when a memory made from its
fact is among the first three results of its user's search. Prints hit@3 per language for same-language and
cross-language questions, and the mean cost per add and per search (wall time on
a shared host: noisy; compare only figures from one run).
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

import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

CASES = Path(__file__).with_name("multilingual_cases.yaml")


def load_cases(path: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for language, lines in yaml.safe_load(path.read_text(encoding="utf-8")).items():
        for line in lines:
            fact, same, cross = (part.strip() for part in line.split(" | "))
            rows.append({"language": language, "fact": fact, "same": same, "cross": cross})
    return rows


def run(config: dict[str, Any], cases: list[dict[str, str]]) -> dict[str, Any]:
    from memorist import Memory

    with tempfile.TemporaryDirectory() as data_dir:
        memory = Memory.from_config({"data_dir": data_dir, **config})
        try:
            companion = {language: "es" if language == "en" else "en" for language in {c["language"] for c in cases}}
            ids: list[set[str]] = []
            skipped: list[str] = []
            started, adds = time.perf_counter(), 0
            for language, partner in companion.items():
                for case in cases:
                    if case["language"] not in (language, partner):
                        continue
                    results = memory.add(case["fact"], user_id=f"speaker-{language}")["results"]
                    adds += 1
                    if case["language"] == language:
                        ids.append({row["id"] for row in results})
                        if not results:
                            skipped.append(f"{case['language']}: {case['fact']}")
            add_ms = (time.perf_counter() - started) * 1000 / adds
            ordered = [c for language in companion for c in cases if c["language"] == language]
            hits: dict[str, dict[str, list[int]]] = {}
            searches, started = 0, time.perf_counter()
            for case, wanted in zip(ordered, ids, strict=True):
                user = f"speaker-{case['language']}"
                for kind in ("same", "cross"):
                    found = memory.search(case[kind], user_id=user, limit=3, threshold=0.0)["results"]
                    searches += 1
                    hit = int(bool(wanted & {row["id"] for row in found[:3]}))
                    hits.setdefault(case["language"], {"same": [], "cross": []})[kind].append(hit)
            search_ms = (time.perf_counter() - started) * 1000 / searches
        finally:
            memory.close()
    table = {
        language: {kind: sum(values) / len(values) for kind, values in kinds.items()}
        for language, kinds in hits.items()
    }
    return {"hit_at_3": table, "skipped": skipped, "add_ms": add_ms, "search_ms": search_ms}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--json", type=Path, help="Write the figures here too.")
    args = parser.parse_args(argv)
    cases = load_cases(args.cases)
    languages = sorted({c["language"] for c in cases})
    print(f"{len(cases)} cases in {len(languages)} languages: {', '.join(languages)}")
    configs = {"default": {}, "multilingual": {"multilingual": {"enabled": True}}}
    figures = {name: run(config, cases) for name, config in configs.items()}
    print(f"\n{'language':<10}" + "".join(f"{name + ' ' + kind:>20}" for name in configs for kind in ("same", "cross")))
    for language in ["en", *[x for x in languages if x != "en"]]:
        row = "".join(
            f"{figures[name]['hit_at_3'][language][kind]:>20.0%}" for name in configs for kind in ("same", "cross")
        )
        print(f"{language:<10}{row}")
    for name, result in figures.items():
        print(
            f"\n{name}: {len(result['skipped'])} facts skipped; "
            f"{result['add_ms']:.1f} ms per add, {result['search_ms']:.1f} ms per search (shared host: noisy)"
        )
        for line in result["skipped"]:
            print(f"  skipped {line}")
    if args.json:
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    sys.exit(main())
