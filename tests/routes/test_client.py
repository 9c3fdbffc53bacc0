"""``memorist.client`` against the whole app in process: httpx's own WSGI transport (sync) and the kit's
async transport, plus a loopback socket where a timeout is what is tested.

Failures a network adds (a refused connection, a 503 with ``Retry-After``) are put in
front of the real app by :class:`Flaky`, a transport that fails the first calls it is
told to and hands the rest to the app: the answers themselves are always the app's.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from memorist.client import (
    NO_RETRY,
    AsyncMemoristClient,
    AsyncPlatformClient,
    AuthenticationError,
    MemoristClient,
    NotFoundError,
    PermissionDenied,
    PlatformClient,
    ProviderError,
    RateLimited,
    Retry,
    TransportError,
    ValidationError,
)
from memorist.testing._httpx import AsyncTransport
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN, ADMIN_KEY

URL = "http://memorist.test"
FAST = Retry(attempts=3, backoff=0.01, max_wait=5.0)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    env = {"MEMORIST_AUTH__FAILED_AUTH_ATTEMPTS": "6"}
    with AppServer(tmp_path_factory.mktemp("client") / "data", env=env, url=URL) as srv:
        yield srv


def wsgi(server: AppServer) -> httpx.WSGITransport:
    assert server.app is not None
    return httpx.WSGITransport(app=server.app)


@pytest.fixture(scope="module")
def admin(server: AppServer) -> MemoristClient:
    return MemoristClient(URL, api_key=ADMIN_KEY, transport=wsgi(server), retry=FAST)


@pytest.fixture(scope="module")
def user_key(server: AppServer) -> str:
    server.post("/auth/register", json={"name": "Root", "email": "root@client.test", "password": "correct horse"})
    made = server.post(
        "/auth/users", headers=ADMIN, json={"name": "Uma", "email": "uma@client.test", "password": "uma-password"}
    )
    assert made.status_code == 201, made.text
    token = server.post("/auth/login", json={"email": "uma@client.test", "password": "uma-password"})
    key = server.post(
        "/api-keys", headers={"Authorization": f"Bearer {token.json()['access_token']}"}, json={"label": "app"}
    )
    assert key.status_code == 201, key.text
    return str(key.json()["key"])


def test_selfhosted_memory_lifecycle(admin: MemoristClient) -> None:
    added = admin.add("I moved to Lisbon last spring.", user_id="ana", infer=False, metadata={"src": "chat"})
    assert not added.queued and [m.memory for m in added.results] == ["I moved to Lisbon last spring."]
    memory_id = added.results[0].id
    admin.add([{"role": "user", "content": "Mi gato se llama Tomás."}], user_id="ana", infer=False)

    hits = admin.search("Where does Ana live?", user_id="ana", threshold=0)
    assert hits[0].id == memory_id and hits[0].score is not None and hits[0].metadata == {"src": "chat"}
    page = admin.get_all(user_id="ana")
    assert page.count == 2 and {m.memory for m in page.results} == {
        "I moved to Lisbon last spring.",
        "Mi gato se llama Tomás.",
    }
    assert admin.get(memory_id).user_id == "ana"
    assert admin.update(memory_id, text="I moved to Porto last spring.").memory == "I moved to Porto last spring."
    assert [h.event for h in admin.history(memory_id)][:2] == ["ADD", "UPDATE"]
    admin.delete(memory_id)
    with pytest.raises(NotFoundError) as missing:
        admin.get(memory_id)
    assert missing.value.status == 404 and missing.value.request_id and "not found" in missing.value.detail
    assert admin.delete_all(user_id="ana") == 1
    assert admin.get_all(user_id="ana").count == 0
    assert admin.health()["status"] == "ok"
    admin.add("Bea bakes sourdough.", user_id="bea", infer=False)
    assert any(e.get("id") == "bea" for e in admin.entities())
    assert admin.delete_entity("user", "bea") == 1


def test_selfhosted_errors_are_the_servers(server: AppServer, admin: MemoristClient, user_key: str) -> None:
    with pytest.raises(ValidationError, match="wildcard") as star:
        admin.add("stored under a star?", user_id="*", infer=False)
    assert star.value.status == 400
    with pytest.raises(ValidationError, match="user_id"):
        admin.add("no one's memory", infer=False)

    user = MemoristClient(URL, api_key=user_key, transport=wsgi(server))
    user.add("Uma plays chess on Sundays.", infer=False)  # a user's key writes as its own user
    with pytest.raises(ValidationError, match="confined to user_id='uma@client.test'"):
        user.add("Uma's note for someone else", user_id="uma", infer=False)
    with pytest.raises(PermissionDenied, match="admin"):
        user.delete_all(user_id="*")  # every user's memories: admins only
    assert user.get_all().count == 1  # nothing lost to the refused delete

    as_bearer = MemoristClient(URL, access_token=user_key, transport=wsgi(server), retry=NO_RETRY)
    with pytest.raises(AuthenticationError, match="X-API-Key"):
        as_bearer.get_all()


def test_a_queued_add_is_waited_for(admin: MemoristClient) -> None:
    long = " ".join(["Ich wandere gern in den Alpen und trinke danach heiße Schokolade."] * 200)
    added = admin.add(long, user_id="wanda")
    assert added.queued and added.event_id
    event = admin.wait(added.event_id, timeout=120)
    assert event.status == "SUCCEEDED", event
    assert admin.get_all(user_id="wanda").count >= 1


def test_async_selfhosted_client(server: AppServer) -> None:
    async def scenario() -> tuple[list[str], int]:
        async with AsyncMemoristClient(URL, api_key=ADMIN_KEY, transport=AsyncTransport(server)) as client:
            await client.add("Kenji repairs old bicycles.", user_id="kenji", infer=False)
            hits = await client.search("What does Kenji repair?", user_id="kenji", threshold=0)
            with pytest.raises(NotFoundError):
                await client.get("00000000-0000-0000-0000-000000000000")
            return [h.memory for h in hits], await client.delete_all(user_id="kenji")

    memories, deleted = asyncio.run(scenario())
    assert memories == ["Kenji repairs old bicycles."] and deleted == 1


# -- the platform API ------------------------------------------------------------------------------


def bootstrap(server: AppServer, org: str, role: str = "OWNER") -> str:
    made = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": org, "project_name": "P", "email": f"{role.lower()}@{org.lower()}.test", "role": role},
    )
    assert made.status_code == 201, made.text
    return str(made.json()["key"])


def test_platform_client(server: AppServer) -> None:
    key = bootstrap(server, "ClientCo")
    with PlatformClient(URL, api_key=key, transport=wsgi(server), retry=FAST) as client:
        assert client.ping()["org_id"]
        stored = client.add("Noor speaks Arabic and Dutch.", user_id="noor", infer=False)
        assert [m.memory for m in stored.results] == ["Noor speaks Arabic and Dutch."]
        queued = client.add("I'm allergic to peanuts and I live in Utrecht.", user_id="noor")
        assert queued.queued and queued.event_id
        assert client.wait(queued.event_id).status == "SUCCEEDED"
        hits = client.search("Which languages does Noor speak?", user_id="noor", threshold=0)
        assert "Noor speaks Arabic and Dutch." in [h.memory for h in hits] and all(h.user_id == "noor" for h in hits)
        page = client.get_all(user_id="noor")
        assert page.count >= 2 and all(m.user_id == "noor" for m in page.results)
        memory_id = stored.results[0].id
        assert client.update(memory_id, text="Noor speaks Arabic, Dutch and English.").memory.endswith("English.")
        assert [h.event for h in client.history(memory_id)][:2] == ["ADD", "UPDATE"]
        assert client.delete_all(filters={"user_id": "noor"}) == page.count
        with pytest.raises(NotFoundError):
            client.get(memory_id)

    reader = PlatformClient(URL, api_key=bootstrap(server, "ReadCo", "READER"), transport=wsgi(server))
    with pytest.raises(PermissionDenied, match="OWNER"):
        reader.add("a reader's note", user_id="r", infer=False)
    selfhosted_key = PlatformClient(URL, api_key=ADMIN_KEY, transport=wsgi(server), retry=NO_RETRY)
    with pytest.raises(AuthenticationError, match="X-API-Key"):
        selfhosted_key.ping()


def test_async_platform_client(server: AppServer) -> None:
    key = bootstrap(server, "AsyncCo")

    async def scenario() -> list[str]:
        async with AsyncPlatformClient(URL, api_key=key, transport=AsyncTransport(server)) as client:
            await client.add("Ilse keeps bees in Ghent.", user_id="ilse", infer=False)
            hits = await client.search("What does Ilse keep?", user_id="ilse", threshold=0)
            assert await client.delete_all(user_id="ilse") == 1
            return [h.memory for h in hits]

    assert asyncio.run(scenario()) == ["Ilse keeps bees in Ghent."]


# -- retries and timeouts --------------------------------------------------------------------------


class Flaky(httpx.BaseTransport):
    """Fails the first calls as told (an exception, or a status with headers), then reaches the app."""

    def __init__(self, app: httpx.BaseTransport, failures: list[Any]) -> None:
        self.app = app
        self.failures = list(failures)
        self.calls: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.calls.append(f"{request.method} {request.url.path}")
        if self.failures:
            failure = self.failures.pop(0)
            if isinstance(failure, Exception):
                raise failure
            status, headers = failure
            return httpx.Response(status, headers=headers, json={"detail": "try later"}, request=request)
        return self.app.handle_request(request)


def test_reads_are_retried_after_connection_failures_and_5xx(server: AppServer) -> None:
    flaky = Flaky(wsgi(server), [httpx.ConnectError("refused"), (502, {}), (504, {})])
    client = MemoristClient(URL, api_key=ADMIN_KEY, transport=flaky, retry=Retry(attempts=4, backoff=0.01))
    assert client.get_all(user_id="nobody").count == 0
    assert len(flaky.calls) == 4


def test_an_add_is_not_repeated_unless_the_server_refused_it(server: AppServer) -> None:
    # A read timeout: the add may have been stored; sending it again could store it twice.
    flaky = Flaky(wsgi(server), [httpx.ReadTimeout("slow")])
    client = MemoristClient(URL, api_key=ADMIN_KEY, transport=flaky, retry=FAST)
    with pytest.raises(TransportError, match="ReadTimeout"):
        client.add("sent once", user_id="once", infer=False)
    assert flaky.calls == ["POST /memories"]
    # A 502 (a provider failed mid-add): not repeated either.
    flaky = Flaky(wsgi(server), [(502, {})])
    client = MemoristClient(URL, api_key=ADMIN_KEY, transport=flaky, retry=FAST)
    with pytest.raises(ProviderError):
        client.add("sent once", user_id="once", infer=False)
    assert len(flaky.calls) == 1
    # 503 with Retry-After, and a refused connection: nothing was done, so the add is sent again.
    flaky = Flaky(wsgi(server), [(503, {"Retry-After": "0"}), httpx.ConnectError("refused")])
    client = MemoristClient(URL, api_key=ADMIN_KEY, transport=flaky, retry=FAST)
    assert client.add("sent until accepted", user_id="twice", infer=False).results[0].memory == "sent until accepted"
    assert flaky.calls == ["POST /memories"] * 3
    assert client.get_all(user_id="twice").count == 1  # stored once


def test_a_429_from_the_server_is_raised_with_its_retry_after(server: AppServer) -> None:
    """The app's own throttle (6 failed authentications from one address here): its Retry-After is longer
    than the client's ``max_wait``, so the client raises at once instead of sleeping through it.
    (Last of the tests on this module's server: the address stays blocked for a minute.)"""
    client = MemoristClient(URL, api_key="svcsk_not-a-key", transport=wsgi(server), retry=Retry(max_wait=5))
    with pytest.raises(AuthenticationError):
        client.get_all(user_id="x")
    limited: RateLimited | None = None
    for _ in range(8):
        started = time.monotonic()
        try:
            client.get_all(user_id="x")
        except RateLimited as exc:
            limited = exc
            break
        except AuthenticationError:
            continue
    assert limited is not None, "the server never throttled"
    assert time.monotonic() - started < 2  # not slept through
    assert limited.status == 429 and limited.retry_after is not None and limited.retry_after > 5
    assert "too many failed authentication attempts" in limited.detail


def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # accepts connections (the kernel does), never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        client = MemoristClient(url, api_key="k", timeout=0.3, retry=Retry(attempts=2, backoff=0.01))
        started = time.monotonic()
        with pytest.raises(TransportError, match="ReadTimeout"):
            client.health()
        assert 0.5 <= time.monotonic() - started < 5  # two tries of 0.3 s each
