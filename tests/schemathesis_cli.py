"""``python -m schemathesis.cli`` with ``ast.parse`` serialized across threads.

Why: before 3.11.8 (and 3.12.1), CPython kept the AST converter's recursion depth per
interpreter rather than per thread (gh-106905). Hypothesis parses the source of a lambda
to describe a strategy, and with two schemathesis workers two threads can parse at
once: one of them then fails with ``SystemError: AST constructor recursion depth
mismatch``, reported as a runtime error of the fuzz run that has nothing to do with
the server under test. One lock around the parse costs nothing measurable here.
"""

from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path
from typing import Any

_parse = ast.parse
_lock = threading.Lock()


def _serialized_parse(*args: Any, **kwargs: Any) -> Any:
    with _lock:
        return _parse(*args, **kwargs)


if __name__ == "__main__":
    # Run as a file, this script's folder (tests/) is first on sys.path, where the tier folders
    # (tests/packaging/ ...) would shadow the installed packages schemathesis imports.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    ast.parse = _serialized_parse  # type: ignore[assignment]
    import schemathesis.cli

    schemathesis.cli.schemathesis()
