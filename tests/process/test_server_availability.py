"""A real ``memorist serve`` keeps serving under slow requests and slow clients (issue 14, items 1-2).

The process is what is under test here (gunicorn's worker model, its sockets, its own error
pages), so these tests start a real server with one worker process, as the red-team did:

- a slow add (a language model taking seconds) does not stall ``/health``;
- a connection holding a partial request does not block ``/health``, and is answered 408
  (JSON) and closed once ``server.header_timeout`` has passed;
- gunicorn's own errors (request line too long, headers too large) answer JSON, not HTML;
- a worker aborted by the arbiter mid-request answers that request 503 in JSON.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
import requests
from memorist.testing.server import ADMIN, Server

from tests.conftest import ROOT

SLOW_SECONDS = 4.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("avail") / "data",
        env={
            # This tree's code first (the editable install may point at another checkout).
            "PYTHONPATH": f"{ROOT / 'framework'}:{ROOT / 'plugins'}:{ROOT}",
            "MEMORIST_PLUGIN_MODULES": "tests.plugins.hashing,tests.plugins.slow",
            "MEMORIST_LANGUAGE_MODEL__PROVIDER": "slow-heuristic",
            "MEMORIST_LANGUAGE_MODEL__OPTIONS__DELAY": str(SLOW_SECONDS),
            "MEMORIST_SERVER__HEADER_TIMEOUT": "2",
            "MEMORIST_SERVER__THREADS": "4",
            "MEMORIST_QUEUE__WORKERS": "0",
        },
        workers=1,
    ).start()
    yield srv
    srv.stop()


def timed_health(server: Server) -> float:
    started = time.monotonic()
    resp = requests.get(f"{server.url}/health", timeout=30)
    assert resp.status_code == 200
    return time.monotonic() - started


def raw_exchange(server: Server, data: bytes, timeout: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_all(sock)


def read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def split(response: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return lines[0], headers, body


def add_in_background(server: Server, results: list[Any]) -> threading.Thread:
    def run() -> None:
        try:
            results.append(
                requests.post(
                    f"{server.url}/memories",
                    headers=ADMIN,
                    json={"messages": [{"role": "user", "content": "I grow tomatoes on my balcony."}], "user_id": "u"},
                    timeout=60,
                )
            )
        except requests.RequestException as exc:
            results.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_health_answers_while_a_slow_add_runs(server: Server) -> None:
    results: list[Any] = []
    thread = add_in_background(server, results)
    time.sleep(0.5)  # the add is now inside the slow language model
    latencies = [timed_health(server) for _ in range(5)]
    thread.join()
    assert max(latencies) < 1.0, latencies
    assert results and isinstance(results[0], requests.Response) and results[0].status_code == 200, results


def test_a_partial_request_neither_blocks_health_nor_stays_open(server: Server) -> None:
    partial = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    idle = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    try:
        partial.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")  # and then nothing
        opened = time.monotonic()
        latencies = [timed_health(server) for _ in range(5)]
        assert max(latencies) < 1.0, latencies
        answer = read_all(partial)  # the server answers and closes: EOF
        waited = time.monotonic() - opened
        status, headers, body = split(answer)
        assert status.startswith("HTTP/1.1 408"), answer
        assert headers["content-type"] == "application/json"
        assert "not received in time" in json.loads(body)["detail"]
        assert 1.5 < waited < 6, waited  # header_timeout is 2 s
    finally:
        partial.close()
        idle.close()


def test_more_slow_connections_than_threads_do_not_block_health(server: Server) -> None:
    """Request heads are awaited on the poller: 12 partial or silent connections hold none of the 4 threads."""
    sockets = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(12)]
    try:
        for sock in sockets[:6]:
            sock.sendall(b"POST /search HTTP/1.1\r\nHost: localhost\r\n")
        time.sleep(0.3)
        latencies = [timed_health(server) for _ in range(5)]
        assert max(latencies) < 1.0, latencies
    finally:
        for sock in sockets:
            sock.close()


def test_request_line_too_long_answers_json(server: Server) -> None:
    status, headers, body = split(
        raw_exchange(server, b"GET /health?q=" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    )
    assert status.startswith("HTTP/1.1 414")
    assert headers["content-type"] == "application/json" and json.loads(body)["detail"]


def test_headers_too_large_answer_json(server: Server) -> None:
    request = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n"
    status, headers, body = split(raw_exchange(server, request))
    assert status.split()[1] in ("400", "431"), status
    assert headers["content-type"] == "application/json" and json.loads(body)["detail"]


def test_a_worker_aborted_mid_request_answers_json(server: Server) -> None:
    """What the arbiter does to a worker that stopped reporting (SIGABRT); the master forks a new one."""
    assert server.process is not None
    results: list[Any] = []
    thread = add_in_background(server, results)
    time.sleep(1.0)
    (worker,) = psutil.Process(server.process.pid).children()
    worker.send_signal(signal.SIGABRT)
    thread.join()
    resp = results[0]
    assert isinstance(resp, requests.Response), resp
    assert resp.status_code == 503 and resp.headers["content-type"] == "application/json"
    assert "retry" in resp.json()["detail"]
    deadline = time.monotonic() + 60
    while True:  # the replacement worker starts serving
        try:
            if requests.get(f"{server.url}/health", timeout=5).status_code == 200:
                break
        except requests.RequestException:
            pass
        assert time.monotonic() < deadline
        time.sleep(0.2)
