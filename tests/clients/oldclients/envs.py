"""The older platform clients' environments: one directory per release, built once, outside pytest.

Why here and not in the test: installing three clients (two ``pip --target`` installs and an
``npm install``) is an environment build, not a test; doing it inside the timed pytest run cost
CI a minute on every run. ``nox -s old_clients_env`` (which ``.ci/run`` runs before pytest) calls
:func:`build`; ``tests/clients/test_old_clients.py`` only looks the directories up with :func:`missing`.

Layout under the root (default ``.nox/old_clients`` in the checkout; ``MEMORIST_OLD_CLIENTS_DIR``
overrides it): ``<release>/`` holds ``mem0ai==<release>`` installed with ``--no-deps`` (its few
dependencies -- httpx, requests, pydantic, posthog -- come from the environment that runs it), and
``npm-<release>/node_modules/mem0ai`` the npm client. A directory is keyed by its version and
marked complete only after its install succeeded, so a new release gets its own directory and a
half-finished install is redone, never used.

Run as a script: ``python tests/clients/oldclients/envs.py [ROOT]`` builds what is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: The 0.1.x and 1.x lines of the Python client (PyPI ``mem0ai``).
RELEASES = ("0.1.118", "1.0.11")
#: The npm client's last line before v3 (it calls /v1/memories/, /v2/memories/ and their search routes).
NPM_RELEASE = "2.1.38"
#: The npm client ``@mastra/mem0`` 0.1.4 depends on: its add sends no ``output_format`` and reads the
#: bare array the platform answers by default (v1.0).
NPM_MASTRA_RELEASE = "2.4.6"
NPM_RELEASES = (NPM_RELEASE, NPM_MASTRA_RELEASE)
#: Every environment's directory name under the root.
NAMES = (*RELEASES, *(f"npm-{release}" for release in NPM_RELEASES))
#: Written into a directory once its install succeeded.
MARKER = ".complete"
ROOT_ENV = "MEMORIST_OLD_CLIENTS_DIR"
DEFAULT_ROOT = Path(__file__).resolve().parents[3] / ".nox" / "old_clients"


def root() -> Path:
    """Where the environments live: ``$MEMORIST_OLD_CLIENTS_DIR`` or ``.nox/old_clients`` of this checkout."""
    return Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)


def missing(base: Path) -> list[str]:
    """The environments under ``base`` that are not (completely) built."""
    return [name for name in NAMES if not (base / name / MARKER).exists()]


def _install_python(target: Path, release: str) -> None:
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
    done = subprocess.run([*pip, f"mem0ai=={release}"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"installing mem0ai=={release} failed:\n{done.stderr}")
    if not (target / "mem0" / "client" / "main.py").exists():
        raise SystemExit(f"mem0ai=={release} installed without mem0/client/main.py in {target}")


def _install_npm(target: Path, release: str) -> None:
    target.mkdir(parents=True, exist_ok=True)
    (target / "package.json").write_text('{"name": "old-clients", "version": "1.0.0", "private": true}')
    command = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=optional"]
    done = subprocess.run([*command, f"mem0ai@{release}"], cwd=target, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"npm install mem0ai@{release} failed:\n{done.stderr}")
    if not (target / "node_modules" / "mem0ai" / "package.json").exists():
        raise SystemExit(f"npm mem0ai@{release} installed without node_modules/mem0ai in {target}")


def build(base: Path) -> list[str]:
    """Install every missing environment under ``base``; returns the names built (empty: all cached)."""
    built = []
    for name in missing(base):
        target = base / name
        shutil.rmtree(target, ignore_errors=True)  # a half-finished earlier attempt
        if name.startswith("npm-"):
            _install_npm(target, name.removeprefix("npm-"))
        else:
            _install_python(target, name)
        (target / MARKER).write_text(name + "\n")
        built.append(name)
    return built


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else root()
    done = build(where)
    print(f"old clients in {where}: " + (f"built {', '.join(done)}" if done else "all cached"))
