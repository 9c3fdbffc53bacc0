"""Throttling of failed credential checks per client address.

A wrong API key, platform token or JWT costs the caller one counted attempt;
past ``failed_auth_attempts`` per window the address gets 429 before any key is
looked up. The counters live in the database (shared by every node and worker);
each process also remembers which addresses it saw blocked, so a blocked
caller's requests cost no database write at all until the window ends.
"""

from __future__ import annotations

import threading
import time

from .errors import RateLimited
from .rate_limit import RateLimiter

#: Addresses remembered as blocked per process, at most (oldest dropped first).
_MAX_BLOCKED = 10_000


class FailureThrottle:
    def __init__(self, limiter: RateLimiter, prefix: str = "authfail") -> None:
        self._limiter = limiter
        self._prefix = prefix
        self._blocked: dict[str, float] = {}
        self._lock = threading.Lock()

    def check(self, address: str) -> None:
        """429 when ``address`` is known to be over its budget in this process."""
        with self._lock:
            until = self._blocked.get(address)
            if until is None:
                return
            if until <= time.monotonic():
                del self._blocked[address]
                return
        retry = max(1, int(until - time.monotonic()) + 1)
        raise RateLimited(f"too many failed authentication attempts; retry in {retry} s", retry_after=retry)

    def failed(self, address: str) -> None:
        """Count one failure; raises :class:`RateLimited` (and remembers it) past the budget."""
        try:
            self._limiter.hit(f"{self._prefix}:{address}")
        except RateLimited as exc:
            with self._lock:
                if len(self._blocked) >= _MAX_BLOCKED:
                    self._blocked.pop(next(iter(self._blocked)))
                self._blocked[address] = time.monotonic() + exc.retry_after
            raise RateLimited(
                f"too many failed authentication attempts; retry in {exc.retry_after} s", exc.retry_after
            ) from None
