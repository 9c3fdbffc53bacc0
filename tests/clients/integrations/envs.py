"""The integration recipes' environments: one directory per integration, built once, outside pytest.

Each recipe in ``docs/integrations/`` is tested against the real published package, installed the
way a user installs it: a Python integration in its own virtual environment (``python -m venv`` +
``pip install -c constraints.txt <pinned packages>``, so pip resolves the package's real
dependencies and never an unpinned torch), an npm one with the machine's ``npm install``. They live
under ``.nox/integrations/<name>`` (``MEMORIST_INTEGRATIONS_DIR`` overrides), are kept between runs
and are marked complete only after their install succeeded; a changed pin set gets a fresh build
(the marker holds the pins). ``nox -s integrations`` builds what is missing, then runs
``pytest -m integration``; the tests only look the directories up (:func:`missing`).

Run as a script: ``python tests/clients/integrations/envs.py [NAME ...]`` builds those (default: all).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[3]
ROOT_ENV = "MEMORIST_INTEGRATIONS_DIR"
DEFAULT_ROOT = CHECKOUT / ".nox" / "integrations"
MARKER = ".complete"
#: Read when this module is imported (pytest's collection): the suite's autouse fixture removes
#: every MEMORIST_* variable before each test runs.
_ROOT_AT_IMPORT = os.environ.get(ROOT_ENV)


@dataclass(frozen=True)
class Integration:
    """One recipe's environment: ``kind`` is ``python`` (a venv) or ``npm`` (a node_modules)."""

    name: str
    kind: str
    packages: tuple[str, ...]

    @property
    def pins(self) -> str:
        return " ".join(self.packages)


#: The pins are the versions the recipes were tested with (docs/integrations/index.md lists them).
INTEGRATIONS = {
    i.name: i
    for i in (
        Integration("mem0ai-python", "python", ("mem0ai==2.2.1",)),
        Integration("mem0ai-js", "npm", ("mem0ai@3.3.1",)),
        Integration("vercel-ai", "npm", ("@mem0/vercel-ai-provider@3.0.2", "zod@3.25.76")),
        Integration("mastra", "npm", ("@mastra/mem0@0.1.4", "@mastra/core@0.10.9", "zod@3.25.76")),
        Integration(
            "agent-framework", "python", ("agent-framework-mem0==1.0.0b261015", "agent-framework-openai==1.17.0")
        ),
        Integration("openai-agents", "python", ("openai-agents==0.24.0", "mem0ai==2.2.1")),
        Integration("langgraph", "python", ("langgraph==1.2.22", "langchain-openai==1.7.4", "mem0ai==2.2.1")),
        Integration("mem0-mcp-server", "python", ("mem0-mcp-server==0.2.1", "mcp==1.30.0")),
        Integration("llamaindex", "python", ("llama-index-memory-mem0==2.1.0",)),
        Integration("crewai", "python", ("crewai==1.15.30", "mem0ai==2.2.1")),
    )
}


def root() -> Path:
    """Where the environments live: ``$MEMORIST_INTEGRATIONS_DIR`` or ``.nox/integrations``."""
    return Path(os.environ.get(ROOT_ENV) or _ROOT_AT_IMPORT or DEFAULT_ROOT)


def built(base: Path, name: str) -> bool:
    marker = base / name / MARKER
    return marker.exists() and marker.read_text().strip() == INTEGRATIONS[name].pins


def missing(base: Path, names: list[str] | None = None) -> list[str]:
    """The environments under ``base`` that are not (completely, with today's pins) built."""
    return [name for name in (names or list(INTEGRATIONS)) if not built(base, name)]


def python_of(base: Path, name: str) -> Path:
    """The interpreter of a Python integration's virtual environment."""
    return base / name / "bin" / "python"


def node_modules(base: Path, name: str) -> Path:
    return base / name / "node_modules"


def _run(command: list[str], cwd: Path | None = None) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")


def _install(target: Path, integration: Integration) -> None:
    if integration.kind == "python":
        _run([sys.executable, "-m", "venv", str(target)])
        pip = [str(target / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        _run([*pip, "-c", str(CHECKOUT / "constraints.txt"), *integration.packages])
    else:
        target.mkdir(parents=True, exist_ok=True)
        (target / "package.json").write_text(
            json.dumps({"name": f"recipe-{integration.name}", "version": "1.0.0", "private": True})
        )
        npm = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=optional"]
        _run([*npm, *integration.packages], cwd=target)


def build(base: Path, names: list[str] | None = None) -> dict[str, float]:
    """Install every missing environment; returns the seconds each build took (empty: all cached)."""
    took = {}
    for name in missing(base, names):
        target = base / name
        shutil.rmtree(target, ignore_errors=True)  # a half-finished or outdated earlier build
        start = time.monotonic()
        _install(target, INTEGRATIONS[name])
        (target / MARKER).write_text(INTEGRATIONS[name].pins + "\n")
        took[name] = round(time.monotonic() - start, 1)
        print(f"built {name} in {took[name]} s", flush=True)
    return took


if __name__ == "__main__":
    chosen = sys.argv[1:] or None
    unknown = [n for n in chosen or [] if n not in INTEGRATIONS]
    if unknown:
        raise SystemExit(f"unknown integration(s) {unknown}; known: {', '.join(INTEGRATIONS)}")
    took = build(root(), chosen)
    print(f"integrations in {root()}: " + (f"built {took}" if took else "all cached"))
