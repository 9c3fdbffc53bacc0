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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memorist.plugin_api import hookimpl
from pydantic import BaseModel

from .config import DeliveryPolicy, WebhooksSettings, env_allow
from .signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign, verify

if TYPE_CHECKING:
    # Imported where used: loading the plugin to read its hooks (``memorist --help``) then
    # imports neither the database layer nor the delivery machinery.
    import falcon
    from memorist.plugin_api import Database, MemoryRecord, OutboundGuard, PluginContext

    from .deliveries import DeliveryQueue
    from .dispatcher import Dispatcher
    from .store import WebhookStore

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "Binding", "bind", "binding", "sign", "verify"]

log = logging.getLogger("memorist.webhooks")
NAME = "webhooks"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The binding made last in this process (see :func:`binding`); the hooks never read it.
_latest: list[Binding] = []


@dataclass
class Binding:
    db: Database
    store: WebhookStore
    queue: DeliveryQueue
    dispatcher: Dispatcher


def bind(db: Database, policy: DeliveryPolicy | None = None, guard: OutboundGuard | None = None) -> Binding:
    """Webhook storage and delivery threads over ``db`` (started).

    ``guard`` decides which hosts deliveries may reach (the kernel's
    ``security.outbound_allow``; without it, ``MEMORIST_SECURITY__OUTBOUND_ALLOW``).
    """
    from memorist.plugin_api import OutboundGuard

    from .deliveries import DeliveryQueue
    from .dispatcher import Dispatcher
    from .store import WebhookStore

    store = WebhookStore(db)
    queue = DeliveryQueue(db, policy or DeliveryPolicy.from_settings())
    found = Binding(db, store, queue, Dispatcher(queue, store, guard or OutboundGuard(env_allow())))
    found.dispatcher.ensure_started()
    _latest[:] = [found]
    return found


def binding(context: PluginContext | None = None) -> Binding | None:
    """The binding of a running system (its ``context``), or None when its database is not open yet.

    Without a context: the binding made last in this process (a test, or an embedding
    application with one system); the memory hooks always pass their own context.
    """
    if context is None:
        return _latest[-1] if _latest else None
    found = context.state.get(NAME)
    return found if isinstance(found, Binding) else None


def _enqueue(
    context: PluginContext | None, event_types: Sequence[str], memory: MemoryRecord, prev: MemoryRecord | None
) -> None:
    """Queue ``memory``'s events for the project's webhooks that asked for them (one lookup
    of the project's webhooks for all of the events)."""
    current = binding(context)
    if current is None:
        log.debug("webhooks: no database bound for this engine; %s not sent", ", ".join(event_types))
        return
    active = current.store.active(memory.project_id)
    queued = False
    for event_type in event_types:
        hooks = [hook for hook in active if event_type in hook.event_types]
        queued = bool(hooks and current.queue.enqueue(hooks, event_type, memory, prev)) or queued
    if queued:
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
    from memorist.plugin_api import OutboundGuard

    section = context.plugin_settings.get(NAME)
    policy = DeliveryPolicy.from_settings(section if isinstance(section, WebhooksSettings) else None)
    # The settings (file + environment) decide which internal hosts deliveries may reach.
    current = bind(context.db, policy, OutboundGuard(context.settings.security.outbound_allow))
    context.state[NAME] = current
    context.closers.append(current.dispatcher.stop)


@hookimpl
def configure_app(app: falcon.App[falcon.Request, falcon.Response], context: PluginContext) -> None:
    from memorist.plugin_api import OutboundGuard
    from memorist.plugin_api.http import Tenancy

    from .routes import OneWebhook, ProjectWebhooks  # the web layer only where HTTP is served

    current = binding(context)
    if current is None:  # an app built over a context that skipped database_ready
        current = bind(context.db, guard=OutboundGuard(context.settings.security.outbound_allow))
        context.state[NAME] = current
        context.closers.append(current.dispatcher.stop)
    tenancy = Tenancy(context.db)
    limits = context.settings.limits
    guard = current.dispatcher.guard
    context.add_route("/api/v1/webhooks/projects/{project_id}/", ProjectWebhooks(current.store, tenancy, limits, guard))
    context.add_route("/api/v1/webhooks/{webhook_id}/", OneWebhook(current.store, tenancy, limits, guard))


@hookimpl
def memory_added(memory: MemoryRecord, context: PluginContext | None) -> None:
    from .store import MEMORY_ADD, MEMORY_CATEGORIZE

    _enqueue(context, (MEMORY_ADD, MEMORY_CATEGORIZE) if memory.categories else (MEMORY_ADD,), memory, None)


@hookimpl
def memory_updated(memory: MemoryRecord, previous: MemoryRecord, context: PluginContext | None) -> None:
    from .store import MEMORY_UPDATE

    _enqueue(context, (MEMORY_UPDATE,), memory, previous)


@hookimpl
def memory_deleted(memory: MemoryRecord, context: PluginContext | None) -> None:
    from .store import MEMORY_DELETE

    _enqueue(context, (MEMORY_DELETE,), memory, None)


@hookimpl
def project_deleted(project_id: str, context: PluginContext | None) -> None:
    """A deleted project's webhooks go with their pending deliveries (before its memories: nobody is told)."""
    found = binding(context)
    if found is None:
        return
    for hook in found.store.for_project(project_id):
        found.store.delete(hook.id)
