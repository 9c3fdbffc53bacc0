"""The README's two commands in either order: the test suite passes while the quick start's
``memorist serve`` still listens on :8000, and leaves that server's data directory alone.

How: the tests that run ``memorist serve`` as a process are run again in a child pytest, from
the checkout (the README's command 2's directory), with a real listener on 127.0.0.1:8000, the
address the quick start's server holds. The listener is this test's own socket when the port is
free, held only for the child run; when the port is already taken (someone's quick-start server
on this machine), that process is the listener, which is the situation under test. Either way
the child runs beside a busy :8000 and is never skipped. Each ``serve`` a test starts either
fails on its configuration before binding anything (``serve`` checks the configuration first) or
binds a free port it asked for with ``--port``; and they run in temporary directories, so the
checkout's ``memorist-data`` (the quick start's data) must come out as it went in.
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memorist.config.settings import ServerSettings

ROOT = Path(__file__).resolve().parents[2]

#: The tests that start ``memorist serve`` processes on the default settings' port or data directory
#: unless told otherwise (they failed beside a quick-start server before ``serve`` checked its
#: configuration first).
SERVE_TESTS = [
    "tests/unit/cli/test_cli_guidance.py",
    "tests/unit/plugins/test_settings.py::test_cli_reports_bad_config_without_traceback",
]


@contextmanager
def default_port_busy() -> Iterator[int]:
    """A listener on the default ``serve`` address for the block: ours if it is free, else the one there."""
    defaults = ServerSettings()
    host, port = defaults.host, defaults.port
    sock = socket.socket()
    try:
        try:
            sock.bind((host, port))
            sock.listen()
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
        with socket.create_connection((host, port), timeout=5):
            pass  # something accepts there, as the quick start's server does
        yield port
    finally:
        sock.close()


def snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``directory`` with its size and mtime (empty when it does not exist)."""
    if not directory.exists():
        return {}
    return {
        str(path.relative_to(directory)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def test_serve_tests_pass_beside_a_server_on_the_default_port() -> None:
    data = ROOT / "memorist-data"
    before = snapshot(data)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORIST_", "PYTEST_"))}
    with default_port_busy():
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *SERVE_TESTS],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]
    assert snapshot(data) == before
