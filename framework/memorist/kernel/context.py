"""What plugins and doors are handed: the assembled system, as one object.

Like datasette's hooks receive ``datasette``, Memorist's hooks receive this
context: the settings, the relational database, the provider registry, the
engine serving now, the event store and the operations layer. The kernel
(:mod:`memorist.kernel.core`) fills it; nothing here builds anything.

It lives in its own module, below the plugin manager, so the hook
specifications can name its type without an import cycle.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass
class PluginContext:
    """The running system as plugins and doors see it."""

    settings: Settings
    registry: ProviderRegistry
    db: Database
    runtime: Runtime | None = None
    events: EventStore | None = None
    operations: Operations | None = None
    #: The plugin manager (``memorist.plugin.manager.Plugins``); typed loosely to keep this module below it.
    plugins: Any = None
    #: ``add_route(path, resource)``: in an HTTP app, routes added this way also appear in /openapi.json.
    add_route: Callable[[str, object], None] = field(default=_no_routes)
    #: The queue worker threads this process runs, if any.
    worker: AddWorker | None = None
    #: Each plugin's validated settings section, by the name it registered (``register_settings``).
    plugin_settings: dict[str, BaseModel] = field(default_factory=dict)
    #: Per-plugin state for this running system (e.g. the webhooks plugin's delivery threads),
    #: by plugin name: plugins keep what they build here, not in module globals.
    state: dict[str, Any] = field(default_factory=dict)
    #: Where the engine comes from when there is no runtime (the Python API's own engine).
    engine_ref: Callable[[], MemoryEngine] | None = None
    #: Called by :meth:`close` (a plugin stops its threads here), last registered first.
    closers: list[Callable[[], None]] = field(default_factory=list)
    _tenancy: Tenancy | None = field(default=None, init=False, repr=False)

    @property
    def tenancy(self) -> Tenancy:
        """Organizations, projects and members: built once per running system, shared by every door
        (the platform routes, ``/mcp``, the webhooks plugin, ``memorist admin`` and ``reembed``)."""
        if self._tenancy is None:
            from ..tenancy import Tenancy

            self._tenancy = Tenancy(self.db)
        return self._tenancy

    def close(self) -> None:
        """Run the closers plugins registered; one failing does not stop the others."""
        while self.closers:
            closer = self.closers.pop()
            try:
                closer()
            except Exception:  # closing must go on
                log.exception("closing: %r failed", closer)

    @property
    def engine(self) -> MemoryEngine:
        """The engine serving now (``POST /configure`` may replace it; read it per use)."""
        if self.engine_ref is not None:
            return self.engine_ref()
        if self.runtime is None:
            raise RuntimeError("the engine is not built yet (database_ready runs before it)")
        return self.runtime.memory

    @property
    def memory(self) -> MemoryEngine:
        """Alias of :attr:`engine`."""
        return self.engine
