"""The fact-retention suite: say each statement once, then ask for it back.

``statements.yaml`` holds the cases (see its header). :func:`run` replays them,
in order, through a *door* (the Python API, the self-hosted REST API, the
platform API, or another extraction path) into one user's memory, then asks
every question and scores:

- **stored**: share of distinct facts whose add stored a memory (none merged away);
- **retention**: share of distinct facts' questions whose top 5 hold a memory
  stored by that very case and containing the expected token;
- **false duplicates**: distinct facts merged into an existing memory (must be 0);
- **true duplicates**: exact and paraphrase repeats merged with the memory of the
  case they repeat, storing nothing new;
- **skips**: statements with no fact stored nothing and reported the expected reason.

The same code serves ``tests/retention/test_retention.py`` and
``benchmarks/retention.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

DATA = Path(__file__).resolve().parent / "statements.yaml"
USER = "alice"
TOP = 5
DISTINCT = ("fact", "change", "negation", "reversal", "assistant", "multi")
REPEATS = ("repeat", "paraphrase")


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    messages: list[dict[str, Any]]
    checks: list[tuple[str, str]]
    repeats: str | None = None
    reason: str | None = None
    skipped: tuple[str, ...] = ()
    #: The case whose value this one changes (``change``, ``reversal``).
    changes: str | None = None


def load_cases(path: Path = DATA) -> list[Case]:
    cases = []
    for raw in yaml.safe_load(path.read_text(encoding="utf-8")):
        messages = raw.get("messages") or [{"role": "user", "content": raw["say"]}]
        checks = [tuple(c) for c in raw.get("checks", [])]
        if "ask" in raw:
            checks.append((raw["ask"], str(raw["expect"])))
        skipped = tuple(raw.get("skipped", ())) + ((raw["reason"],) if raw.get("reason") else ())
        cases.append(
            Case(
                raw["id"],
                raw["kind"],
                messages,
                [(str(q), str(t)) for q, t in checks],
                raw.get("repeats"),
                raw.get("reason"),
                skipped,
                raw.get("changes"),
            )
        )
    return cases


@dataclass
class AddAnswer:
    """An add's answer as any door reports it: ``stored`` items have ``id`` and ``memory``."""

    stored: list[dict[str, Any]]
    merged: list[dict[str, Any]]
    skipped: list[dict[str, Any]]


class Door(Protocol):
    def add(self, messages: list[dict[str, Any]]) -> AddAnswer: ...

    def search(self, query: str, top_k: int) -> list[dict[str, Any]]:
        """Hits with ``id`` and ``memory``, best first."""
        ...


@dataclass
class Report:
    cases: int = 0
    distinct: int = 0
    stored: int = 0
    questions: int = 0
    found: int = 0
    false_duplicates: int = 0
    repeats: int = 0
    repeats_merged: int = 0
    skips: int = 0
    skips_reported: int = 0
    #: Changed values whose question found both versions, and those that ranked the new one first.
    changes_both_found: int = 0
    changes_newest_first: int = 0
    #: Changed values found below their older version (informative, not a target).
    older_first: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def stored_rate(self) -> float:
        return self.stored / self.distinct if self.distinct else 1.0

    @property
    def retention(self) -> float:
        return self.found / self.questions if self.questions else 1.0

    @property
    def false_duplicate_rate(self) -> float:
        return self.false_duplicates / self.distinct if self.distinct else 0.0

    @property
    def true_duplicate_rate(self) -> float:
        return self.repeats_merged / self.repeats if self.repeats else 1.0

    def figures(self) -> dict[str, float | int | str]:
        return {
            "statements": self.cases,
            "distinct_facts": self.distinct,
            "questions": self.questions,
            "stored": round(self.stored_rate, 4),
            "retention_top5": round(self.retention, 4),
            "false_duplicate_rate": round(self.false_duplicate_rate, 4),
            "true_duplicate_rate": round(self.true_duplicate_rate, 4),
            "skips_reported": f"{self.skips_reported}/{self.skips}",
            "changes_newest_first": f"{self.changes_newest_first}/{self.changes_both_found}",
        }


def run(door: Door, cases: list[Case] | None = None) -> Report:
    """Replay ``cases`` through ``door``, then ask every question; the figures and each failure."""
    cases = cases if cases is not None else load_cases()
    report = Report(cases=len(cases))
    memory_of: dict[str, set[str]] = {}
    for case in cases:
        answer = door.add(case.messages)
        ids = {item["id"] for item in answer.stored}
        memory_of[case.id] = ids
        if case.kind in DISTINCT:
            report.distinct += 1
            if ids and not _merged_away(answer):
                report.stored += 1
            else:
                report.failures.append(f"{case.id}: not stored ({_describe(answer)})")
            if not ids and answer.merged:
                report.false_duplicates += 1
        elif case.kind in REPEATS:
            report.repeats += 1
            target = memory_of.get(case.repeats or "", set())
            matched = {m.get("memory_id") for m in answer.merged}
            if not ids and matched and matched <= target:
                report.repeats_merged += 1
            else:
                report.failures.append(f"{case.id}: repeat of {case.repeats} not merged ({_describe(answer)})")
        if case.skipped:
            report.skips += 1
            reasons = {s.get("reason") for s in answer.skipped}
            nothing = case.kind != "skip" or not ids
            if nothing and set(case.skipped) <= reasons:
                report.skips_reported += 1
            else:
                report.failures.append(f"{case.id}: expected skips {list(case.skipped)} ({_describe(answer)})")
    for case in cases:
        if case.kind not in DISTINCT:
            continue
        for question, token in case.checks:
            report.questions += 1
            hits = door.search(question, TOP)
            if any(h["id"] in memory_of[case.id] and token.casefold() in h["memory"].casefold() for h in hits):
                report.found += 1
                if not _rank_versions(report, hits, memory_of[case.id], memory_of.get(case.changes or "", set())):
                    report.older_first.append(f"{case.id}: {question!r} -> {[h['memory'] for h in hits]}")
            else:
                top = "; ".join(h["memory"] for h in hits[:3])
                report.failures.append(f"{case.id}: {question!r} -> no '{token}' of this case in top {TOP} ({top})")
    return report


def _rank_versions(report: Report, hits: list[dict[str, Any]], new: set[str], old: set[str]) -> bool:
    """For a changed value found with its older version: was the newer one ranked first?
    (True when there is nothing to compare.)"""
    ranks = [i for i, h in enumerate(hits) if h["id"] in new], [i for i, h in enumerate(hits) if h["id"] in old]
    if not (ranks[0] and ranks[1]):
        return True
    report.changes_both_found += 1
    first = min(ranks[0]) < min(ranks[1])
    report.changes_newest_first += first
    return first


def _merged_away(answer: AddAnswer) -> bool:
    return bool(answer.merged) and not answer.stored


def _describe(answer: AddAnswer) -> str:
    return (
        f"stored={[s['memory'] for s in answer.stored]} merged={[m.get('matched_memory') for m in answer.merged]} "
        f"skipped={[s.get('reason') for s in answer.skipped]}"
    )
