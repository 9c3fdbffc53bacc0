"""Issue 39, item 7: ``/configure`` cannot send the deployment's ``OPENAI_API_KEY`` elsewhere.

An admin set ``language_model: openai`` with an attacker's ``base_url``; the next add
sent ``Authorization: Bearer <deployment key>`` there. Two local OpenAI-protocol
servers play the deployment's provider (A) and the attacker's (B, reachable as a
public host would be: ``security.outbound_allow`` lets the guard pass it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import falcon.testing
import pytest
from memorist.config.overrides import OVERRIDES_KEY
from memorist.db import Database
from memorist.db.schema import kv
from memorist.records import utcnow
from sqlalchemy import insert

from tests.fake_openai import FakeOpenAI
from tests.security_kit import ADMIN_HEADERS, client

SECRET = "sk-deployment-secret-0123456789"
ADD = {"messages": [{"role": "user", "content": "Je joue du violoncelle le mardi."}], "user_id": "zoe"}


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAI() as own, FakeOpenAI() as attacker:
        yield own, attacker


def app(data: Path, own: FakeOpenAI, **security: object) -> falcon.testing.TestClient:
    return client(
        data,
        language_model={"provider": "openai", "options": {"model": "m", "base_url": own.base_url, "max_retries": 0}},
        security={"outbound_allow": ["127.0.0.1"], **security},
    )


def keys_sent(server: FakeOpenAI) -> list[str]:
    return [r.headers.get("authorization", "") for r in server.requests]


def configure_base_url(c: falcon.testing.TestClient, url: str) -> falcon.testing.Result:
    patch = {"language_model": {"provider": "openai", "options": {"model": "m", "base_url": url}}}
    return c.simulate_post("/configure", headers=ADMIN_HEADERS, json=patch)


def test_configure_cannot_point_the_deployment_key_at_another_server(
    tmp_path: Path, servers: tuple[FakeOpenAI, FakeOpenAI]
) -> None:
    own, attacker = servers
    c = app(tmp_path / "data", own)
    assert c.simulate_post("/memories", headers=ADMIN_HEADERS, json=ADD).status_code == 200
    assert keys_sent(own) and set(keys_sent(own)) == {f"Bearer {SECRET}"}  # its own provider gets it

    moved = configure_base_url(c, attacker.base_url)
    assert moved.status_code == 400, moved.text
    detail = moved.json["detail"]
    assert "language_model.options.base_url" in detail and "security.provider_key_origins" in detail
    assert "OPENAI_API_KEY" in detail and SECRET not in detail
    assert c.simulate_post("/memories", headers=ADMIN_HEADERS, json=ADD).status_code == 200
    assert attacker.requests == []


def test_a_stored_override_to_another_server_gets_no_key(
    tmp_path: Path, servers: tuple[FakeOpenAI, FakeOpenAI]
) -> None:
    """Below /configure's check, the client itself: an override stored before this rule existed."""
    own, attacker = servers
    data = tmp_path / "data"
    app(data, own)  # creates the database
    db = Database(f"sqlite:///{data / 'memorist.db'}")
    try:
        with db.begin() as conn:
            moved = {"language_model": {"options": {"base_url": attacker.base_url}}}
            conn.execute(insert(kv).values(key=OVERRIDES_KEY, value=moved, updated_at=utcnow()))
    finally:
        db.dispose()
    c = app(data, own)
    c.simulate_post("/memories", headers=ADMIN_HEADERS, json=ADD)
    assert attacker.requests, "the stored override was not used"
    assert not any(SECRET in header for header in keys_sent(attacker)), keys_sent(attacker)


def test_an_origin_the_deployer_lists_may_receive_the_key(
    tmp_path: Path, servers: tuple[FakeOpenAI, FakeOpenAI]
) -> None:
    own, other = servers
    c = app(tmp_path / "data", own, provider_key_origins=[other.base_url.removesuffix("/v1")])
    assert configure_base_url(c, other.base_url).status_code == 200
    assert c.simulate_post("/memories", headers=ADMIN_HEADERS, json=ADD).status_code == 200
    assert set(keys_sent(other)) == {f"Bearer {SECRET}"}
