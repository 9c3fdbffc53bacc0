"""The composition root: settings + plugins -> the running system.

Every door starts here and nothing is wired twice: ``create_app`` (both HTTP
surfaces), ``/mcp`` and ``memorist mcp``, ``memorist worker``, ``memorist admin``,
``memorist import`` and the Python API (``memorist.Memory``). The order is fixed:
load plugins, open the database and run the migrations, tell plugins the database
is ready, build the engine runtime (providers), the event store, the operations
layer with the operator's limits, the authentication stores
(:class:`~memorist.auth.stores.AuthStores`) and what the serving doors share over
them (:class:`~memorist.kernel.serving.Serving`: the authenticator, the account
services, the request log, the metrics' state), and on request the queue workers.
The tenancy (organizations, projects, members) is built once per running system
(:attr:`PluginContext.tenancy`). Plugins see all of it through a read-only
:class:`~memorist.kernel.context.PluginContext`.

Reconfiguration never happens inside a request: :class:`~memorist.kernel.runtime.Runtime`
swaps the engine in ``POST /configure`` itself, and its watcher thread follows
changes made by other processes.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import pydantic
from pydantic import BaseModel

from ..auth.stores import AuthStores
from ..bootstrap import Bootstrap
from ..config.settings import Settings
from ..db import Database
from ..engine.memory import MemoryEngine
from ..errors import ConfigurationError, format_validation_error
from ..operations import Operations
from ..operations.export_store import ExportStore
from ..plugin.manager import Plugins, load_plugins
from ..plugin.registry import ProviderRegistry
from ..queue.events import EventStore
from ..tenancy import Tenancy
from .add_worker import AddWorker
from .context import Assembly, PluginContext, assembly_of, close_context
from .runtime import Runtime
from .serving import Serving, prepare_process

log = logging.getLogger("memorist.kernel")


def plugin_settings(settings: Settings, plugins: Plugins) -> dict[str, BaseModel]:
    """Each plugin's validated settings section; defaults when ``settings`` was loaded without it."""
    found: dict[str, BaseModel] = {}
    for name, model in plugins.settings_sections().items():
        value = getattr(settings, name, None)
        if not isinstance(value, model):
            try:
                value = model.model_validate(value or {})
            except pydantic.ValidationError as exc:
                raise ConfigurationError(format_validation_error(exc, name, model)) from None
        found[name] = value
    return found


def open_context(settings: Settings, plugins: Plugins, registry: ProviderRegistry | None = None) -> PluginContext:
    """Open and migrate the database (kernel, then plugins), then run ``database_ready``.

    Every process does this first, whatever door it is: a server, a worker, ``memorist
    admin``, the Python API. The returned context has no engine yet.
    """
    db = Database(settings.database_url, pool_timeout=settings.database.pool_timeout_seconds)
    db.upgrade(plugins.migrations())
    assembly = Assembly(
        settings=settings,
        registry=registry or ProviderRegistry.from_plugins(plugins),
        db=db,
        plugins=plugins,
        plugin_settings=plugin_settings(settings, plugins),
    )
    context = PluginContext(assembly)
    plugins.hook.database_ready(context=context)
    return context


def in_process_operations(engine: Callable[[], MemoryEngine], settings: Settings) -> Operations:
    """The operations layer of a door that runs in its caller's own process: the Python API
    (``memorist.Memory``) and ``memorist import``.

    Such a door is the operator's own tool, so it works under the operator's ``limits``
    settings, the same object the HTTP doors admit adds with: one add past
    ``limits.max_add_chars`` or ``limits.max_add_messages`` is refused with the error naming
    the limit. What bounds one *request* does not apply: a batch's item and character caps
    (a list handed over in-process, or a file, is no request; it is stored in bounded
    chunks), the per-address rate limits (there is no address), and the queue (the caller
    waits for its own adds, so none is answered 202).
    """
    return Operations(engine, limits=settings.limits, batch_caps=False)


def event_store(db: Database, settings: Settings) -> EventStore:
    return EventStore.from_settings(db, settings.queue)


