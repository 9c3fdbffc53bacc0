"""The app factory and a real gunicorn process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
import requests
from memorist import Engine, __version__
from memorist.config.settings import load_settings
from memorist.http import create_app
from memorist.plugin.manager import load_plugins
from memorist.testing import free_port

from tests.conftest import fast_settings
from tests.plugins import hashing

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def client(tmp_path: Path) -> falcon.testing.TestClient:
    settings = load_settings(None, fast_settings(tmp_path))
    return falcon.testing.TestClient(create_app(settings, load_plugins({}, extra=[hashing])))


def test_health_reports_version_and_components(client: falcon.testing.TestClient) -> None:
    resp = client.simulate_get("/health")
    assert resp.status_code == 200
    assert resp.json["version"] == __version__
    assert resp.json["ready"] is True  # in process the app exists once its engine does
    assert client.simulate_get("/ready").json == {"status": "ready"}
    assert resp.json["components"] == {
        "language_model": "heuristic",
        "embedder": "hashing",
        "vector_store": "lancedb",
        "reranker": "mmr",
        "entity_extractor": "rules",
    }
    assert len(resp.headers["X-Request-ID"]) == 32


def test_request_id_from_the_caller_is_echoed(client: falcon.testing.TestClient) -> None:
    resp = client.simulate_get("/health", headers={"X-Request-ID": "abc-123"})
    assert resp.headers["X-Request-ID"] == "abc-123"


def test_unknown_route_is_json_404(client: falcon.testing.TestClient) -> None:
    resp = client.simulate_get("/no/such/route")
    assert resp.status_code == 404
    assert "detail" in resp.json


def test_configure_app_hook_adds_routes(client: falcon.testing.TestClient) -> None:
    assert client.simulate_get("/test-plugin/ping").json == {"pong": True}


def test_dimension_mismatch_refuses_to_start(tmp_path: Path) -> None:
    plugins = load_plugins({}, extra=[hashing])
    create_app(load_settings(None, fast_settings(tmp_path)), plugins)  # creates a 64-d store
    bigger = fast_settings(tmp_path, embedder={"provider": "hashing", "options": {"dimension": 32}})
    with pytest.raises(Exception) as err:
        create_app(load_settings(None, bigger), plugins)
    assert type(err.value).__name__ == "DimensionMismatchError"
    assert "64" in str(err.value) and "32" in str(err.value)


def wait_for_health(url: str, process: subprocess.Popen[bytes], seconds: float = 120) -> requests.Response:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}")
        try:
            return requests.get(url, timeout=5)
        except (requests.ConnectionError, requests.Timeout):
            time.sleep(0.3)
    raise AssertionError("server did not answer in time")


def wait_for_ready(port: int, process: subprocess.Popen[bytes], seconds: float = 120) -> dict[str, Any]:
    """``/health``'s first answer from a worker whose engine is built (``/ready`` answered 200 before it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode}")
        if requests.get(f"http://127.0.0.1:{port}/ready", timeout=30).status_code == 200:
            body: dict[str, Any] = requests.get(f"http://127.0.0.1:{port}/health", timeout=30).json()
            if body["ready"]:
                return body
        time.sleep(0.2)
    raise AssertionError("no worker got ready in time")


def test_memorist_serve_runs_gunicorn_answering_health(tmp_path: Path) -> None:
    """The real command, the real default embedder, two gunicorn workers."""
    port = free_port()
    env = {**os.environ, "MEMORIST_DATA_DIR": str(tmp_path / "data")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memorist.cli",
            "serve",
            "--config",
            str(ROOT / "configs" / "default.yaml"),
            "--port",
            str(port),
            "--workers",
            "2",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        resp = wait_for_health(f"http://127.0.0.1:{port}/health", process)
        assert resp.status_code == 200
        assert resp.json()["status"] == "ok"  # liveness, answered while the engine may still be built
        body = wait_for_ready(port, process)
        assert body["ready"] is True
        assert body["components"]["embedder"] == "sentence-transformers:all-MiniLM-L6-v2 (onnx)"
        assert (tmp_path / "data" / "lancedb").exists()
    except Exception as exc:  # the server's own log says why it stopped answering
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0].decode()
        raise AssertionError(f"{exc}\n--- memorist serve printed ---\n{output}") from exc
    process.send_signal(signal.SIGTERM)
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 0, output
    assert "Booting worker" in output
    assert "Control socket" not in output  # gunicorn's per-user control socket stays off


@pytest.mark.parametrize(
    ("dimension", "refusal"),
    [(8, "holds 8-dimensional vectors"), (384, "holds vectors made by 'hashing' (384 dimensions)")],
    ids=["another-dimension", "another-model"],
)
def test_a_store_of_another_embedder_stops_serve_with_one_line(tmp_path: Path, dimension: int, refusal: str) -> None:
    """A store filled by another embedder (of another dimension, or of the same dimension:
    hashing-384 against the default MiniLM) stops ``memorist serve`` with the reason in one
    line, without a traceback from each worker."""
    data = tmp_path / "data"
    env = {**os.environ, "MEMORIST_DATA_DIR": str(data)}
    filled = Engine.from_config(
        fast_settings(data, embedder={"provider": "hashing", "options": {"dimension": dimension}}),
        plugins=load_plugins({}, extra=[hashing]),
    )
    filled.add("I keep bees on the roof.", user_id="fay")
    filled.close()
    process = subprocess.run(
        [sys.executable, "-m", "memorist.cli", "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    output = process.stdout + process.stderr
    assert process.returncode != 0
    assert refusal in output, output
    assert "Traceback" not in output and "App failed to load" in output, output
