"""Workers of the durable add queue: threads in each server process, or ``memorist worker``.

The worker claims events and hands each to the operations layer
(:func:`memorist.operations.run_add_event`), which makes processing idempotent
(see :mod:`memorist.operations.queued`). It never imports the HTTP layer. An add
whose entity's memories are deleted while it runs is stopped by the same module:
it writes nothing, or removes what it wrote, and ends FAILED as cancelled.

While an event is processed, a heartbeat renews its lease every third of the
lease, so a long add (a large input, a slow language model) is not taken over
and re-run by another worker while this one is still on it. The heartbeat
gives up after ``max_run_seconds``: a worker stuck for good then loses the
lease like a dead one, and ``max_attempts`` (enforced at claim) bounds the
retries. An idle worker also deletes finished events past
``queue.retention_days`` (each holds a copy of its add's messages).
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from datetime import timedelta

from ..engine.memory import MemoryEngine
from ..errors import MemoristError
from ..observability import metrics
from ..observability.stages import stage
from ..operations.queued import LeaseLost, run_add_event
from ..queue.events import Event, EventStore

__all__ = ["AddWorker", "LeaseLost"]

log = logging.getLogger("memorist.worker")
#: Finished events past ``queue.retention_days`` are deleted by an idle worker at most this often.
PRUNE_EVERY_SECONDS = 3600.0


class Heartbeat:
    """Renews one event's lease in the background until stopped, lost, or past ``max_run_seconds``."""

    def __init__(self, events: EventStore, event: Event, owner: str, max_run_seconds: float) -> None:
        self._events, self._event, self._owner = events, event, owner
        self._interval = max(events.lease_seconds / 3.0, 0.05)
        self._deadline = time.monotonic() + max_run_seconds
        self._stop = threading.Event()
        self.lost = False
        self._thread = threading.Thread(target=self._run, name=f"memorist-lease-{event.id[:8]}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(self._interval + 5.0)

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            if time.monotonic() > self._deadline:
                log.warning("event %s: still running after its time budget; no longer renewing", self._event.id)
                return
            try:
                if not self._events.renew(self._event, self._owner):
                    self.lost = True
                    return
            except Exception as exc:  # the database may be briefly away; the next beat retries
                log.warning("event %s: lease renewal failed (%s)", self._event.id, _describe(exc))


class AddWorker:
    def __init__(
        self,
        memory: Callable[[], MemoryEngine],
        events: EventStore,
        *,
        threads: int,
        poll_seconds: float,
        max_run_seconds: float = 900.0,
        retention_days: float | None = None,
        memory_for: Callable[[str, str], MemoryEngine] | None = None,
    ) -> None:
        self._memory = memory
        #: The engine of the vector space an event's project lives in (``memorist.spaces``).
        self._memory_for = memory_for
        self._events = events
        self._threads = threads
        self._poll = poll_seconds
        self._max_run = max_run_seconds
        self._retention = timedelta(days=retention_days) if retention_days else None
        self._last_prune = time.monotonic()
        self._stop = threading.Event()
        self._workers: list[threading.Thread] = []
        self.owner_prefix = f"{socket.gethostname()}:{os.getpid()}"

    def start(self) -> None:
        for index in range(self._threads):
            thread = threading.Thread(
                target=self._loop, args=(f"{self.owner_prefix}:{index}",), name=f"memorist-worker-{index}", daemon=True
            )
            thread.start()
            self._workers.append(thread)

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        for thread in self._workers:
            thread.join(timeout)

    def wait(self) -> None:
        """Block until stopped (``memorist worker``)."""
        while not self._stop.wait(1.0):
            pass

    def _loop(self, owner: str) -> None:
        while not self._stop.is_set():
            try:
                worked = self.run_once(owner)
            except Exception as exc:  # the database may be briefly away: keep going, quietly
                log.warning("worker %s: claiming failed (%s); retrying", owner, _describe(exc))
                worked = False
            if not worked:
                self._prune_if_due(owner)
                self._stop.wait(self._poll)

    def _prune_if_due(self, owner: str) -> None:
        """When idle, delete old finished events (each holds a copy of its add's messages), hourly at most."""
        if self._retention is None or time.monotonic() - self._last_prune < PRUNE_EVERY_SECONDS:
            return
        self._last_prune = time.monotonic()
        try:
            pruned = self._events.prune(self._retention)
            if pruned:
                log.info("worker %s: deleted %d finished events past their retention", owner, pruned)
        except Exception as exc:
            log.warning("worker %s: pruning old events failed (%s)", owner, _describe(exc))

    def run_once(self, owner: str | None = None) -> bool:
        """Claim and process one event; False when the queue had nothing claimable."""
        owner = owner or f"{self.owner_prefix}:{uuid.uuid4().hex[:8]}"
        event = self._events.claim(owner)
        if event is None:
            return False
        try:
            with Heartbeat(self._events, event, owner, self._max_run), stage("add", "queued", event_id=event.id):
                self.process(event, owner)
            metrics.queue_finished("SUCCEEDED")
        except LeaseLost:
            log.warning("event %s: lease lost to another worker", event.id)
            metrics.queue_finished("LEASE_LOST")
        except Exception as exc:
            # The tenant polls the event and sees a sanitized error; the operator's log has the whole one.
            status = self._events.fail(event, owner, public_error(exc, event.id))
            log.warning("event %s attempt %d failed (%s): %s", event.id, event.attempts, status, _describe(exc))
            metrics.queue_finished("FAILED" if status == "FAILED" else "RETRY")
        return True

    def process(self, event: Event, owner: str) -> None:
        engine = self._memory_for(event.org_id, event.project_id) if self._memory_for else self._memory()
        run_add_event(engine, self._events, event, owner)


#: A file-system path of two or more components (``/root/.cargo/...``, ``C:\\data\\x``): never shown to tenants.
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][^\s\\/\"'`,;:()\[\]]+){2,}[\\/]?")


def public_error(exc: BaseException, event_id: str) -> str:
    """What a tenant may see of a failed attempt: our own messages, without paths; else a reference.

    Errors raised on purpose (:class:`MemoristError`: bad input, a provider that
    refused) carry messages written for the caller; anything else (a storage
    engine's ``LanceError(IO)`` with file paths, a driver's traceback text) is an
    internal detail and is replaced by the event id to quote to the operator.
    """
    if isinstance(exc, MemoristError):
        return f"{type(exc).__name__}: {_PATH.sub('<path>', exc.message)}"
    return f"internal error while processing the event (reference: event {event_id}; details are in the server log)"


def _describe(exc: BaseException) -> str:
    if isinstance(exc, MemoristError):
        return f"{type(exc).__name__}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"
