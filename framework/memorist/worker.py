"""Workers of the durable add queue: threads in each server process, or ``memorist worker``.

The worker claims events and hands each to the operations layer
(:func:`memorist.operations.run_add_event`), which makes processing idempotent
(see :mod:`memorist.operations.queued`). It never imports the HTTP layer.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import uuid
from collections.abc import Callable

from .engine.memory import Memory
from .errors import MemoristError
from .events import Event, EventStore
from .operations.queued import LeaseLost, run_add_event

__all__ = ["AddWorker", "LeaseLost"]

log = logging.getLogger("memorist.worker")


class AddWorker:
    def __init__(self, memory: Callable[[], Memory], events: EventStore, *, threads: int, poll_seconds: float) -> None:
        self._memory = memory
        self._events = events
        self._threads = threads
        self._poll = poll_seconds
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
                self._stop.wait(self._poll)

    def run_once(self, owner: str | None = None) -> bool:
        """Claim and process one event; False when the queue had nothing claimable."""
        owner = owner or f"{self.owner_prefix}:{uuid.uuid4().hex[:8]}"
        event = self._events.claim(owner)
        if event is None:
            return False
        try:
            self.process(event, owner)
        except LeaseLost:
            log.warning("event %s: lease lost to another worker", event.id)
        except Exception as exc:
            # The tenant polls the event and sees a sanitized error; the operator's log has the whole one.
            status = self._events.fail(event, owner, public_error(exc, event.id))
            log.warning("event %s attempt %d failed (%s): %s", event.id, event.attempts, status, _describe(exc))
        return True

    def process(self, event: Event, owner: str) -> None:
        run_add_event(self._memory(), self._events, event, owner)


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
