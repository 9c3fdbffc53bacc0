"""Built-in plugin: project webhooks, signed and delivered durably.

Routes (added through ``services.add_route`` so they are in /openapi.json):
``GET/POST /api/v1/webhooks/projects/{project_id}/`` and
``PUT/DELETE /api/v1/webhooks/{webhook_id}/``. The ``memory_added``,
``memory_updated`` and ``memory_deleted`` hooks write one delivery row per
subscribed active webhook of the memory's project; delivery threads send them
(see :mod:`.dispatcher` for the retry policy, :mod:`.signing` for the
signature a receiver checks).

Why module-level state: the memory hooks receive only the ``MemoryRecord``,
not the engine or the database, and pluggy calls this module, not an
instance. The one place the database is handed to plugins is
``configure_app(app, services)``, which runs once per app in every process
that serves HTTP (after gunicorn's fork), so that hook keeps
``services.db`` here for the memory hooks and the delivery threads. A
process that never builds the app (``memorist worker``, an embedded
``Memory``) has no binding unless it calls :func:`bind`; its hooks then log
and skip, rather than guess a database.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memorist.db import Database
from memorist.hookspecs import hookimpl
from memorist.outbound import OutboundGuard
from memorist.records import MemoryRecord
from memorist.tenancy import Tenancy

from .config import DeliveryPolicy, env_allow
from .deliveries import DeliveryQueue
from .dispatcher import Dispatcher
from .routes import OneWebhook, ProjectWebhooks
from .signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign, verify
from .store import MEMORY_ADD, MEMORY_CATEGORIZE, MEMORY_DELETE, MEMORY_UPDATE, WebhookStore

if TYPE_CHECKING:
    import falcon
    from memorist.context import PluginContext as AppServices

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "bind", "binding", "sign", "verify"]

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


@hookimpl
def database_ready(db: Database) -> None:
    bind(db)


@hookimpl
def configure_app(app: falcon.App, services: AppServices) -> None:
    current = bind(services.db)
    # The app's settings (file + environment) decide which internal hosts deliveries may reach.
    current.dispatcher.guard = OutboundGuard(services.settings.security.outbound_allow)
    tenancy = Tenancy(services.db)
    limits = services.settings.limits
    guard = current.dispatcher.guard
    services.add_route(
        "/api/v1/webhooks/projects/{project_id}/", ProjectWebhooks(current.store, tenancy, limits, guard)
    )
    services.add_route("/api/v1/webhooks/{webhook_id}/", OneWebhook(current.store, tenancy, limits, guard))


@hookimpl
def memory_added(memory: MemoryRecord) -> None:
    _enqueue(MEMORY_ADD, memory)
    if memory.categories:
        _enqueue(MEMORY_CATEGORIZE, memory)


@hookimpl
def memory_updated(memory: MemoryRecord, previous: MemoryRecord) -> None:
    _enqueue(MEMORY_UPDATE, memory, previous)


@hookimpl
def memory_deleted(memory: MemoryRecord) -> None:
    _enqueue(MEMORY_DELETE, memory)
