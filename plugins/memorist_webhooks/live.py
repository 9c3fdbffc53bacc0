"""This process's webhook binding: the database, the delivery queue and thread, and enqueuing.

Kept out of the package's ``__init__`` so that loading the plugin (every command
does) imports no database code; the hooks import this module when they first run.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from memorist.db import Database
from memorist.outbound import OutboundGuard
from memorist.records import MemoryRecord

from .config import DeliveryPolicy, env_allow
from .deliveries import DeliveryQueue
from .dispatcher import Dispatcher
from .store import WebhookStore

log = logging.getLogger("memorist.webhooks")


@dataclass
class Binding:
    db: Database
    store: WebhookStore
    queue: DeliveryQueue
    dispatcher: Dispatcher


_binding: Binding | None = None
_lock = threading.Lock()
_warned = False


def bind(db: Database, policy: DeliveryPolicy | None = None) -> Binding:
    """Use ``db`` in this process (idempotent for the same database URL) and start delivering."""
    global _binding
    with _lock:
        if _binding is None or _binding.db.url != db.url:
            if _binding is not None:
                _binding.dispatcher.stop()
            store = WebhookStore(db)
            queue = DeliveryQueue(db, policy or DeliveryPolicy.from_env())
            _binding = Binding(db, store, queue, Dispatcher(queue, store, OutboundGuard(env_allow())))
        binding_ = _binding
    binding_.dispatcher.ensure_started()
    return binding_


def binding() -> Binding | None:
    """This process's binding, or None before ``configure_app``/``bind`` ran."""
    return _binding


def _enqueue(event_type: str, memory: MemoryRecord, previous: MemoryRecord | None = None) -> None:
    global _warned
    current = _binding
    if current is None:
        if not _warned:
            _warned = True
            log.warning(
                "webhooks: this process did not build the HTTP app and bound no database "
                "(memorist_webhooks.bind); its memory events are not sent to webhooks"
            )
        return
    hooks = current.store.subscribed(memory.project_id, event_type)
    if hooks and current.queue.enqueue(hooks, event_type, memory, previous):
        current.dispatcher.ensure_started()
        current.dispatcher.wake()
