"""Run a docs page's recipe exactly as written, against the test's Memorist and OpenAI stand-in.

Each page in ``docs/integrations/`` has one code block titled ``recipe.py`` or ``recipe.mjs``
(``` ```python title="recipe.py" ```): the runnable example a user copies. The test runs that
block itself, so the page cannot drift from what was tested. The only edit is the one a user
makes: the recipe's Memorist address ``http://localhost:8000`` becomes the test server's. The key
and the model's endpoint come from the environment, as the pages say (``MEM0_API_KEY``,
``OPENAI_BASE_URL``, ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from pathlib import Path

from . import envs

DOCS = Path(__file__).resolve().parents[3] / "docs" / "integrations"
PLACEHOLDER = "http://localhost:8000"
_BLOCK = re.compile(r'^```\w+ title="(recipe\.\w+)"\n(.*?)^```', re.S | re.M)


def recipe(page: str) -> tuple[str, str]:
    """``(file name, code)`` of the page's recipe block; exactly one per page."""
    found = _BLOCK.findall((DOCS / f"{page}.md").read_text())
    assert len(found) == 1, f"docs/integrations/{page}.md needs exactly one recipe block, found {len(found)}"
    return found[0][0], found[0][1]


def run(page: str, integration: str, url: str, env: dict[str, str], timeout: float = 240) -> str:
    """Run ``page``'s recipe in ``integration``'s environment; returns its stdout (asserts exit 0)."""
    name, code = recipe(page)
    assert PLACEHOLDER in code, f"{page}: the recipe must name Memorist's address ({PLACEHOLDER})"
    base = envs.root() / integration
    if name.endswith(".py"):
        path = base / f"recipe-{uuid.uuid4().hex[:8]}.py"
        command = [str(envs.python_of(envs.root(), integration)), str(path)]
    else:  # an ES module next to node_modules, so its imports resolve as in a user's project
        path = base / f"recipe-{uuid.uuid4().hex[:8]}{Path(name).suffix}"
        command = ["node", str(path)]
    path.write_text(code.replace(PLACEHOLDER, url))
    full_env = {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        "MEM0_TELEMETRY": "false",
        "NO_PROXY": "127.0.0.1,localhost",
        "HOME": str(base / ".home"),  # mem0ai writes ~/.mem0; never the developer's home
        **env,
    }
    try:
        done = subprocess.run(command, env=full_env, capture_output=True, text=True, timeout=timeout, cwd=base)
    finally:
        path.unlink(missing_ok=True)
    assert done.returncode == 0, f"{page} recipe failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done.stdout
