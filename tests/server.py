"""A real Memorist server (``memorist serve`` under gunicorn) for HTTP tests.

It runs with the throwaway hashing embedder (loaded through
``MEMORIST_PLUGIN_MODULES``) so a start takes a second or two, not a model load.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import requests

from .conftest import free_port

ROOT = Path(__file__).resolve().parent.parent
JWT_SECRET = "test-jwt-secret-0123456789abcdef0123456789"
ADMIN_KEY = "admin-key-0123456789abcdef"


class Server:
    def __init__(self, data_dir: Path, env: dict[str, str] | None = None, workers: int = 2) -> None:
        self.data_dir = data_dir
        self.workers = workers
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")},
            # This tree's code first (an editable install may point at another checkout).
            "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "framework"), str(ROOT / "plugins")]),
            "MEMORIST_DATA_DIR": str(data_dir),
            "MEMORIST_PLUGIN_MODULES": "tests.plugins.hashing",
            "MEMORIST_EMBEDDER__PROVIDER": "hashing",
            "JWT_SECRET": JWT_SECRET,
            "ADMIN_API_KEY": ADMIN_KEY,
            # Suites here send many deliberately wrong credentials from 127.0.0.1; the per-address
            # throttle of failed checks is tested by test_security_accounts.
            "MEMORIST_AUTH__FAILED_AUTH_ATTEMPTS": "1000000",
            **(env or {}),
        }
        for key, value in list(self.env.items()):
            if value is None:
                del self.env[key]
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = data_dir.parent / f"server-{self.port}.log"
        self.session = requests.Session()
        self.session.trust_env = False

    def start(self) -> Server:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "memorist.cli", "serve", "--port", str(self.port), "--workers", str(self.workers)],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=str(ROOT),
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"server exited with {self.process.returncode}:\n{self.output()}")
            try:
                if self.session.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return self
            except (requests.ConnectionError, requests.Timeout):
                pass
            time.sleep(0.2)
        raise AssertionError(f"server did not start:\n{self.output()}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill9(self) -> None:
        """SIGKILL the master and every worker at once (a crash, not a shutdown)."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def request(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return self.session.request(method, f"{self.url}{path}", **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, **kwargs)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


ADMIN = {"X-API-Key": ADMIN_KEY}
