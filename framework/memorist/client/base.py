"""The sync and async client shells: an httpx client, credentials, timeouts, retries.

The API calls themselves are described once, as functions returning a
:class:`~.transport.Call` (:mod:`.selfhosted`, :mod:`.platform`); :func:`sync` and
:func:`asynchronous` turn one such function into a method of the sync or the async
client with the same typed signature, so the two clients cannot drift apart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Concatenate, ParamSpec, TypeVar

import httpx

from .errors import APIError
from .models import Event
from .transport import Call, Retry, send, send_async

P = ParamSpec("P")
T = TypeVar("T")

#: Connect quickly, but give an add with a remote language model time to answer.
DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=5.0)


def _user_agent() -> str:
    release = installed_version()
    return f"memorist-client/{release}"


class SyncClient:
    """The sync shell: ``with Client(...) as c`` closes its connection pool at the end."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.retry = retry or Retry()
        self._owned = http_client is None
        self.http = http_client or httpx.Client(
            base_url=base_url.rstrip("/"), timeout=timeout, transport=transport, follow_redirects=False
        )
        self.http.headers.update({"User-Agent": _user_agent(), **headers})

    def _run(self, call: Call[T]) -> T:
        return send(self.http, call, self.retry)

    def close(self) -> None:
        if self._owned:
            self.http.close()

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient:
    """The asyncio shell: ``async with AsyncClient(...) as c``."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.retry = retry or Retry()
        self._owned = http_client is None
        self.http = http_client or httpx.AsyncClient(
            base_url=base_url.rstrip("/"), timeout=timeout, transport=transport, follow_redirects=False
        )
        self.http.headers.update({"User-Agent": _user_agent(), **headers})

    async def _run(self, call: Call[T]) -> T:
        return await send_async(self.http, call, self.retry)

    async def aclose(self) -> None:
        if self._owned:
            await self.http.aclose()

    async def __aenter__(self: T) -> T:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()  # type: ignore[attr-defined]


def sync(builder: Callable[P, Call[T]]) -> Callable[Concatenate[SyncClient, P], T]:
    """A sync client method that sends the call ``builder`` describes."""

    def method(self: SyncClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(builder(*args, **kwargs))

    method.__name__, method.__doc__ = builder.__name__, builder.__doc__
    return method


def asynchronous(builder: Callable[P, Call[T]]) -> Callable[Concatenate[AsyncClient, P], Awaitable[T]]:
    """An async client method that sends the call ``builder`` describes."""

    async def method(self: AsyncClient, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(builder(*args, **kwargs))

    method.__name__, method.__doc__ = builder.__name__, builder.__doc__
    return method


class EventTimeout(APIError):
    """:meth:`wait` gave up: the queued add had not finished within the time given."""


def wait_sync(get: Callable[[str], Event], event_id: str, timeout: float, poll: float) -> Event:
    deadline = time.monotonic() + timeout
    while True:
        event = get(event_id)
        if event.finished:
            return event
        if time.monotonic() >= deadline:
            raise EventTimeout(f"event {event_id} still {event.status} after {timeout:g} s", body=event.model_dump())
        time.sleep(min(poll, max(0.0, deadline - time.monotonic())))


async def wait_async(get: Callable[[str], Awaitable[Event]], event_id: str, timeout: float, poll: float) -> Event:
    deadline = time.monotonic() + timeout
    while True:
        event = await get(event_id)
        if event.finished:
            return event
        if time.monotonic() >= deadline:
            raise EventTimeout(f"event {event_id} still {event.status} after {timeout:g} s", body=event.model_dump())
        await asyncio.sleep(min(poll, max(0.0, deadline - time.monotonic())))


def messages_of(messages: str | Mapping[str, Any] | list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A string is one user message; a mapping one message; a list is sent as is."""
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if isinstance(messages, Mapping):
        return [dict(messages)]
    return [dict(m) for m in messages]


def installed_version() -> str:
    """Memorist's version (read here, not from ``memorist.__version__``: importing the package
    root from this module would tie it into the root's lazy imports)."""
    try:
        return version("memorist")
    except PackageNotFoundError:  # a source tree that is not installed
        return "0.0.0"
