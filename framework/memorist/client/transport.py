"""Sending one call with timeouts and retries, for the sync and the async client alike.

A call is described once (:class:`Call`: method, path, body, whether repeating it is
harmless, how to read the answer); :func:`send` and :func:`send_async` run it. What
is retried, and why:

* a request that is safe to repeat (GET, PUT, DELETE, and the read-only POSTs like
  search: ``idempotent=True``) after a connection failure, a timeout, or a 429, 502,
  503 or 504;
* any request -- an add too -- after a 429 or 503 that carries ``Retry-After``: the
  server refused it before doing anything (a full queue, a rate limit) and said when to
  come back; and after a failure to *connect* (nothing was sent).

An add that timed out while being processed is not repeated: it may have been stored,
and a second one would store it twice. The wait is the server's ``Retry-After`` when it
gives one (a longer one than ``Retry.max_wait`` is raised at once, not slept through),
else exponential backoff with jitter.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx

from .errors import APIError, TransportError, error_for

T = TypeVar("T")

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


@dataclass(frozen=True)
class Retry:
    """How often and how long to retry (see the module doc for *what* is retried)."""

    #: Tries in all, the first included (1: never retry).
    attempts: int = 3
    #: The first backoff wait in seconds, doubled each time, with jitter (without ``Retry-After``).
    backoff: float = 0.5
    #: The longest wait the client sleeps through; a server asking for more gets its error raised.
    max_wait: float = 30.0
    statuses: frozenset[int] = field(default_factory=lambda: frozenset({429, 502, 503, 504}))


NO_RETRY = Retry(attempts=1)


@dataclass(frozen=True)
class Call(Generic[T]):
    """One API call: what to send and how to read a successful answer."""

    method: str
    path: str
    parse: Callable[[Any], T]
    params: dict[str, Any] | None = None
    json: Any = None
    #: Safe to send twice (a read, a PUT, a DELETE); None: decided by the method.
    idempotent: bool | None = None

    @property
    def repeatable(self) -> bool:
        return self.idempotent if self.idempotent is not None else self.method in IDEMPOTENT_METHODS

    def request(self, client: httpx.Client | httpx.AsyncClient) -> httpx.Request:
        params = {k: v for k, v in (self.params or {}).items() if v is not None}
        return client.build_request(self.method, self.path, params=params or None, json=self.json)


def _answer(call: Call[T], response: httpx.Response) -> T:
    if response.status_code < 400:
        data = response.json() if response.content else None
        return call.parse(data)
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    raise error_for(response.status_code, body, response.headers)


def _wait(call: Call[Any], retry: Retry, attempt: int, error: APIError) -> float | None:
    """Seconds to wait before trying ``call`` again after ``error``, or None to raise it."""
    if attempt + 1 >= retry.attempts:
        return None
    if isinstance(error, TransportError):
        if not (call.repeatable or getattr(error, "nothing_sent", False)):
            return None
    elif error.status not in retry.statuses:
        return None
    elif not call.repeatable and not (error.status in (429, 503) and error.retry_after is not None):
        return None
    if error.retry_after is not None:
        return error.retry_after if error.retry_after <= retry.max_wait else None
    return min(retry.max_wait, retry.backoff * 2**attempt * random.uniform(0.5, 1.0))


def _transport_error(exc: httpx.TransportError) -> TransportError:
    error = TransportError(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    #: A connection never made: nothing reached the server, so even an add may be sent again.
    error.nothing_sent = isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)  # type: ignore[attr-defined]
    return error


def send(client: httpx.Client, call: Call[T], retry: Retry, sleep: Callable[[float], None] = time.sleep) -> T:
    attempt = 0
    while True:
        try:
            return _answer(call, client.send(call.request(client)))
        except httpx.TransportError as exc:
            error: APIError = _transport_error(exc)
            cause: BaseException = exc
        except APIError as exc:
            error, cause = exc, exc
        wait = _wait(call, retry, attempt, error)
        if wait is None:
            if error is cause:
                raise error
            raise error from cause
        sleep(wait)
        attempt += 1


async def send_async(client: httpx.AsyncClient, call: Call[T], retry: Retry) -> T:
    attempt = 0
    while True:
        try:
            return _answer(call, await client.send(call.request(client)))
        except httpx.TransportError as exc:
            error: APIError = _transport_error(exc)
            cause: BaseException = exc
        except APIError as exc:
            error, cause = exc, exc
        wait = _wait(call, retry, attempt, error)
        if wait is None:
            if error is cause:
                raise error
            raise error from cause
        await asyncio.sleep(wait)
        attempt += 1
