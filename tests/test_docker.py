"""The development composition, tested without a container engine (none runs here).

What can be checked is checked: ``compose.yaml`` parses and names the right ports, profiles,
commands and environment; the ``Dockerfile`` installs exactly as the README says; and those
install steps, run in a fresh virtual environment from a copy of the repository (a minimal
install: no ``dev`` extras), give a ``memorist`` that validates its configuration and remembers
a fact. That last test also proves the quick start's serve command needs nothing from ``dev``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from memorist.testing.net import free_port

ROOT = Path(__file__).resolve().parent.parent
README_INSTALL = "python3.11 -m venv .venv && .venv/bin/pip install -c constraints.txt -e ."


def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def dockerfile_runs() -> list[str]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line[len("RUN ") :].strip() for line in text.splitlines() if line.startswith("RUN ")]


def test_compose_serves_the_embedded_default_on_8888() -> None:
    services = compose()["services"]
    embedded = services["memorist"]
    assert embedded["ports"] == ["8888:8000"]
    assert "profiles" not in embedded  # `docker compose up` starts it
    assert embedded["build"] == "."
    assert any(volume.endswith(":/data") for volume in embedded["volumes"])


def test_compose_postgres_profile_has_pgvector_and_two_nodes() -> None:
    services = compose()["services"]
    db = services["db"]
    assert db["image"].startswith("pgvector/pgvector:")
    assert db["profiles"] == ["postgres"]
    nodes = [services["node1"], services["node2"]]
    assert sorted(node["ports"][0] for node in nodes) == ["8881:8000", "8882:8000"]
    for node in nodes:
        assert node["profiles"] == ["postgres"]
        assert node["build"]["args"]["EXTRAS"] == "postgres"
        assert node["command"][:4] == ["memorist", "serve", "--config", "postgres"]
        env = node["environment"]
        assert env["MEMORIST_DATABASE__URL"].startswith("postgresql+psycopg://memorist:memorist@db:5432/")
        assert env["JWT_SECRET"]  # the nodes share one secret: sessions work on either
        assert node["depends_on"]["db"]["condition"] == "service_healthy"
    assert nodes[0]["environment"] == nodes[1]["environment"]


def test_compose_node_settings_validate(tmp_path: Path) -> None:
    """The nodes' command and environment give a valid configuration (with the postgres extra)."""
    from memorist.config_check import run_checks

    env = compose()["services"]["node1"]["environment"]
    secret = re.sub(r"^\$\{JWT_SECRET:-(.*)\}$", r"\1", env["JWT_SECRET"])
    environ = {"MEMORIST_DATABASE__URL": env["MEMORIST_DATABASE__URL"], "JWT_SECRET": secret}
    old = dict(os.environ)
    os.environ.update(environ)
    try:
        settings, problems = run_checks("postgres", {"data_dir": str(tmp_path)}, environ=environ)
    finally:
        os.environ.clear()
        os.environ.update(old)
    assert [p for p in problems if p.level == "error"] == []
    assert settings is not None and settings.vector_store.provider == "pgvector"


def test_dockerfile_installs_as_the_readme_says() -> None:
    readme = (ROOT / "README.md").read_text()
    assert README_INSTALL + " && .venv/bin/memorist serve" in readme
    runs = dockerfile_runs()
    assert runs[0] == README_INSTALL
    text = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["memorist", "serve", "--host", "0.0.0.0", "--port", "8000"]' in text
    assert "EXPOSE 8000" in text


@pytest.mark.slow
@pytest.mark.timeout(2700)  # a full install: ~9 min on the shared, loaded machine
def test_the_install_steps_in_a_fresh_venv(tmp_path: Path) -> None:
    """The Dockerfile's (= the README's) install, from a copy of the tracked files, without dev extras."""
    repo = tmp_path / "repo"
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("MEMORIST_")
    }
    env["HF_HUB_OFFLINE"] = "1"
    # pip's byte-compilation of every installed module (torch, transformers, scipy...: ~13,500
    # files) is an install-time cache, not part of what this checks, and half of the install's CPU.
    # Modules the checks below import are compiled when they are imported. pip reads the variable
    # of a ``--no-X`` switch as the value of ``--X``: "0" is ``--no-compile`` ("1" compiles).
    env["PIP_NO_COMPILE"] = "0"
    # ...and the checks below share one cache of what they compile (a host's
    # PYTHONDONTWRITEBYTECODE would have each of them recompile torch and the rest).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        ["bash", "-c", dockerfile_runs()[0]], cwd=repo, env=env, capture_output=True, text=True, timeout=1500
    )
    assert done.returncode == 0, done.stderr[-3000:]
    venv = repo / ".venv" / "bin"
    freeze = subprocess.run([str(venv / "pip"), "freeze"], capture_output=True, text=True, env=env, check=True).stdout
    for dev_only in ("pytest", "mem0ai", "schemathesis", "mkdocs", "psycopg"):
        assert f"\n{dev_only}==" not in "\n" + freeze.lower(), f"{dev_only} came with the minimal install"
    check = subprocess.run(
        [str(venv / "memorist"), "config", "check", "--config", "default", "--data-dir", str(tmp_path / "data")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode == 0, check.stderr
    snippet = (
        "from memorist import Memory\n"
        "m = Memory()\n"
        "m.add('My name is Ada and I live in Lisbon.', user_id='ada')\n"
        "print(m.search('Where does Ada live?', filters={'user_id': 'ada'})['results'][0]['memory'])\n"
    )
    run = subprocess.run(
        [str(venv / "python"), "-c", snippet], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "The user's name is Ada and they live in Lisbon."

    port = free_port()
    server = subprocess.Popen(
        [str(venv / "memorist"), "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert server.poll() is None, "memorist serve exited"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as answer:
                    assert json.load(answer)["status"] == "ok"
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise AssertionError("memorist serve from the minimal install did not answer /health")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
