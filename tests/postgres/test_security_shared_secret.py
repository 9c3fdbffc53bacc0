"""Issue 39, item 16: nodes without ``JWT_SECRET`` over one PostgreSQL share one generated secret.

``memorist serve`` generated a secret per data directory, so two nodes over one
database each signed with their own: a dashboard session made on one answered
401 on the other behind a load balancer. The generated secret now lives in the
database, made once (race-safe) and read by every node. Each node here is what
``memorist serve`` builds: :func:`with_jwt_secret` on its settings, then the app.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.cli.first_run import SECRET_FILE, with_jwt_secret
from memorist.config.settings import load_settings
from memorist.http import create_app
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing

ACCOUNT = {"name": "Ines", "email": "ines@example.com", "password": "correct horse 42"}


def node_settings(data_dir: Path, database_url: str | None = None) -> Any:
    extra: dict[str, Any] = {"queue": {"workers": 0}}
    if database_url:
        extra["database"] = {"url": database_url}
    settings = load_settings(None, fast_settings(data_dir, **extra))
    assert settings.auth.jwt_secret is None and not settings.auth.disabled
    return settings


def app(settings: Any) -> falcon.testing.TestClient:
    return falcon.testing.TestClient(create_app(settings, load_plugins({}, extra=[hashing])))


@pytest.mark.process
def test_two_nodes_over_one_postgresql_accept_each_others_sessions(tmp_path: Path, pg_fresh_url: str) -> None:
    nodes = [node_settings(tmp_path / name, pg_fresh_url) for name in ("a", "b", "c")]
    started: list[Any] = [None] * len(nodes)
    ready = threading.Barrier(len(nodes))

    def start(i: int) -> None:  # the nodes start together: one insert wins, the others read it
        ready.wait()
        started[i] = with_jwt_secret(nodes[i])

    threads = [threading.Thread(target=start, args=(i,)) for i in range(len(nodes))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    secrets = {s.auth.jwt_secret.get_secret_value() for s, _ in started}
    assert len(secrets) == 1 and len(secrets.pop()) >= 32
    notes = sorted(note for _, note in started)
    assert sum("generated one and stored it in the database" in n for n in notes) == 1, notes

    a, b = app(started[0][0]), app(started[1][0])
    tokens = a.simulate_post("/auth/register", json=ACCOUNT)
    assert tokens.status_code == 201, tokens.text
    me = b.simulate_get("/auth/me", headers={"Authorization": f"Bearer {tokens.json['access_token']}"})
    assert me.status_code == 200 and me.json["email"] == ACCOUNT["email"], me.text
    refreshed = b.simulate_post("/auth/refresh", json={"refresh_token": tokens.json["refresh_token"]})
    assert refreshed.status_code == 200, refreshed.text

    # A node started later (a restart, a new node) reads the same secret.
    later, note = with_jwt_secret(node_settings(tmp_path / "d", pg_fresh_url))
    assert later.auth.jwt_secret == started[0][0].auth.jwt_secret and "generated earlier" in (note or "")


def test_an_earlier_installs_secret_file_keeps_its_sessions(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / SECRET_FILE).write_text("s" * 64 + "\n")
    settings, note = with_jwt_secret(node_settings(data))
    assert settings.auth.jwt_secret.get_secret_value() == "s" * 64
    again, _ = with_jwt_secret(node_settings(data))
    assert again.auth.jwt_secret.get_secret_value() == "s" * 64


def test_a_configured_secret_wins(tmp_path: Path) -> None:
    settings = load_settings(None, fast_settings(tmp_path, auth={"jwt_secret": "c" * 48}))
    assert with_jwt_secret(settings) == (settings, None)
