"""The Python API door: ``memorist.Memory`` built by the kernel's own steps.

``Memory.from_config(...)`` loads plugins, opens and migrates the database and
runs ``database_ready`` exactly as a server or worker process does
(:func:`memorist.kernel.core.open_context`), then builds the engine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import spaces
from ..config.settings import Settings, load_settings
from ..engine import vector_space
from ..engine.memory import MemoryEngine
from ..kernel.context import assembly_of, close_context
from ..kernel.core import in_process_operations, open_context
from ..plugin.manager import Plugins, load_plugins


class Engine(MemoryEngine):
    """Long-term memory in this process (the engine, assembled like every other door)."""

    @classmethod
    def from_config(
        cls,
        config: str | os.PathLike[str] | Mapping[str, Any] | Settings | None = None,
        *,
        plugins: Plugins | None = None,
    ) -> Engine:
        """From a YAML path, a mapping of settings, a ``Settings``, or the defaults + environment."""
        plugins = plugins or load_plugins()
        sections = plugins.settings_sections()
        if isinstance(config, Settings):
            settings = config
        elif isinstance(config, Mapping):
            settings = load_settings(None, config, sections=sections)
        else:
            settings = load_settings(Path(config) if config is not None else None, sections=sections)
        return cls.from_settings(settings, plugins)

    @classmethod
    def from_settings(cls, settings: Settings, plugins: Plugins | None = None) -> Engine:
        """Open (and migrate) the database as every process does, then build the providers."""
        plugins = plugins or load_plugins()
        context = open_context(settings, plugins)
        try:
            if settings.multilingual.enabled:
                # The one project of the Python API lives in the multilingual space (memorist.spaces).
                spaces.refuse_default_space_memories(settings, context.registry, context.db)
                built = spaces.multilingual_settings(settings)
                memory = cls.build(
                    built, context.registry, context.db, plugins, context=context, settle_vector_space=False
                )
                vector_space.settle(
                    context.db, memory.components.embedder, memory.components.vector_store, spaces.MULTILINGUAL_KEY
                )
            else:
                memory = cls.build(settings, context.registry, context.db, plugins, context=context)
        except BaseException:  # e.g. a store of another embedder's vectors: release the database
            close_context(context)
            context.db.dispose()
            raise
        assert isinstance(memory, cls)
        assembly = assembly_of(context)
        assembly.engine_ref = lambda: memory
        # What plugins read as ``context.operations``: the in-process doors' layer over this engine.
        assembly.operations = in_process_operations(assembly.engine_ref, settings)
        return memory

    def close(self) -> None:
        """Stop what plugins started for this engine (e.g. webhook delivery), then release it."""
        if self.context is not None:
            close_context(self.context)
        super().close()
