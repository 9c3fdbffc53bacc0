"""The self-hosted REST API (``/memories``, ``/search``, ``/events``, ...): :class:`MemoristClient` and
:class:`AsyncMemoristClient`.

Credentials: a per-user key (``svcsk_...``, sent as ``X-API-Key``), the legacy admin key
(also ``X-API-Key``), or a dashboard session's access token (``Authorization: Bearer``);
none for a server with ``AUTH_DISABLED=true``.
"""

from __future__ import annotations

import httpx

from . import selfhosted_calls as calls
from .base import DEFAULT_TIMEOUT, AsyncClient, SyncClient, asynchronous, sync, wait_async, wait_sync
from .models import Event
from .transport import Retry


def _headers(api_key: str | None, access_token: str | None) -> dict[str, str]:
    if api_key and access_token:
        raise ValueError("give api_key or access_token, not both")
    if access_token:
        return {"Authorization": f"Bearer {access_token}"}
    return {"X-API-Key": api_key} if api_key else {}


class MemoristClient(SyncClient):
    """The self-hosted API, synchronously. ``MemoristClient("http://localhost:8000", api_key="svcsk_...")``."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        api_key: str | None = None,
        access_token: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        headers = _headers(api_key, access_token)
        super().__init__(base_url, headers, timeout=timeout, retry=retry, transport=transport, http_client=http_client)

    add = sync(calls.add)
    search = sync(calls.search)
    get_all = sync(calls.get_all)
    get = sync(calls.get)
    update = sync(calls.update)
    delete = sync(calls.delete)
    delete_all = sync(calls.delete_all)
    history = sync(calls.history)
    entities = sync(calls.entities)
    delete_entity = sync(calls.delete_entity)
    event = sync(calls.event)
    health = sync(calls.health)

    def wait(self, event_id: str, timeout: float = 120.0, poll: float = 0.25) -> Event:
        """Poll a queued add until it SUCCEEDED or FAILED (``EventTimeout`` after ``timeout`` s)."""
        return wait_sync(self.event, event_id, timeout, poll)


class AsyncMemoristClient(AsyncClient):
    """The self-hosted API under asyncio; the same methods as :class:`MemoristClient`, awaited."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        api_key: str | None = None,
        access_token: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        headers = _headers(api_key, access_token)
        super().__init__(base_url, headers, timeout=timeout, retry=retry, transport=transport, http_client=http_client)

    add = asynchronous(calls.add)
    search = asynchronous(calls.search)
    get_all = asynchronous(calls.get_all)
    get = asynchronous(calls.get)
    update = asynchronous(calls.update)
    delete = asynchronous(calls.delete)
    delete_all = asynchronous(calls.delete_all)
    history = asynchronous(calls.history)
    entities = asynchronous(calls.entities)
    delete_entity = asynchronous(calls.delete_entity)
    event = asynchronous(calls.event)
    health = asynchronous(calls.health)

    async def wait(self, event_id: str, timeout: float = 120.0, poll: float = 0.25) -> Event:
        return await wait_async(self.event, event_id, timeout, poll)
