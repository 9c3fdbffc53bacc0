"""The suite's xdist schedule (tests/scheduling.py) stays true to the files it names."""

from __future__ import annotations

import re

from .conftest import ROOT
from .scheduling import COST, DEFAULT_COST, LONG, PER_TEST, cost, scope_of


def test_every_named_file_and_test_exists() -> None:
    """A renamed or deleted file left in the table would silently lose its place in the order."""
    for key in COST:
        path, _, test = key.partition("::")
        assert (ROOT / path).is_file(), key
        if test:
            assert re.search(rf"^def {re.escape(test)}\(", (ROOT / path).read_text(), re.M), key


def test_per_test_files_share_no_module_state() -> None:
    """Tests of a PER_TEST file may run on different workers: no module- or class-wide fixture, no order."""
    for path in PER_TEST:
        text = (ROOT / path).read_text()
        assert not re.search(r"scope=\"(module|class|package)\"", text), path
        assert "runs last" not in text.lower(), path


def test_units_and_costs() -> None:
    assert scope_of("tests/test_crash.py::test_kill9_mid_way_loses_nothing_on_sqlite") == "tests/test_crash.py"
    alone = "tests/test_multinode.py::test_kill9_mid_way_loses_nothing_on_postgres"
    assert scope_of(alone) == alone
    assert cost(alone) == COST[alone]
    assert cost("tests/test_docker.py") == max(COST.values()) >= LONG
    assert cost("tests/test_fuzz_schema.py::test_not_listed_alone") == COST["tests/test_fuzz_schema.py"]
    assert cost("tests/test_brand_new.py") == DEFAULT_COST < LONG
