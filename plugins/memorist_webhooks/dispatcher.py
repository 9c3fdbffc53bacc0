"""Delivery threads: claim due deliveries, POST them signed, record the outcome.

Threads start lazily in each process that has the database (when the app is
built, which gunicorn does after fork, so no thread ever crosses a fork) and
are restarted if a fork left a copy of this module without its threads.
A new delivery wakes this process's threads at once; deliveries written by
other processes (and retries coming due) are found by polling. Finished
deliveries are kept ``retention_days`` for inspection, then purged.

Retry policy: any answer outside 2xx (redirects are not followed) and any
connection error or timeout is a failed attempt; the next one waits
``backoff_seconds * 2**(attempts-1)`` (capped), until ``max_attempts``
attempts, after which the delivery is ``FAILED`` with the last error. A
webhook that was disabled or deleted meanwhile fails its delivery at once.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import threading
import time

from memorist.plugin_api import OutboundGuard, OutboundRefused, __version__, pinned_connection

from .deliveries import Delivery, DeliveryQueue
from .signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign
from .store import WebhookStore

log = logging.getLogger("memorist.webhooks")
USER_AGENT = f"Memorist-Webhooks/{__version__}"
PURGE_EVERY_SECONDS = 3600.0


class SendError(Exception):
    """One attempt failed: a non-2xx answer or a transport error (the text is stored as last_error)."""


def encode(payload: dict[str, object]) -> bytes:
    """The exact bytes sent and signed (compact, keys sorted: the same on every retry)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def post(url: str, body: bytes, headers: dict[str, str], timeout: float, guard: OutboundGuard | None = None) -> int:
    """POST ``body``; the status code, or :class:`SendError`. Redirects are not followed.

    The host is resolved and checked by ``guard`` (:class:`OutboundRefused` if internal)
    and the connection goes to the checked address.
    """
    target = (guard or OutboundGuard()).check(url)
    connection = pinned_connection(target, timeout)
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(64 * 1024)  # drain a little so the connection closes cleanly
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        raise SendError(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__) from None
    finally:
        connection.close()
    if not 200 <= status < 300:
        raise SendError(f"HTTP {status} from the receiver")
    return status


class Dispatcher:
    def __init__(self, queue: DeliveryQueue, store: WebhookStore, guard: OutboundGuard | None = None) -> None:
        self._queue = queue
        self._store = store
        #: Where deliveries may go; the app replaces it with one built from its settings.
        self.guard = guard or OutboundGuard()
        self._policy = queue.policy
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._pid: int | None = None
        self._lock = threading.Lock()
        self._next_purge = 0.0

    def ensure_started(self) -> None:
        """Start the threads if this process has none running (first use, or after a fork)."""
        if self._pid == os.getpid() and all(t.is_alive() for t in self._threads):
            return
        with self._lock:
            if self._pid == os.getpid() and all(t.is_alive() for t in self._threads):
                return
            self._stop = threading.Event()
            self._wake = threading.Event()
            self._threads = [
                threading.Thread(target=self._loop, name=f"memorist-webhooks-{i}", daemon=True)
                for i in range(self._policy.threads)
            ]
            self._pid = os.getpid()
            for thread in self._threads:
                thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self._maybe_purge()
                worked = self.run_once()
            except Exception:  # the database may be briefly away: keep going
                log.exception("webhook delivery: claiming failed")
                worked = False
            if not worked:
                self._wake.wait(self._policy.poll_seconds)
                self._wake.clear()

    def _maybe_purge(self) -> None:
        with self._lock:
            if time.monotonic() < self._next_purge:
                return
            self._next_purge = time.monotonic() + PURGE_EVERY_SECONDS
        if purged := self._queue.purge():
            log.info("webhook delivery: purged %d finished deliveries", purged)

    def run_once(self) -> bool:
        """Claim and send one due delivery; False when nothing was due."""
        delivery = self._queue.claim()
        if delivery is None:
            return False
        self.send(delivery)
        return True

    def send(self, delivery: Delivery) -> None:
        hook = self._store.get(delivery.webhook_id)
        if hook is None or not hook.is_active:
            self._queue.fail(delivery, "webhook deleted" if hook is None else "webhook is inactive", final=True)
            return
        body = encode(delivery.payload)
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            TIMESTAMP_HEADER: timestamp,
            SIGNATURE_HEADER: sign(hook.secret, timestamp, body),
            "X-Memorist-Event": str(delivery.payload.get("event_type", "")),
            "X-Memorist-Delivery": delivery.id,
            "X-Memorist-Attempt": str(delivery.attempts),
        }
        try:
            post(hook.url, body, headers, self._policy.timeout_seconds, self.guard)
        except OutboundRefused as exc:
            self._queue.fail(delivery, f"refused: {exc.message}", final=True)
            log.warning("webhook %s delivery %s refused: %s", hook.id, delivery.id, exc.message)
            return
        except SendError as exc:
            status = self._queue.fail(delivery, str(exc))
            log.warning(
                "webhook %s delivery %s attempt %d failed (%s): %s",
                hook.id,
                delivery.id,
                delivery.attempts,
                status,
                exc,
            )
            return
        if not self._queue.succeed(delivery):
            log.warning("webhook delivery %s: sent, but its lease had expired meanwhile", delivery.id)
