"""Released platform clients of older lines, unchanged, against the whole app on a real socket.

``mem0ai`` 0.1.118 (the 0.1.x line: ``POST /v1/memories/``, ``GET /v1/memories/``,
``/v1/memories/search/``, ``/v2/memories/search/``) and 1.0.11 (the 1.x line: ``POST /v2/memories/``,
``/v2/memories/search/``) each run in their own interpreter with only their release on the path;
the JavaScript clients from npm (``mem0ai`` 2.1.38, the last line on the v1/v2 routes; later ones call
v3, and 2.4.6, the release ``@mastra/mem0`` 0.1.4 uses) are driven by ``node`` the same way. They are
separate processes speaking HTTP, so the app listens
on a loopback port (``AppServer.listen()``: the app ``memorist serve`` builds, served from a thread);
gunicorn itself is not what these tests are about.

Their environments are built before pytest, by ``nox -s old_clients_env`` (``.ci/run`` runs it;
``tests/clients/oldclients/envs.py``), one directory per release under ``.nox/old_clients`` (or
``MEMORIST_OLD_CLIENTS_DIR``). Without them the tests are skipped with that command as the reason
-- except in CI (``CI`` set), where a missing environment is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN

from .oldclients import envs

RELEASES = envs.RELEASES
NPM_RELEASES = envs.NPM_RELEASES
DRIVER = Path(__file__).parent / "oldclients" / "drive.py"
NPM_DRIVER = Path(__file__).parent / "oldclients" / "drive.cjs"


@pytest.fixture(scope="module")
def installs() -> Path:
    """The clients' environments, built by ``nox -s old_clients_env`` (never here: see the module doc)."""
    root = envs.root()
    absent = envs.missing(root)
    if absent:
        message = (
            f"old platform clients not installed in {root} ({', '.join(absent)}): "
            "run `nox -s old_clients_env` (or `python tests/clients/oldclients/envs.py`) first"
        )
        if os.environ.get("CI"):
            pytest.fail(message + " -- in CI this is a failure, not a skip", pytrace=False)
        pytest.skip(message)
    return root


class Served:
    """The app in process, on a loopback socket: what the client processes connect to."""

    def __init__(self, app: AppServer, url: str) -> None:
        self.app = app
        self.url = url


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with AppServer(tmp_path_factory.mktemp("oldclients-server") / "data") as app:
        yield Served(app, app.listen())


@pytest.fixture(scope="module")
def key(server: Served) -> str:
    resp = server.app.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": "Acme", "project_name": "Web", "email": "old@acme.test", "role": "OWNER"},
    )
    assert resp.status_code == 201, resp.text
    return str(resp.json()["key"])


def drive(
    installs: Path, server: Served, key: str, release: str, user: str, tmp_path: Path, *project: str
) -> dict[str, Any]:
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        "PYTHONPATH": str(installs / release),  # the release alone: not the mem0ai 2.x of this venv
        "MEM0_TELEMETRY": "False",
        "MEM0_DIR": str(tmp_path / "mem0home"),
        "NO_PROXY": "127.0.0.1,localhost",
    }
    done = subprocess.run(
        [sys.executable, str(DRIVER), server.url, key, user, *project],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"mem0ai {release} failed:\n{done.stdout}\n{done.stderr[-4000:]}"
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def drive_npm(installs: Path, server: Served, key: str, release: str, user: str) -> dict[str, Any]:
    modules = installs / f"npm-{release}" / "node_modules"
    env = {**os.environ, "MEM0_TELEMETRY": "false", "NO_PROXY": "127.0.0.1,localhost"}
    command = ["node", str(NPM_DRIVER), str(modules), server.url, key, user]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"npm mem0ai {release} failed:\n{done.stdout}\n{done.stderr[-4000:]}"
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("release", [*RELEASES, *(f"npm-{r}" for r in NPM_RELEASES)])
def test_released_client_memory_calls(installs: Path, server: Served, key: str, release: str, tmp_path: Path) -> None:
    user = f"user-{release}"
    if release.startswith("npm-"):
        release = release.removeprefix("npm-")
        report = drive_npm(installs, server, key, release, user)
        # The npm client sends no output_format and reads a bare array, the platform's v1.0 default
        # (@mastra/mem0 0.1.4 calls ``.map`` on it): the driver maps it the same way.
        assert isinstance(report["add"], list), report["add"]
        assert report["add_mapped"] == ["I live in Utrecht and my sister is called Noor."]
    else:
        report = drive(installs, server, key, release, user, tmp_path)
        # The Python clients ask for output_format v1.1 (0.1.x) or read the envelope (1.x).
        assert isinstance(report["add"], dict) and isinstance(report["add"]["results"], list), report["add"]
    assert report["version"] == release
    texts = {"I live in Utrecht and my sister is called Noor.", "My bike is green."}
    added = report["add"]["results"] if isinstance(report["add"], dict) else report["add"]
    assert added[0]["memory"] == "I live in Utrecht and my sister is called Noor." and added[0]["event"] == "ADD"
    assert {m["memory"] for m in report["get_all"]} == texts  # add was synchronous: listable at once
    assert all(m["user_id"] == user for m in report["get_all"])
    assert report["search"][0]["memory"].startswith("I live in Utrecht") and "score" in report["search"][0]
    if "get_all_v1" in report:  # 0.1.x and the npm client also use the v1 list and search
        assert {m["memory"] for m in report["get_all_v1"]} == texts
        assert len(report["search_v1"]) == 2  # v1: no threshold by default
    assert report["get"]["memory"].startswith("I live in Utrecht")
    assert report["get_after_update"]["memory"] == "I live in Amsterdam and my sister is called Noor."
    events = [h["event"] for h in report["history"]]
    assert events[:2] == ["ADD", "UPDATE"], report["history"]
    assert report["get_after_delete"] in ("MemoryNotFoundError", "HTTPStatusError", "ValueError", "APIError")
    assert [m["memory"] for m in report["get_all_after_delete"]] == ["My bike is green."]


@pytest.mark.parametrize("release", RELEASES)
def test_released_client_constructed_for_another_project_of_its_user(
    installs: Path, server: Served, key: str, release: str, tmp_path: Path
) -> None:
    """The key reaches every project of its user: the client sends ``org_id``/``project_id`` with each call."""
    auth = {"Authorization": f"Token {key}"}
    home = server.app.get("/v1/ping/", headers=auth, timeout=10).json()
    created = server.app.post(
        f"/api/v1/orgs/organizations/{home['org_id']}/projects/", headers=auth, json={"name": f"second {release}"}
    )
    assert created.status_code == 201, created.text
    second = created.json()["project_id"]
    user = f"second-{release}"
    report = drive(installs, server, key, release, user, tmp_path, home["org_id"], second)
    assert report["project_id"] == second  # the ping answered the project the client named
    assert {m["memory"] for m in report["get_all"]} == {
        "I live in Utrecht and my sister is called Noor.",
        "My bike is green.",
    }
    assert [m["memory"] for m in report["get_all_after_delete"]] == ["My bike is green."]
    # The memories are in the second project, not in the key's home project.
    inside = server.app.post("/v3/memories/", headers=auth, json={"filters": {"user_id": user}, "project_id": second})
    assert [m["memory"] for m in inside.json()["results"]] == ["My bike is green."]
    assert server.app.post("/v3/memories/", headers=auth, json={"filters": {"user_id": user}}).json()["count"] == 0
