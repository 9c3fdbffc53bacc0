"""The suite's xdist schedule (tests/scheduling.py) stays true to the files it names."""

from __future__ import annotations

import re
from pathlib import Path

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


def test_cpu_time_report_ranks_files_by_own_plus_children_cpu(tmp_path: Path) -> None:
    """tests/cpu_time.py: what each worker wrote, summed per file, the costliest first."""
    from .cpu_time import summary

    (tmp_path / "gw0.jsonl").write_text(
        '["tests/test_a.py::one", 1.0, 0.0, 2.0]\n["tests/test_b.py::one", 0.5, 4.0, 5.0]\n'
    )
    (tmp_path / "gw1.jsonl").write_text('["tests/test_a.py::two", 2.0, 0.5, 3.0]\n')
    lines = summary(tmp_path)
    assert lines[0] == "CPU per test file (tests/cpu_time.py): 3 tests, own 4 s, children 4 s, wall 10 s"
    assert lines[2].split() == ["0.5", "4.0", "5.0", "1", "tests/test_b.py"]
    assert lines[3].split() == ["3.0", "0.5", "5.0", "2", "tests/test_a.py"]
