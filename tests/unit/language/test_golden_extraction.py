"""The heuristic extractor against its golden corpus (tests/golden/extraction.yaml).

Each row is one add: messages in, the memories and skips the extractor must produce out.
A phrasing the extractor learns is a new row; a change that alters a row's output fails
here, row by row, with the messages that changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from memorist.plugin.contracts import ProviderContext
from memorist.records import ExtractionRequest, Message
from memorist_heuristic.extractor import HeuristicExtractor
from memorist_heuristic.segment import skip_reason

CORPUS = Path(__file__).resolve().parents[2] / "golden" / "extraction.yaml"
MONDAY = "2023-05-08T13:56:00Z"
ROWS: list[dict[str, Any]] = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))


def _messages(row: dict[str, Any]) -> list[Message]:
    out = []
    for entry in row["messages"]:
        role = next(k for k in entry if k != "name")
        out.append(Message(role=role, content=entry[role], name=entry.get("name")))
    return out


def _id(row: dict[str, Any]) -> str:
    first = next(v for k, v in row["messages"][0].items() if k != "name")
    return str(row.get("id") or first)[:48]


@pytest.mark.parametrize("row", ROWS, ids=[_id(r) for r in ROWS])
def test_golden_row(row: dict[str, Any], tmp_path: Path) -> None:
    extractor = HeuristicExtractor(HeuristicExtractor.Options(**row.get("options", {})), ProviderContext(tmp_path))
    request = ExtractionRequest(
        messages=_messages(row),
        observed_at=row.get("observed_at", MONDAY),
        excludes=row.get("excludes"),
        recent=row.get("recent", []),
        asked=row.get("asked"),
    )
    result = extractor.extract_detailed(request)
    assert [f.text for f in result.facts] == row["memories"]
    skipped = [s.model_dump(mode="json", exclude_none=True) for s in result.skipped]
    assert skipped == row["skipped"]


def test_the_corpus_is_large_and_has_no_duplicate_rows() -> None:
    keys = [
        repr(
            (r["messages"], r.get("observed_at"), r.get("recent"), r.get("asked"), r.get("excludes"), r.get("options"))
        )
        for r in ROWS
    ]
    assert len(keys) >= 250
    assert len(set(keys)) == len(keys)


SENTENCES: dict[str, list[str]] = yaml.safe_load((CORPUS.parent / "sentences.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [(s, None if r == "kept" else r) for r, listed in SENTENCES.items() for s in listed],
)
def test_golden_sentence(sentence: str, reason: str | None) -> None:
    assert skip_reason(sentence) == reason
