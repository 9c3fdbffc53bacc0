"""The engine's read mixin imports at run time only what it runs: the names its annotations use
are imported for the type checker alone, and the module still imports first in a fresh process
(no import cycle was hidden behind an annotation-only import)."""

from __future__ import annotations

import subprocess
import sys

import memorist.engine.memory_reads as memory_reads
import pytest

#: Names memory_reads uses in annotations only.
ANNOTATION_ONLY = (
    "AddPipeline",
    "Components",
    "Filter",
    "HistoryLog",
    "HybridSearch",
    "Mapping",
    "MemoryChanges",
    "MemoryRecord",
    "ScopeIndex",
    "SearchHit",
    "Sequence",
    "Settings",
)


def test_annotation_only_names_are_not_imported_at_run_time() -> None:
    assert [name for name in ANNOTATION_ONLY if hasattr(memory_reads, name)] == []


@pytest.mark.process  # starts another Python process
def test_the_module_imports_first_in_a_fresh_process() -> None:
    code = "import memorist.engine.memory_reads as m; m.MemoryReads; m.Page([], 0)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
