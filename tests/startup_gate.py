"""A plugin that holds each worker's engine build until a file exists (``STARTUP_GATE``).

Used by ``tests/test_startup_readiness.py`` to keep a real server in its starting phase
for as long as a test needs, instead of racing a build that takes a second or two.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from memorist.plugin.hookspecs import hookimpl


@hookimpl
def database_ready(context: Any) -> None:
    gate = Path(os.environ["STARTUP_GATE"])
    deadline = time.monotonic() + 120
    while not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
