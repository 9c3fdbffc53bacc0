"""Throttling of failed credential checks per client address.

A wrong API key, platform token or JWT costs the caller one counted attempt;
past ``failed_auth_attempts`` per window the address's *failures* answer 429
instead of 401. The credential is always checked first: a valid key, token or
session is served whatever its address's count, so one client's wrong guesses
(or a proxy that makes every client one address) never lock anyone else out.
What keeps guessing useless is the credentials' entropy (random keys, signed
tokens; a short admin key is warned about at start), not this counter; the
counter bounds what a flood of wrong credentials costs the database.

The counters live in the database (shared by every node and worker); each
process also remembers which addresses it saw over budget, so their further
failures cost no database write until the window ends.
"""

from __future__ import annotations

import threading
import time

from .errors import RateLimited
from .rate_limit import RateLimiter

#: Addresses remembered as over budget per process, at most (oldest dropped first).
_MAX_BLOCKED = 10_000


def _refused(retry: int) -> RateLimited:
    return RateLimited(f"too many failed authentication attempts; retry in {retry} s", retry_after=retry)


class FailureThrottle:
    def __init__(self, limiter: RateLimiter, prefix: str = "authfail") -> None:
        self._limiter = limiter
        self._prefix = prefix
        self._blocked: dict[str, float] = {}
        self._lock = threading.Lock()

    def _known_blocked(self, address: str) -> int | None:
        """Seconds left when this process already saw ``address`` over budget."""
        with self._lock:
            until = self._blocked.get(address)
            if until is None:
                return None
            if until <= time.monotonic():
                del self._blocked[address]
                return None
        return max(1, int(until - time.monotonic()) + 1)

    def failed(self, address: str) -> None:
        """Count one failed check from ``address``; raises :class:`RateLimited` past the budget.

        Call it only after the credential was checked and found wrong: a valid one never gets here.
        """
        retry = self._known_blocked(address)
        if retry is not None:
            raise _refused(retry)
        try:
            self._limiter.hit(f"{self._prefix}:{address}")
        except RateLimited as exc:
            with self._lock:
                if len(self._blocked) >= _MAX_BLOCKED:
                    self._blocked.pop(next(iter(self._blocked)))
                self._blocked[address] = time.monotonic() + exc.retry_after
            raise _refused(exc.retry_after) from None
