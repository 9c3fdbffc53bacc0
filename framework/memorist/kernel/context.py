"""What plugins are handed: a read-only view of the running system.

Like datasette's hooks receive ``datasette``, Memorist's hooks receive a
:class:`PluginContext`: the settings, the relational database, the provider
registry, the engine serving now, the event store and the operations layer.

Why a view and not the parts themselves: a plugin reads the system, it does not
rewire it. The kernel (:mod:`memorist.kernel.core`) fills an :class:`Assembly` as
it builds (the engine's runtime, the queue, the operations layer come after
``database_ready``); the context every hook gets reads from it, and has no
setter: ``context.operations = ...`` raises, and ``plugin_settings`` is a
read-only mapping. What a plugin may change is its own: ``state[name]`` (what it
built for this system) and ``closers.append(fn)`` (what to stop when the system
closes). ``add_route`` is given only to ``configure_app`` by the HTTP door
(:meth:`PluginContext.with_routes`).

It lives in its own module, below the plugin manager, so the hook
specifications can name its type without an import cycle.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..config.settings import Settings
from ..db import Database
from ..plugin.registry import ProviderRegistry

if TYPE_CHECKING:
    from ..engine.memory import MemoryEngine
    from ..operations import Operations
    from ..queue.events import EventStore
    from ..tenancy import Tenancy
    from .add_worker import AddWorker
    from .runtime import Runtime


log = logging.getLogger("memorist.context")


def _no_routes(path: str, resource: object) -> None:
    """Outside an HTTP app there is nowhere to add a route; plugins may still call it."""


class Closers:
    """What runs when the system closes, last added first. Plugins may only add to it."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[], None]] = []

    def append(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the system closes (a plugin stops its threads there)."""
        self._callbacks.append(callback)

    def __len__(self) -> int:
        return len(self._callbacks)


@dataclass(eq=False)
class Assembly:
    """The running system's parts as the kernel fills them in (the kernel's side; plugins see
    them through :class:`PluginContext`, which cannot set any of them)."""

    settings: Settings
    registry: ProviderRegistry
    db: Database
    #: The plugin manager (``memorist.plugin.manager.Plugins``); typed loosely to keep this module below it.
    plugins: Any = None
    plugin_settings: dict[str, BaseModel] = field(default_factory=dict)
    runtime: Runtime | None = None
    events: EventStore | None = None
    operations: Operations | None = None
    #: The queue worker threads this process runs, if any.
    worker: AddWorker | None = None
    #: Where the engine comes from when there is no runtime (the Python API's own engine).
    engine_ref: Callable[[], MemoryEngine] | None = None
    state: dict[str, Any] = field(default_factory=dict)
    closers: Closers = field(default_factory=Closers)
    tenancy: Tenancy | None = None

    def close(self) -> None:
        """Run the closers plugins registered, last first; one failing does not stop the others."""
        callbacks = self.closers._callbacks
        while callbacks:
            closer = callbacks.pop()
            try:
                closer()
            except Exception:  # closing must go on
                log.exception("closing: %r failed", closer)


@dataclass(frozen=True, eq=False)
class PluginContext:
    """The running system as plugins see it: read-only (see the module docstring)."""

    _assembly: Assembly = field(repr=False)
    #: ``add_route(path, resource)``: in ``configure_app``, a route that also appears in /openapi.json.
    add_route: Callable[[str, object], None] = field(default=_no_routes, repr=False)

    def with_routes(self, add_route: Callable[[str, object], None]) -> PluginContext:
        """The same view, able to add routes (what the HTTP door hands ``configure_app``)."""
        return PluginContext(self._assembly, add_route)

    @property
    def settings(self) -> Settings:
        """The validated settings (with the plugins' own sections)."""
        return self._assembly.settings

    @property
    def registry(self) -> ProviderRegistry:
        return self._assembly.registry

    @property
    def db(self) -> Database:
        """The relational database, migrated (a plugin's own tables live here too)."""
        return self._assembly.db

    @property
    def plugins(self) -> Any:
        """The plugin manager (its ``hook`` calls every plugin)."""
        return self._assembly.plugins

    @property
    def plugin_settings(self) -> Mapping[str, BaseModel]:
        """Each plugin's validated settings section, by the name it registered (``register_settings``)."""
        return MappingProxyType(self._assembly.plugin_settings)

    @property
    def state(self) -> dict[str, Any]:
        """Per-plugin state for this running system (e.g. the webhooks plugin's delivery threads),
        by plugin name: plugins keep what they build here, not in module globals."""
        return self._assembly.state

    @property
    def closers(self) -> Closers:
        """``closers.append(fn)``: ``fn`` runs when the system closes (stop your threads there)."""
        return self._assembly.closers

    @property
    def events(self) -> EventStore | None:
        """The durable add queue (None before the kernel has built it, and in the Python API)."""
        return self._assembly.events

    @property
    def operations(self) -> Operations | None:
        """The operations layer every door calls (None before the kernel has built it)."""
        return self._assembly.operations

    @property
    def tenancy(self) -> Tenancy:
        """Organizations, projects and members: built once per running system, shared by every door
        (the platform routes, ``/mcp``, the webhooks plugin, ``memorist admin`` and ``reembed``)."""
        assembly = self._assembly
        if assembly.tenancy is None:
            from ..tenancy import Tenancy

            assembly.tenancy = Tenancy(assembly.db)
        return assembly.tenancy

    @property
    def engine(self) -> MemoryEngine:
        """The engine serving now (``POST /configure`` may replace it; read it per use)."""
        assembly = self._assembly
        if assembly.engine_ref is not None:
            return assembly.engine_ref()
        if assembly.runtime is None:
            raise RuntimeError("the engine is not built yet (database_ready runs before it)")
        return assembly.runtime.memory

    @property
    def memory(self) -> MemoryEngine:
        """Alias of :attr:`engine`."""
        return self.engine


def assembly_of(context: PluginContext) -> Assembly:
    """The kernel's side of ``context`` (for the kernel and the doors that build a system, never plugins)."""
    return context._assembly


def close_context(context: PluginContext) -> None:
    """Run what plugins registered to close (``closers``)."""
    context._assembly.close()