@dataclass
class Kernel:
    """The running system one process serves from."""

    settings: Settings
    plugins: Plugins
    registry: ProviderRegistry
    db: Database
    runtime: Runtime
    events: EventStore
    operations: Operations
    #: What plugins are handed: a read-only view of this kernel.
    context: PluginContext
    #: Accounts, keys, tokens and rate limiters: one set for every door that checks credentials.
    auth: AuthStores
    #: The authenticator, account services, request log and metrics' state the serving doors share.
    serving: Serving
    _started: bool = field(default=False, repr=False)

    @classmethod
    def build(cls, settings: Settings, plugins: Plugins | None = None, *, watch: bool = True) -> Kernel:
        """Assemble everything from ``settings``; ``watch`` follows other processes' ``/configure``."""
        plugins = plugins or load_plugins()
        registry = ProviderRegistry.from_plugins(plugins)
        context = open_context(settings, plugins, registry)
        db = context.db
        runtime = Runtime(settings, plugins, db, registry, context=context)
        events = event_store(db, settings)
        operations = Operations(
            lambda: runtime.memory,
            events,
            settings.limits,
            ExportStore(db, settings.exports),
            engine_for=runtime.memory_for,
            engines=runtime.all_engines,
            spaces=runtime.spaces,
            prepare=runtime.prepare_multilingual,
        )
        assembly = assembly_of(context)
        assembly.runtime, assembly.events, assembly.operations = runtime, events, operations
        if watch:
            runtime.watch()
        auth = AuthStores.build(db, settings.auth)
        serving = Serving.build(settings, db, auth, lambda: int(runtime.memory.components.vector_store.count()))
        return cls(settings, plugins, registry, db, runtime, events, operations, context, auth, serving)

    @property
    def tenancy(self) -> Tenancy:
        """Organizations, projects and members (one per running system, see :attr:`PluginContext.tenancy`)."""
        return self.context.tenancy

    @functools.cached_property
    def bootstrap(self) -> Bootstrap:
        """Platform accounts, projects and keys as an administrator makes them (the admin routes)."""
        return Bootstrap(self.db, self.tenancy, self.auth.users, self.auth.api_keys)

    @property
    def running_worker(self) -> AddWorker | None:
        """The queue workers this process runs (started by :meth:`start_serving` or adopted), if any."""
        return assembly_of(self.context).worker

    def worker(self, threads: int | None = None) -> AddWorker:
        """Queue workers over this kernel's engine (not started; :meth:`adopt_worker` to have
        :meth:`close` stop them)."""
        count = threads if threads is not None else max(self.settings.queue.workers, 1)
        q = self.settings.queue
        return AddWorker(
            lambda: self.runtime.memory,
            self.events,
            threads=count,
            poll_seconds=q.poll_seconds,
            max_run_seconds=q.max_run_seconds,
            retention_days=q.retention_days,
            memory_for=self.runtime.memory_for,
        )

    def adopt_worker(self, worker: AddWorker) -> None:
        """``worker`` is this process's queue workers: :meth:`close` stops it, however the process ends."""
        assembly_of(self.context).worker = worker

    def start_workers(self) -> AddWorker | None:
        """Start the in-process queue workers the settings ask for (``queue.workers``; 0 = none)."""
        if not self.settings.queue.workers or self.running_worker is not None:
            return self.running_worker
        worker = self.worker(self.settings.queue.workers)
        worker.start()
        self.adopt_worker(worker)
        return worker

    def start_serving(self) -> None:
        """What a process serving callers does once per kernel, whatever its doors: set up its
        logs, traces and metrics (:func:`~memorist.kernel.serving.prepare_process`) and start the
        in-process queue workers. Idempotent: a second app over this kernel starts nothing twice."""
        if self._started:
            return
        self._started = True
        prepare_process(self.settings)
        self.start_workers()

    def close(self) -> None:
        """Stop the watcher and workers, release providers and the database."""
        worker = self.running_worker
        if worker is not None:
            worker.stop()
        self.runtime.stop()
        self.serving.close()
        close_context(self.context)
        self.runtime.memory.close()
