"""The test tiers stay whole: every test file sits in a tier, the README's fast tier names them."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.conftest import ROOT
from tests.tiers import SLOW_TIERS

TESTS = ROOT / "tests"


def tier_of(path: str) -> str | None:
    """The marker the nearest conftest above ``path`` applies with ``mark_directory``, if any."""
    folder = (TESTS / path).parent
    while folder != TESTS:
        conftest = folder / "conftest.py"
        if conftest.is_file():
            found = re.search(r'mark_directory\(__file__, "(\w+)"\)', conftest.read_text())
            if found:
                return found.group(1)
        folder = folder.parent
    return None


def test_every_test_file_is_in_a_tier() -> None:
    """A test file dropped in tests/ itself would run in every tier's selection but belong to none."""
    files = [str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py")]
    homeless = [path for path in files if tier_of(path) is None]
    assert homeless == [], f"move these under a tier directory (docs/testing.md): {homeless}"


def test_the_tier_markers_are_registered() -> None:
    """``--strict-markers`` and ``-m`` only mean something for declared markers."""
    declared = {
        line.split(":")[0]
        for line in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    }
    tiers = {tier_of(str(p.relative_to(TESTS))) for p in TESTS.rglob("test_*.py")}
    assert {t for t in tiers if t} | set(SLOW_TIERS) <= declared


def test_the_readme_fast_tier_leaves_out_exactly_the_slow_tiers() -> None:
    commands = re.findall(r'pytest -m "not \(([^)]*)\)"', (ROOT / "README.md").read_text())
    assert commands, "README lost the fast tier's command"
    assert all(tuple(c.split(" or ")) == SLOW_TIERS for c in commands), commands


def test_this_file_carries_its_directory_marker(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("unit") is not None
