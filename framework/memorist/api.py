"""The Python API door: ``memorist.Memory`` built by the kernel's own steps.

``Memory.from_config(...)`` loads plugins, opens and migrates the database and
runs ``database_ready`` exactly as a server or worker process does
(:func:`memorist.kernel.open_database`), then builds the engine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .context import PluginContext
from .db import Database
from .engine.memory import Memory as Engine
from .kernel import open_database
from .plugins import Plugins, load_plugins
from .registry import ProviderRegistry
from .settings import Settings, load_settings


class Memory(Engine):
    """Long-term memory in this process (the engine, assembled like every other door)."""

    @classmethod
    def from_config(
        cls,
        config: str | os.PathLike[str] | Mapping[str, Any] | Settings | None = None,
        *,
        plugins: Plugins | None = None,
    ) -> Memory:
        """From a YAML path, a mapping of settings, a ``Settings``, or the defaults + environment."""
        if isinstance(config, Settings):
            settings = config
        elif isinstance(config, Mapping):
            settings = load_settings(None, config)
        else:
            settings = load_settings(Path(config) if config is not None else None)
        return cls.from_settings(settings, plugins)

    @classmethod
    def from_settings(cls, settings: Settings, plugins: Plugins | None = None, db: Database | None = None) -> Memory:
        """Open (and migrate) the database unless one is handed in, then build the providers."""
        plugins = plugins or load_plugins()
        registry = ProviderRegistry.from_plugins(plugins)
        db = db or open_database(settings, plugins)
        context = PluginContext(settings=settings, registry=registry, db=db, plugins=plugins)
        memory = cls.build(settings, registry, db, plugins, context=context)
        assert isinstance(memory, cls)
        return memory
