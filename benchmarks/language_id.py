"""Language identification: accuracy per language and cost per call, per identifier.

    python benchmarks/language_id.py [--half tune|holdout|all] [--only NAME ...] [--errors]

Cases: the short chat sentences of ``benchmarks/language_id_cases.yaml`` plus what the
repository already labels by language: each lexicon's ``unrelated_statements``, the rows of
``tests/golden/supersession.yaml`` (its "The user: " prefix dropped), the facts and
questions of ``benchmarks/multilingual_cases.yaml`` (the third field is English, or Spanish
for English facts) and the ``(text, code)`` pairs of ``tests/unit/language/test_lexicons_*.py``.
A case is in the tune half when crc32 of its text is even, else in the held-out half: the
split needs no stored list and does not move when cases are added.

Identifiers: ``lexicon`` (``memorist.language.language_of``, its cache bypassed),
``lingua-low`` / ``lingua-high`` (lingua-language-detector restricted to the 24 lexicon
languages, models preloaded), ``langid`` (restricted the same way) and ``lexicon+lingua``
(what ``language_of`` does when lingua is installed). An identifier whose package is absent
is skipped. Cost is microseconds per call, mean over every case after one warm-up pass, one
run on a shared host (noisy: compare figures of one run only). ``--rss`` prints each
library's resident memory before and after building its detector, each in a fresh process.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "framework"), str(ROOT / "plugins")]

from memorist.language import DEFAULT, languages, lexicon  # noqa: E402

CODES = tuple(languages())
PREFIX = "The user: "


def cases() -> list[tuple[str, str, str]]:
    """(text, language, source) for every labelled sentence, duplicates once."""
    out: dict[str, tuple[str, str]] = {}

    def add(text: str, code: str, source: str) -> None:
        text = text.strip()
        if text.startswith(PREFIX):
            text = text[len(PREFIX) :]
        if text and code in CODES:
            out.setdefault(text, (code, source))

    own = yaml.safe_load((ROOT / "benchmarks/language_id_cases.yaml").read_text(encoding="utf-8"))
    for code, texts in own.items():
        for text in texts:
            add(text, code, "chat")
    for code in CODES:
        for text in lexicon(code).get("unrelated_statements") or []:
            add(text, code, "lexicon")
    golden = yaml.safe_load((ROOT / "tests/golden/supersession.yaml").read_text(encoding="utf-8"))
    for code, rows in golden.items():
        for pair in rows.get("pairs", []):
            add(pair[0], code, "golden")
            add(pair[1], code, "golden")
        for row in rows.get("across_adds", []):
            for text in row["adds"]:
                add(text, code, "golden")
    multi = yaml.safe_load((ROOT / "benchmarks/multilingual_cases.yaml").read_text(encoding="utf-8"))
    for code, rows in multi.items():
        for row in rows:
            fact, same, other = (part.strip() for part in row.split("|"))
            add(fact, code, "multilingual")
            add(same, code, "multilingual")
            add(other, "es" if code == "en" else "en", "multilingual")
    for path in sorted((ROOT / "tests/unit/language").glob("test_lexicons_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple) and len(node.elts) == 2:
                text, code = node.elts
                if (
                    isinstance(text, ast.Constant)
                    and isinstance(code, ast.Constant)
                    and isinstance(text.value, str)
                    and code.value in CODES
                    and len(text.value) > 3
                ):
                    add(text.value, code.value, "tests")
    return [(text, code, source) for text, (code, source) in out.items()]


def half(text: str) -> str:
    return "tune" if zlib.crc32(text.encode("utf-8")) % 2 == 0 else "holdout"


def lingua_detector(high: bool):  # type: ignore[no-untyped-def]
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    langs = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in CODES]
    builder = LanguageDetectorBuilder.from_languages(*langs).with_preloaded_language_models()
    return (builder if high else builder.with_low_accuracy_mode()).build()


def lexicon_then(reader: Callable[[str, tuple[str, ...], tuple[str, ...]], str | None]) -> Callable[[str], str]:
    """The lexicons' reading, with ``reader`` deciding their close calls (as language_of)."""
    import language_ngram as ngram_detector
    from memorist import language as layer

    def identify(text: str) -> str:
        reading = layer._evidence_scores(text)
        if isinstance(reading, str):
            return reading
        candidates, score, default = reading
        chosen = layer._lexicon_choice(score, default, lettered=not text.isascii())
        runner_up = max((v for code, v in score.items() if code != chosen), default=0.0)
        if score[chosen] - runner_up >= ngram_detector.CLEAR_LEAD:
            return chosen
        best = max(score.values())
        open_to = tuple(code for code in candidates if best - score[code] < ngram_detector.OPEN_BAND)
        if len(open_to) < 2:
            return chosen
        return reader(text, candidates, open_to) or chosen

    return identify


