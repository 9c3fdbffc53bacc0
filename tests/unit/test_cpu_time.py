"""tests/cpu_time.py, the per-file CPU report used to see where the suite's time goes."""

from __future__ import annotations

from pathlib import Path


def test_cpu_time_report_ranks_files_by_own_plus_children_cpu(tmp_path: Path) -> None:
    """What each worker wrote, summed per file, the costliest first."""
    from tests.cpu_time import summary

    (tmp_path / "gw0.jsonl").write_text(
        '["tests/test_a.py::one", 1.0, 0.0, 2.0]\n["tests/test_b.py::one", 0.5, 4.0, 5.0]\n'
    )
    (tmp_path / "gw1.jsonl").write_text('["tests/test_a.py::two", 2.0, 0.5, 3.0]\n')
    lines = summary(tmp_path)
    assert lines[0] == "CPU per test file (tests/cpu_time.py): 3 tests, own 4 s, children 4 s, wall 10 s"
    assert lines[2].split() == ["0.5", "4.0", "5.0", "1", "tests/test_b.py"]
    assert lines[3].split() == ["3.0", "0.5", "5.0", "2", "tests/test_a.py"]
