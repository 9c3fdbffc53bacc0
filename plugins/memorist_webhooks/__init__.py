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

from typing import TYPE_CHECKING

from memorist.hookspecs import hookimpl

if TYPE_CHECKING:
    import falcon
    from memorist.context import PluginContext as AppServices
    from memorist.db import Database
    from memorist.records import MemoryRecord

    from .live import bind, binding
    from .signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign, verify

__all__ = ["SIGNATURE_HEADER", "TIMESTAMP_HEADER", "bind", "binding", "sign", "verify"]
#: Imported on first use: loading the plugin stays cheap for commands that never touch webhooks.
_LAZY = {
    "bind": ".live",
    "binding": ".live",
    "SIGNATURE_HEADER": ".signing",
    "TIMESTAMP_HEADER": ".signing",
    "sign": ".signing",
    "verify": ".signing",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(name)


@hookimpl
def database_ready(db: Database) -> None:
    from .live import bind

    bind(db)


@hookimpl
def configure_app(app: falcon.App, services: AppServices) -> None:
    from memorist.outbound import OutboundGuard
    from memorist.tenancy import Tenancy

    from .live import bind
    from .routes import OneWebhook, ProjectWebhooks  # HTTP only: commands that never serve skip its imports

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
    from .live import _enqueue
    from .store import MEMORY_ADD, MEMORY_CATEGORIZE

    _enqueue(MEMORY_ADD, memory)
    if memory.categories:
        _enqueue(MEMORY_CATEGORIZE, memory)


@hookimpl
def memory_updated(memory: MemoryRecord, previous: MemoryRecord) -> None:
    from .live import _enqueue
    from .store import MEMORY_UPDATE

    _enqueue(MEMORY_UPDATE, memory, previous)


@hookimpl
def memory_deleted(memory: MemoryRecord) -> None:
    from .live import _enqueue
    from .store import MEMORY_DELETE

    _enqueue(MEMORY_DELETE, memory)
