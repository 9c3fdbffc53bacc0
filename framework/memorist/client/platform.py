"""The platform API (organizations and projects; ``Authorization: Token m0-...``): :class:`PlatformClient`
and :class:`AsyncPlatformClient`.

A key reaches every project its user is a member of; ``project_id`` (and ``org_id``)
send each call to one of them instead of the key's home project, as the published
platform clients do.
"""

from __future__ import annotations

import httpx

from . import platform_calls as calls
from .base import DEFAULT_TIMEOUT, AsyncClient, SyncClient, asynchronous, sync, wait_async, wait_sync
from .models import Event
from .transport import Retry


def _project(org_id: str | None, project_id: str | None) -> dict[str, str]:
    return {k: v for k, v in dict(org_id=org_id, project_id=project_id).items() if v}


class PlatformClient(SyncClient):
    """The platform API, synchronously. ``PlatformClient("https://memory.example", api_key="m0-...")``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str,
        org_id: str | None = None,
        project_id: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        headers = {"Authorization": f"Token {api_key}"}
        super().__init__(base_url, headers, timeout=timeout, retry=retry, transport=transport, http_client=http_client)
        self.http.params = self.http.params.merge(_project(org_id, project_id))

    ping = sync(calls.ping)
    add = sync(calls.add)
    search = sync(calls.search)
    get_all = sync(calls.get_all)
    get = sync(calls.get)
    update = sync(calls.update)
    delete = sync(calls.delete)
    delete_all = sync(calls.delete_all)
    history = sync(calls.history)
    event = sync(calls.event)

    def wait(self, event_id: str, timeout: float = 120.0, poll: float = 0.25) -> Event:
        """Poll a queued add until it SUCCEEDED or FAILED (``EventTimeout`` after ``timeout`` s)."""
        return wait_sync(self.event, event_id, timeout, poll)


class AsyncPlatformClient(AsyncClient):
    """The platform API under asyncio; the same methods as :class:`PlatformClient`, awaited."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str,
        org_id: str | None = None,
        project_id: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        headers = {"Authorization": f"Token {api_key}"}
        super().__init__(base_url, headers, timeout=timeout, retry=retry, transport=transport, http_client=http_client)
        self.http.params = self.http.params.merge(_project(org_id, project_id))

    ping = asynchronous(calls.ping)
    add = asynchronous(calls.add)
    search = asynchronous(calls.search)
    get_all = asynchronous(calls.get_all)
    get = asynchronous(calls.get)
    update = asynchronous(calls.update)
    delete = asynchronous(calls.delete)
    delete_all = asynchronous(calls.delete_all)
    history = asynchronous(calls.history)
    event = asynchronous(calls.event)

    async def wait(self, event_id: str, timeout: float = 120.0, poll: float = 0.25) -> Event:
        return await wait_async(self.event, event_id, timeout, poll)
