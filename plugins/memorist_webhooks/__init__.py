"""Built-in plugin: project webhooks, signed and delivered durably.

Routes (added through ``context.add_route`` so they are in /openapi.json):
``GET/POST /api/v1/webhooks/projects/{project_id}/`` and
``PUT/DELETE /api/v1/webhooks/{webhook_id}/``. The ``memory_added``,
``memory_updated`` and ``memory_deleted`` hooks write one delivery row per
subscribed active webhook of the memory's project; delivery threads send them
(see :mod:`.dispatcher` for the retry policy, :mod:`.signing` for the
signature a receiver checks).

The plugin owns its tables (:mod:`.tables`, created by its own migrations in
``migrations/``) and its settings section (``webhooks``, :mod:`.config`). Its
state lives on the hook ``context`` (``context.state["webhooks"]``): every
process that opens the database (a server, ``memorist worker``, the Python API)
gets it from ``database_ready``, and the memory hooks find it there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memorist.plugin_api import Database, MemoryRecord, OutboundGuard, PluginContext, Tenancy, hookimpl
from pydantic import BaseModel

from .config import DeliveryPolicy, WebhooksSettings
from .deliveries import DeliveryQueue
from .dispatcher import Dispatcher
from .signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign, verify
from .store import MEMORY_ADD, MEMORY_CATEGORIZE, MEMORY_DELETE, MEMORY_UPDATE, WebhookStore

if TYPE_CHECKING:
    import falcon

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "Binding", "bind", "binding", "sign", "verify"]

log = logging.getLogger("memorist.webhooks")
NAME = "webhooks"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"


@dataclass
class Binding:
    db: Database
    store: WebhookStore
    queue: DeliveryQueue
    dispatcher: Dispatcher


def bind(db: Database, policy: DeliveryPolicy | None = None, guard: OutboundGuard | None = None) -> Binding:
    """Webhook storage and delivery threads over ``db`` (started).

    ``guard`` decides which receivers deliveries may reach (the deployment's
    ``security.outbound_allow``; without it, no internal address at all).
    """
    store = WebhookStore(db)
    queue = DeliveryQueue(db, policy or DeliveryPolicy.from_settings())
    found = Binding(db, store, queue, Dispatcher(queue, store, guard or OutboundGuard()))
    found.dispatcher.ensure_started()
    return found


def binding(context: PluginContext | None) -> Binding | None:
    """The binding of a running system, or None (no context, or the database is not open yet)."""
    if context is None:
        return None
    found = context.state.get(NAME)
    return found if isinstance(found, Binding) else None


def _enqueue(context: PluginContext | None, event_type: str, memory: MemoryRecord, prev: MemoryRecord | None) -> None:
    current = binding(context)
    if current is None:
        log.debug("webhooks: no database bound for this engine; %s not sent", event_type)
        return
    hooks = current.store.subscribed(memory.project_id, event_type)
    if hooks and current.queue.enqueue(hooks, event_type, memory, prev):
        current.dispatcher.ensure_started()
        current.dispatcher.wake()


@hookimpl
def register_settings(register: Callable[[str, type[BaseModel]], None]) -> None:
    register(NAME, WebhooksSettings)


@hookimpl
def register_migrations(register: Callable[[str, Path], None]) -> None:
    register(NAME, MIGRATIONS)


@hookimpl
def database_ready(context: PluginContext) -> None:
    section = context.plugin_settings.get(NAME)
    policy = DeliveryPolicy.from_settings(section if isinstance(section, WebhooksSettings) else None)
    current = bind(context.db, policy, _guard(context))
    context.state[NAME] = current
    context.closers.append(current.dispatcher.stop)


@hookimpl
def configure_app(app: falcon.App[falcon.Request, falcon.Response], context: PluginContext) -> None:
    from .routes import OneWebhook, ProjectWebhooks  # the web layer only where HTTP is served

    current = binding(context)
    if current is None:  # an app built over a context that skipped database_ready
        current = context.state[NAME] = bind(context.db, guard=_guard(context))
        context.closers.append(current.dispatcher.stop)
    tenancy = Tenancy(context.db)
    limits = context.settings.limits
    guard = current.dispatcher.guard
    context.add_route(
        "/api/v1/webhooks/projects/{project_id}/", ProjectWebhooks(current.store, tenancy, limits, guard)
    )
    context.add_route("/api/v1/webhooks/{webhook_id}/", OneWebhook(current.store, tenancy, limits, guard))


def _guard(context: PluginContext) -> OutboundGuard:
    """The deployment's outbound policy: which internal hosts deliveries may reach (``security.outbound_allow``)."""
    return OutboundGuard(context.settings.security.outbound_allow)


@hookimpl
def memory_added(memory: MemoryRecord, context: PluginContext | None) -> None:
    _enqueue(context, MEMORY_ADD, memory, None)
    if memory.categories:
        _enqueue(context, MEMORY_CATEGORIZE, memory, None)


@hookimpl
def memory_updated(memory: MemoryRecord, previous: MemoryRecord, context: PluginContext | None) -> None:
    _enqueue(context, MEMORY_UPDATE, memory, previous)


@hookimpl
def memory_deleted(memory: MemoryRecord, context: PluginContext | None) -> None:
    _enqueue(context, MEMORY_DELETE, memory, None)
