"""Facts over time in every language with golden rows (``tests/golden/supersession.yaml``).

The rows are data: a language, or a phrasing one misses, is added to the YAML file, not as a
test of its own. Two doors: the supersession rule over two stored records
(:func:`tests.supersession_pairs.replaces`), and ``Engine.list(latest_only=True)`` after
separate adds through the real engine with the default embedder (the shared ``engine``
fixture).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds
from tests.supersession_pairs import replaces as _replaces

GOLDEN: dict[str, dict[str, list[Any]]] = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "golden" / "supersession.yaml").read_text(encoding="utf-8")
)
PAIRS = [
    pytest.param(*row, id=f"{language}-{number}")
    for language, rows in GOLDEN.items()
    for number, row in enumerate(rows.get("pairs", []))
]
ACROSS_ADDS = [
    pytest.param(case["adds"], case["current"], id=f"{language}-{number}")
    for language, rows in GOLDEN.items()
    for number, case in enumerate(rows.get("across_adds", []))
]


def test_every_language_has_both_kinds_of_rows() -> None:
    """A language's rows hold a change that replaces and an addition that does not, at both doors."""
    for language, rows in GOLDEN.items():
        assert {row[3] for row in rows["pairs"]} == {True, False}, language
        currents = [case["current"] for case in rows["across_adds"]]
        assert [1] in currents and [0, 1] in currents, language


@pytest.mark.parametrize(("older", "newer", "similarity", "replaces"), PAIRS)
def test_a_changed_fact_replaces_the_older_and_an_added_one_does_not(
    older: str, newer: str, similarity: float | None, replaces: bool
) -> None:
    assert _replaces(older, newer, similarity) is replaces


@pytest.mark.parametrize(("adds", "current"), ACROSS_ADDS)
def test_latest_only_lists_the_current_version_across_adds(engine: Engine, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"l{abs(hash(tuple(adds)))}", adds, every_add_stored=True) == current
