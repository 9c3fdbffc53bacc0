"""The composition root: one kernel per process, reconfiguration off the request path, layering kept."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from memorist.config.settings import load_settings
from memorist.kernel.core import Kernel
from memorist.kernel.runtime import Runtime
from memorist.plugin.manager import load_plugins

from tests.conftest import ROOT, fast_settings
from tests.plugins import hashing

sys.path.insert(0, str(ROOT / "benchmarks"))
import imports  # noqa: E402


def kernel(tmp_path: Path, *, watch: bool = False) -> Kernel:
    settings = load_settings(None, fast_settings(tmp_path, queue={"workers": 0}))
    return Kernel.build(settings, load_plugins({}, extra=[hashing]), watch=watch)


def test_reading_the_engine_never_touches_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request only reads a reference: no polling, no rebuild, even long after start."""
    k = kernel(tmp_path)
    try:
        monkeypatch.setattr(Runtime, "_load", lambda self: pytest.fail("a request polled the database"))
        monkeypatch.setattr("memorist.kernel.runtime.CHECK_SECONDS", 0.0)
        assert k.runtime.memory is k.runtime.memory
    finally:
        monkeypatch.undo()
        k.close()


def test_another_processs_configure_is_applied_by_the_watcher(tmp_path: Path) -> None:
    first, second = kernel(tmp_path), kernel(tmp_path)
    try:
        second.runtime.watch(every=0.05)
        before = second.runtime.memory
        first.runtime.configure({"engine": {"candidate_pool": 321}})
        deadline = time.monotonic() + 20
        while second.runtime.memory is before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert second.runtime.memory is not before
        assert second.runtime.settings.engine.candidate_pool == 321
        assert second.runtime.refresh() is False  # already applied
    finally:
        first.close()
        second.close()


def test_kernel_wires_operations_events_and_workers_once(tmp_path: Path) -> None:
    k = kernel(tmp_path)
    try:
        assert k.context.operations is k.operations and k.context.events is k.events
        assert k.context.engine is k.runtime.memory
        worker = k.worker(2)
        assert worker._threads == 2 and worker._events is k.events
        assert k.start_workers() is None  # queue.workers is 0 here
    finally:
        k.close()


@pytest.mark.process  # starts another Python process
def test_the_worker_and_the_cli_run_without_the_web_layer() -> None:
    code = (
        "import sys, memorist.kernel.core, memorist.kernel.add_worker, memorist.cli, memorist.cli.admin,"
        " memorist.python.engine;"
        "bad = sorted(m for m in sys.modules if m.startswith('memorist.http'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_import_drawing_is_clean() -> None:
    graph = imports.scan()
    assert "memorist.kernel.core" in graph.files and "memorist_lancedb" in graph.files
    assert imports.violations(graph) == []


def test_the_import_check_catches_each_kind_of_problem(tmp_path: Path) -> None:
    """The checker itself can fail: a cycle, an arrow into a plugin and a kernel import of http."""
    framework, plugins = tmp_path / "framework" / "memorist", tmp_path / "plugins" / "memorist_x"
    (framework / "http").mkdir(parents=True)
    plugins.mkdir(parents=True)
    (framework / "__init__.py").write_text("")
    (framework / "http" / "__init__.py").write_text("")
    (framework / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n")
    (framework / "b.py").write_text("def f():\n    from .a import thing\n    import memorist_x\n")
    (framework / "c.py").write_text("from .http import app\n")
    (plugins / "__init__.py").write_text("")
    graph = imports.scan((tmp_path / "framework", tmp_path / "plugins"), root=tmp_path)
    problems = imports.violations(graph)
    assert "import cycle: memorist.a <-> memorist.b" in problems
    assert "framework -> plugins: memorist.b imports memorist_x" in problems
    assert "kernel -> http: memorist.c imports memorist.http" in problems
