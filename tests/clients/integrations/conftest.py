"""Fixtures of the integration recipes' tier: a real Memorist on a loopback port, a platform key,
the recipe's installed environment, and the OpenAI stand-in where a framework needs a model.

The environments are built by ``nox -s integrations`` (tests/clients/integrations/envs.py), never here:
without one, its tests are skipped with the command that builds it as the reason. The tier is
not part of ``.ci/run`` (its installs take minutes; docs/testing.md), so CI skips it too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN

from tests.fake_openai import FakeOpenAI

from . import envs


class Served:
    """The whole app in process, on a loopback socket: what the recipes' processes connect to."""

    def __init__(self, app: AppServer, url: str, key: str) -> None:
        self.app = app
        self.url = url
        self.key = key


@pytest.fixture(scope="module")
def memorist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # The real embedder (the default ONNX MiniLM), not the test kit's hashing one: a recipe asks a
    # natural question ("What does alice eat?") whose answer shares no word with it.
    real_embedder = {"MEMORIST_EMBEDDER__PROVIDER": None}
    with AppServer(tmp_path_factory.mktemp("recipes-server") / "data", real_embedder) as app:
        url = app.listen()
        resp = app.post(
            "/api/v1/admin/bootstrap/",
            headers=ADMIN,
            json={"org_name": "Acme", "project_name": "Recipes", "email": "dev@acme.test", "role": "OWNER"},
        )
        assert resp.status_code == 201, resp.text
        yield Served(app, url, str(resp.json()["key"]))


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeOpenAI]:
    """The OpenAI protocol on loopback: answers every chat with ``default_chat``, records each request."""
    with FakeOpenAI() as server:
        yield server


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a recipe test whose environment is absent before its fixtures start a server."""
    for marker in item.iter_markers("recipe"):
        installed(*marker.args)


def installed(name: str) -> Path:
    """The root of ``name``'s built environment, or a skip naming the command that builds it."""
    base = envs.root()
    if envs.missing(base, [name]):
        pytest.skip(
            f"integration {name!r} not installed in {base}: run `nox -s integrations` (or "
            f"`python tests/clients/integrations/envs.py {name}`) first"
        )
    return base


def forget(memorist: Served, user: str) -> None:
    resp = memorist.app.request(
        "DELETE", f"/v1/memories/?user_id={user}", headers={"Authorization": f"Token {memorist.key}"}
    )
    assert resp.status_code in (200, 204), resp.text
    assert not stored(memorist, user)


def stored(memorist: Served, user: str) -> list[str]:
    resp = memorist.app.post(
        "/v3/memories/",
        headers={"Authorization": f"Token {memorist.key}"},
        json={"filters": {"user_id": user}},
    )
    assert resp.status_code == 200, resp.text
    return [m["memory"] for m in resp.json()["results"]]
