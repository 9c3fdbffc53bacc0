"""Where the suite's CPU goes, per test file: ``pytest -p tests.cpu_time --cpu-time=DIR``.

Why: the suite's wall time on two cores is bounded by its CPU time, and junit's
durations do not tell the two apart (a test waiting on a server looks as long as a
test computing). This plugin records, for each test, the CPU the test process
spent on it (``RUSAGE_SELF``: every thread, ONNX Runtime's and LanceDB's too), the
CPU of the child processes it started and reaped meanwhile (``RUSAGE_CHILDREN``:
servers, CLIs, pip, benchmark scripts), and its wall time. Each pytest process
(each xdist worker) appends one JSON line per test to ``DIR/<worker>.jsonl``; at
the end the controller prints the files ranked by CPU. A process reaped by no test
(a session fixture's server, Playwright's browser) is not counted.

    python -m pytest -n 2 --dist loadfile -p tests.cpu_time --cpu-time /tmp/cpu
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Files printed at the end.
SHOWN = 30


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-time", metavar="DIR", help="record CPU seconds per test into DIR (tests/cpu_time.py)")


def _now() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime, time.perf_counter()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    directory = item.config.getoption("--cpu-time")
    began = _now()
    yield
    if not directory:
        return
    ended = _now()
    spent = [after - before for before, after in zip(began, ended, strict=True)]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(Path(directory) / f"{worker}.jsonl", "a") as out:
        out.write(json.dumps([item.nodeid, *spent]) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    directory = config.getoption("--cpu-time")
    if directory and not os.environ.get("PYTEST_XDIST_WORKER"):  # the controller starts it empty
        Path(directory).mkdir(parents=True, exist_ok=True)
        for old in Path(directory).glob("*.jsonl"):
            old.unlink()


def summary(directory: Path) -> list[str]:
    """Lines of the report: totals, then the files ranked by CPU (own + children)."""
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for path in directory.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            nodeid, own, children, wall = json.loads(line)
            entry = files[nodeid.split("::", 1)[0]]
            entry[0] += own
            entry[1] += children
            entry[2] += wall
            entry[3] += 1
    totals = [sum(entry[i] for entry in files.values()) for i in range(4)]
    lines = [
        f"CPU per test file (tests/cpu_time.py): {int(totals[3])} tests, own {totals[0]:.0f} s, "
        f"children {totals[1]:.0f} s, wall {totals[2]:.0f} s",
        f"{'own':>7} {'children':>8} {'wall':>7} {'tests':>5}  file",
    ]
    ranked = sorted(files.items(), key=lambda item: -(item[1][0] + item[1][1]))
    for name, (own, children, wall, count) in ranked[:SHOWN]:
        lines.append(f"{own:7.1f} {children:8.1f} {wall:7.1f} {int(count):5d}  {name}")
    return lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    directory = config.getoption("--cpu-time")
    if directory and not os.environ.get("PYTEST_XDIST_WORKER"):
        for line in summary(Path(directory)):
            terminalreporter.write_line(line)
