"""What resources and ``configure_app`` hooks receive: the assembled runtime."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..db import Database
from ..plugins import Plugins
from ..registry import ProviderRegistry
from ..settings import Settings

if TYPE_CHECKING:
    from ..engine.memory import Memory
    from ..events import EventStore
    from ..worker import AddWorker
    from .runtime import Runtime


@dataclass
class AppServices:
    """The runtime one app serves from. Resources take what they need in ``__init__``."""

    settings: Settings
    plugins: Plugins
    registry: ProviderRegistry
    db: Database
    runtime: Runtime
    #: ``add_route(path, resource)``: routes added this way also appear in /openapi.json.
    add_route: Callable[[str, object], None] = field(default=lambda path, resource: None)
    events: EventStore | None = None
    worker: AddWorker | None = None

    @property
    def memory(self) -> Memory:
        """The engine serving now (``POST /configure`` may replace it)."""
        return self.runtime.memory
