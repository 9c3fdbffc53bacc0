"""A real ``memorist serve`` (gunicorn master + workers) in its own process group.

Why a real process: some behaviour exists only there -- gunicorn's worker
model, SIGKILL and restart, several nodes on one database, raw sockets with
chunked or lying bodies, the soak's faults. Everything else is cheaper and
just as real in process (:mod:`memorist.testing.inprocess`).

:class:`ServeProcess` runs the command with exactly the environment it is
given (benchmarks build theirs); :class:`Server` is the test flavour: the
hashing embedder (a start takes a second or two, not a model load), known
secrets, and no ``MEMORIST_*`` variable from the caller's shell.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import requests

from .net import free_port

#: Secrets of :class:`Server` (and of :class:`~memorist.testing.inprocess.AppServer`).
JWT_SECRET = "test-jwt-secret-0123456789abcdef0123456789"
ADMIN_KEY = "admin-key-0123456789abcdef"
#: Headers that authenticate as the legacy admin key.
ADMIN = {"X-API-Key": ADMIN_KEY}


def bearer(token: str) -> dict[str, str]:
    """``Authorization: Bearer <token>`` headers."""
    return {"Authorization": f"Bearer {token}"}


def session() -> requests.Session:
    """A session that never goes through a proxy: test servers listen on loopback only."""
    http = requests.Session()
    http.trust_env = False
    return http


def code_path() -> str:
    """``PYTHONPATH`` for a child process that imports the same ``memorist`` and plugins as this one."""
    import importlib.util

    roots = []
    for package in ("memorist", "memorist_lancedb"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin:
            roots.append(str(Path(spec.origin).resolve().parents[1]))
    roots += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join(dict.fromkeys(roots))


def test_environment(data_dir: Path, env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The environment of a test server: the caller's, minus ``MEMORIST_*``, plus test settings.

    A value of ``None`` in ``env`` removes that variable (e.g. ``{"JWT_SECRET": None}``).
    """
    merged: dict[str, str | None] = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")},
        "MEMORIST_DATA_DIR": str(data_dir),
        "MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing",
        "MEMORIST_EMBEDDER__PROVIDER": "hashing",
        "JWT_SECRET": JWT_SECRET,
        "ADMIN_API_KEY": ADMIN_KEY,
        # The caller's code first: a checkout's framework/ and plugins/ must win over an editable
        # install that may point at another checkout.
        "PYTHONPATH": code_path(),
        # Suites send many deliberately wrong credentials and logins from 127.0.0.1; the per-address
        # limits have their own tests (which set them lower).
        "MEMORIST_AUTH__FAILED_AUTH_ATTEMPTS": "1000000",
        "MEMORIST_AUTH__LOGIN_ADDRESS_ATTEMPTS": "1000000",
        # The in-process transport's Host (memorist.testing.inprocess): served with AUTH_DISABLED=true.
        "MEMORIST_SERVER__ALLOWED_HOSTS": '["memorist.test"]',
        **(env or {}),
    }
    return {key: value for key, value in merged.items() if value is not None}


class ServeProcess:
    """``python -m memorist.cli serve`` on a loopback port, output appended to ``log_path``."""

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        port: int | None = None,
        workers: int = 2,
        log_path: Path,
        cwd: Path | None = None,
        config: Path | None = None,
    ) -> None:
        self.env = dict(env)
        #: ``serve --config`` (a YAML file or a shipped config's name); None: settings from ``env`` alone.
        self.config = config
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.log_path = log_path
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self.session = session()

    def start(self, timeout: float = 90.0) -> ServeProcess:
        """Start and wait until every worker has built its engine; fails with the server's output.

        A worker answers ``/health`` before its engine is built (``ready: false``) and requests
        wait for it; a test that reads what the engine reports (``/health``'s components) needs
        every worker built, which each says in the log (``READY_LINE``).
        """
        from ..serve.gunicorn_app import READY_LINE

        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        process = self.launch()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"server exited with {process.returncode}:\n{self.output()}")
            if self.healthy() and self.log_path.read_bytes()[offset:].count(READY_LINE.encode()) >= self.workers:
                return self
            time.sleep(0.1)
        raise AssertionError(f"server did not get ready within {timeout:.0f} s:\n{self.output()}")

    def launch(self) -> subprocess.Popen[bytes]:
        """Start the command and return at once (:meth:`start` also waits for the workers)."""
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "memorist.cli",
                    "serve",
                    "--port",
                    str(self.port),
                    "--workers",
                    str(self.workers),
                    *(["--config", str(self.config)] if self.config is not None else []),
                ],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=str(self.cwd) if self.cwd else None,
                start_new_session=True,
            )
        return self.process

    def healthy(self, headers: dict[str, str] | None = None, path: str = "/health") -> bool:
        try:
            return self.session.get(f"{self.url}{path}", headers=headers, timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def hang_up(self) -> None:
        """Close this client's kept-alive connections to the server.

        Why: a gthread worker stopping with an idle kept-alive connection keeps it open
        for 2 s of its graceful shutdown (gunicorn's ``STOP_KEEPALIVE_LINGER``), in case
        a request comes; every stop of a test server waited those 2 s. ``Session.close``
        is not enough: urllib3 2's pool manager forgets its pools without closing their
        connections, so its pools are closed here first.
        """
        manager = self.session.get_adapter(self.url).poolmanager  # type: ignore[attr-defined]
        for key in manager.pools.keys():
            manager.pools[key].close()
        manager.clear()

    def worker_pids(self) -> list[int]:
        """The gunicorn workers: the children of the master (the process started here)."""
        import psutil

        if self.process is None or self.process.poll() is not None:
            return []
        try:
            return [child.pid for child in psutil.Process(self.process.pid).children()]
        except psutil.NoSuchProcess:
            return []

    def kill_worker(self, rng: random.Random | None = None) -> int:
        """SIGKILL one worker (the master forks a replacement); returns its pid."""
        pids = self.worker_pids()
        if not pids:
            raise RuntimeError("no gunicorn worker to kill")
        victim = (rng or random.Random()).choice(pids)
        os.kill(victim, signal.SIGKILL)
        return victim

    def stop(self, timeout: float = 60.0) -> None:
        """SIGTERM the master (gunicorn's graceful shutdown); SIGKILL the group only if it hangs.

        This client hangs up first (:meth:`hang_up`), as a client that is done does.
        """
        if self.process is None or self.process.poll() is not None:
            return
        self.hang_up()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self._reap_group()

    def kill9(self) -> None:
        """SIGKILL the master and every worker at once (a crash, not a shutdown)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    #: Cleanup after an error is the same act as a crash.
    kill = kill9

    def _reap_group(self) -> None:
        """A worker that outlived its master (it should not) would keep the port: end it."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(1.0)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def output(self) -> str:
        """Everything the server printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return self.session.request(method, f"{self.url}{path}", **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, **kwargs)


class Server(ServeProcess):
    """A test server on ``data_dir`` with the hashing embedder and the kit's secrets (:func:`test_environment`)."""

    def __init__(
        self,
        data_dir: Path,
        env: Mapping[str, str | None] | None = None,
        workers: int = 2,
        cwd: Path | None = None,
    ) -> None:
        self.data_dir = data_dir
        port = free_port()
        super().__init__(
            test_environment(data_dir, env),
            port=port,
            workers=workers,
            log_path=data_dir.parent / f"server-{port}.log",
            cwd=cwd,
        )

    def start(self, timeout: float = 90.0) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        super().start(timeout)
        return self

    def stop(self, timeout: float = 30.0) -> None:
        super().stop(timeout)
