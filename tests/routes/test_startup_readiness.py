"""A worker answers ``/health`` before its engine is built; ``/ready`` and other requests wait for it.

The in-process tests drive :class:`memorist.serve.startup.StartingApp` over a real app whose
build is held on an event; the process test holds a real ``memorist serve``'s workers in their
build (``tests/startup_gate.py``) and shows what a client sees meanwhile and after.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
import requests
from memorist import __version__
from memorist.config.settings import load_settings
from memorist.http import create_app
from memorist.http.starting import STARTING_DETAIL, starting_app
from memorist.observability import metrics
from memorist.plugin.manager import load_plugins
from memorist.serve.gunicorn_app import READY_LINE
from memorist.serve.startup import StartingApp
from memorist.testing import hashing
from memorist.testing.server import ADMIN, Server, code_path

from tests.conftest import fast_settings

TESTS = Path(__file__).resolve().parents[1]


class HeldBuild:
    """A real app build that waits for :meth:`release` (or raises ``error`` once released)."""

    def __init__(self, tmp_path: Path, error: BaseException | None = None) -> None:
        self.settings = load_settings(None, fast_settings(tmp_path, auth={"disabled": True}))
        self.released = threading.Event()
        self.error = error
        self.failures: list[BaseException] = []

    def build(self) -> Any:
        self.released.wait(30)
        if self.error is not None:
            raise self.error
        return create_app(self.settings, load_plugins({}, extra=[hashing]))

    def release(self) -> None:
        self.released.set()


def starting(held: HeldBuild, wait_seconds: float = 30) -> StartingApp:
    return StartingApp(
        held.build, answer=starting_app(__version__), wait_seconds=wait_seconds, on_failure=held.failures.append
    )


@pytest.fixture
def held(tmp_path: Path) -> Iterator[HeldBuild]:
    build = HeldBuild(tmp_path)
    yield build
    build.release()


def test_health_answers_at_once_and_ready_refuses_while_the_engine_is_built(held: HeldBuild) -> None:
    app = starting(held).start()
    client = falcon.testing.TestClient(app)
    health = client.simulate_get("/health")
    assert health.status_code == 200
    assert health.json == {"status": "ok", "version": __version__, "ready": False, "components": {}}
    ready = client.simulate_get("/ready")
    assert ready.status_code == 503 and ready.headers["Retry-After"] == "1"
    assert ready.json == {"detail": STARTING_DETAIL}
    assert client.simulate_head("/health").status_code == 200
    held.release()
    assert app.wait(30) and app.ready
    assert client.simulate_get("/ready").json == {"status": "ready"}
    built = client.simulate_get("/health").json
    assert built["ready"] is True and built["components"]["embedder"] == "hashing"


def health_probes(text: str) -> float:
    """``GET /health`` answers counted in a Prometheus exposition text."""
    prefix = 'memorist_http_requests_total{method="GET",route="/health",status="200"} '
    return sum(float(line[len(prefix) :]) for line in text.splitlines() if line.startswith(prefix))


def test_a_starting_workers_answers_carry_a_request_id_and_are_counted(held: HeldBuild) -> None:
    """A probe of a starting worker is a request like any other: its ``X-Request-ID`` comes back
    (the caller's, or a fresh one) and it appears in ``/metrics`` once the app is built."""
    metrics.set_enabled(True)  # the process's switch, as the built app's settings set it
    app = starting(held).start()
    client = falcon.testing.TestClient(app)
    counted = health_probes(metrics.render(None)[0].decode())
    before = client.simulate_get("/health", headers={"X-Request-ID": "sonde-1"})
    assert before.json["ready"] is False and before.headers["X-Request-ID"] == "sonde-1"
    ready = client.simulate_get("/ready")
    assert ready.status_code == 503 and len(ready.headers["X-Request-ID"]) == 32
    held.release()
    assert app.wait(30)
    assert health_probes(client.simulate_get("/metrics").text) == counted + 1  # the probe made while starting


def test_a_request_made_while_starting_waits_for_the_engine_and_is_served(held: HeldBuild) -> None:
    app = starting(held).start()
    client = falcon.testing.TestClient(app)
    body = {"messages": [{"role": "user", "content": "Ich wohne in Porto."}], "user_id": "ana", "infer": False}
    with ThreadPoolExecutor(1) as pool:
        added = pool.submit(client.simulate_post, "/memories", json=body)
        time.sleep(0.3)
        assert not added.done()  # held: neither refused nor answered by a half-built engine
        held.release()
        answer = added.result(timeout=30)
    assert answer.status_code == 200, answer.text
    found = client.simulate_get("/memories", params={"user_id": "ana"}).json["results"]
    assert [m["memory"] for m in found] == ["Ich wohne in Porto."]


def test_a_request_waits_at_most_the_bound_then_gets_503_with_retry_after(held: HeldBuild) -> None:
    client = falcon.testing.TestClient(starting(held, wait_seconds=0.2).start())
    answer = client.simulate_get("/memories", params={"user_id": "ana"})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "1"
    assert "starting" in answer.json["detail"]


def test_a_failed_build_is_reported_and_never_served(tmp_path: Path) -> None:
    failing = HeldBuild(tmp_path, error=RuntimeError("no such store"))
    app = starting(failing, wait_seconds=0.5).start()
    failing.release()
    deadline = time.monotonic() + 10
    while not failing.failures and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [str(e) for e in failing.failures] == ["no such store"]
    assert not app.ready and client_status(app, "/ready") == 503


def client_status(app: StartingApp, path: str) -> int:
    return falcon.testing.TestClient(app).simulate_get(path).status_code


@pytest.mark.process  # a real gunicorn: its workers build while health answers
def test_serve_answers_health_while_its_workers_build_and_serves_them_after(tmp_path: Path) -> None:
    """A real ``memorist serve`` whose two workers are held in their build: liveness, readiness and a
    write made meanwhile, as a client sees them; the write is kept once the workers are built."""
    gate = tmp_path / "gate"
    server = Server(
        tmp_path / "data",
        env={
            "MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing,tests.startup_gate",
            "STARTUP_GATE": str(gate),
            "PYTHONPATH": f"{code_path()}:{TESTS.parent}",  # tests/routes would shadow the stdlib http
        },
    )
    server.data_dir.mkdir(parents=True)
    server.launch()
    try:
        deadline = time.monotonic() + 60
        while not server.healthy() and time.monotonic() < deadline:
            assert server.process is not None and server.process.poll() is None, server.output()
            time.sleep(0.05)
        health = server.get("/health")
        assert health.status_code == 200 and health.json()["ready"] is False, server.output()
        ready = server.get("/ready")
        assert ready.status_code == 503 and ready.headers["Retry-After"] == "1"
        body = {"messages": [{"role": "user", "content": "Mi hermana vive en Lima."}], "user_id": "eva", "infer": False}
        with ThreadPoolExecutor(1) as pool:
            added = pool.submit(requests.post, f"{server.url}/memories", json=body, headers=ADMIN, timeout=60)
            time.sleep(0.5)
            assert not added.done()
            gate.touch()
            answer = added.result(timeout=60)
        assert answer.status_code == 200, answer.text
        while server.output().count(READY_LINE) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.output().count(READY_LINE) == 2, server.output()
        assert server.get("/ready").json() == {"status": "ready"}
        stored = server.get("/memories", params={"user_id": "eva"}, headers=ADMIN).json()["results"]
        assert [m["memory"] for m in stored] == ["Mi hermana vive en Lima."]
    finally:
        server.stop()