def identifiers() -> dict[str, Callable[[str], str]]:
    import language_ngram as ngram_detector
    from memorist import language as layer

    found: dict[str, Callable[[str], str]] = {"lexicon": layer.language_of.__wrapped__}
    try:
        import lingua  # noqa: F401
    except ImportError:
        pass
    else:
        for name, high in (("lingua-low", False), ("lingua-high", True)):
            detector = lingua_detector(high)

            def lingua_of(text: str, detector=detector) -> str:  # type: ignore[no-untyped-def]
                found_language = detector.detect_language_of(text)
                return found_language.iso_code_639_1.name.lower() if found_language else DEFAULT

            found[name] = lingua_of
        found["lexicon+lingua"] = lexicon_then(lingua_close_call)
    try:
        import langid
    except ImportError:
        pass
    else:
        langid.set_languages(list(CODES))
        found["langid"] = lambda text: langid.classify(text)[0]
        found["lexicon+langid"] = ngram_detector.combined_language_of.__wrapped__
    return found


_LINGUA: dict[tuple[str, ...], object] = {}


def lingua_close_call(text: str, candidates: tuple[str, ...], open_to: tuple[str, ...]) -> str | None:
    """lingua (low accuracy, restricted to the script's languages, minimum relative
    distance 0.2, the best of 0/0.05/0.1/0.2/0.3 on the tune half) for a close call."""
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    if candidates not in _LINGUA:
        langs = [Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in candidates]
        _LINGUA[candidates] = (
            LanguageDetectorBuilder.from_languages(*langs)
            .with_low_accuracy_mode()
            .with_preloaded_language_models()
            .with_minimum_relative_distance(0.2)
            .build()
        )
    found = _LINGUA[candidates].detect_language_of(text)  # type: ignore[attr-defined]
    code = found.iso_code_639_1.name.lower() if found else None
    return code if code in open_to else None


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def rss_child(name: str) -> str:
    """Resident MB before importing, after building and after one call, in this process."""
    before = rss_mb()
    if name.startswith("lingua"):
        detector = lingua_detector(name == "lingua-high")
        built = rss_mb()
        detector.detect_language_of("Mit nye nummer er 12345678.")
    else:
        import langid

        langid.set_languages(list(CODES))
        built = rss_mb()
        langid.classify("Mit nye nummer er 12345678.")
    return f"{name}: {before:.0f} MB before, {built:.0f} MB built, {rss_mb():.0f} MB after a call"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=("tune", "holdout", "all"), default="all")
    parser.add_argument("--only", nargs="*", help="identifiers to run (default: every one installed)")
    parser.add_argument("--errors", action="store_true", help="print each wrong answer (tune half only)")
    parser.add_argument("--rss", action="store_true", help="measure each library's memory in a fresh process")
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss_child:
        print(rss_child(args.rss_child))
        return
    every = cases()
    chosen = [c for c in every if args.half == "all" or half(c[0]) == args.half]
    counts = Counter(code for _, code, _ in chosen)
    print(
        f"{len(chosen)} cases ({args.half}) of {len(every)}; by source:",
        dict(Counter(source for _, _, source in chosen)),
    )
    names = identifiers()
    if args.only:
        names = {n: f for n, f in names.items() if n in args.only}
    table: dict[str, dict[str, int]] = {}
    cost: dict[str, float] = {}
    for name, identify in names.items():
        for text, _, _ in chosen:  # warm-up: lazy models, caches of the lexicons
            identify(text)
        right: dict[str, int] = defaultdict(int)
        start = time.perf_counter()
        answers = [identify(text) for text, _, _ in chosen]
        cost[name] = (time.perf_counter() - start) / len(chosen) * 1e6
        for (text, code, source), answer in zip(chosen, answers, strict=True):
            right[code] += answer == code
            if args.errors and answer != code and half(text) == "tune":
                print(f"  {name}: {text!r} is {code}, read {answer} ({source})")
        table[name] = right
    width = max(len(n) for n in names) + 2
    print("lang   n  " + "".join(f"{n:>{width}}" for n in names))
    for code in sorted(counts, key=lambda c: CODES.index(c)):
        print(f"{code:<4}{counts[code]:>4}  " + "".join(f"{table[n][code]:>{width}}" for n in names))
    total = len(chosen)
    print(f"all {total:>4}  " + "".join(f"{sum(table[n].values()):>{width}}" for n in names))
    print("share     " + "".join(f"{sum(table[n].values()) / total:>{width}.1%}" for n in names))
    print("µs/call   " + "".join(f"{cost[n]:>{width}.0f}" for n in names))
    print("(cost: one run on a shared 2-core host; noisy)")
    if args.rss:
        for name in names:
            if name in ("lingua-low", "lingua-high", "langid"):
                result = subprocess.run(
                    [sys.executable, __file__, "--rss-child", name], capture_output=True, text=True, check=True
                )
                print(result.stdout.strip())


if __name__ == "__main__":
    main()
