"""Vector spaces: which embedder's vectors a project's memories live among.

A vector only means something next to vectors of the same model, so each project's
memories live in exactly one space, and a search compares a question with them in it:

- the **default space**: the deployment's ``embedder`` and the vector store's table;
- the **multilingual space** (``multilingual`` settings): a multilingual embedder
  (``multilingual-use`` by default) and its own table, ``<table><table_suffix>``.
  Platform projects whose ``multilingual`` setting is true live here; so does the
  self-hosted server's project (``default``/``default``) with ``multilingual.enabled``.

Each space records which model made its vectors (:mod:`.engine.vector_space`, one
record per space), so a changed embedder is refused over stored memories either way.
Moving a project's memories from one space to the other is ``memorist reembed
--project``; turning the flag on or off over stored memories is refused with that advice.

The multilingual engine is built the first time a project of that space is served
(or at startup when ``multilingual.enabled``); a deployment that never uses it never
imports the multilingual model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from sqlalchemy import select

from .config.settings import ProviderSettings, Settings
from .db import Database
from .db.schema import projects
from .engine import vector_space
from .engine.scope import tenant
from .errors import ConfigurationError
from .plugin.contracts import ProviderContext, VectorStore
from .plugin.registry import ProviderRegistry
from .records import DEFAULT_ORG, DEFAULT_PROJECT

#: The ``kv_settings`` key of the multilingual space's vector-space record.
MULTILINGUAL_KEY = "vector_space:multilingual"
#: How long a project's space is remembered per process (a flag flips only over an empty project).
CACHE_SECONDS = 2.0


def multilingual_settings(settings: Settings) -> Settings:
    """``settings`` with the multilingual space's embedder and vector-store table."""
    space = settings.multilingual
    options = dict(settings.vector_store.options)
    options["table"] = f"{options.get('table', 'memories')}{space.table_suffix}"
    store = ProviderSettings(provider=settings.vector_store.provider, options=options)
    return settings.model_copy(update={"embedder": space.embedder, "vector_store": store})


def default_space_count(settings: Settings, registry: ProviderRegistry, db: Database) -> int:
    """Memories of the self-hosted project (``default``/``default``) in the default space's store,
    read without loading its embedder (only the store is opened, at its recorded dimension)."""
    recorded = vector_space._read(db)  # noqa: SLF001 - the record says what the store holds
    if not recorded or not recorded.get("dimension"):
        return 0
    slot = settings.vector_store
    context = ProviderContext(
        data_dir=settings.data_dir, database_url=settings.database_url, dimension=int(recorded["dimension"])
    )
    store = registry.build("vector_store", slot.provider, slot.options, context)
    try:
        assert isinstance(store, VectorStore)
        return store.count(tenant(DEFAULT_ORG, DEFAULT_PROJECT))
    finally:
        store.close()


def refuse_default_space_memories(settings: Settings, registry: ProviderRegistry, db: Database) -> None:
    """``multilingual.enabled`` over a self-hosted project whose memories are in the default
    space would hide them all from searches: refuse, saying what to do."""
    held = default_space_count(settings, registry, db)
    if held:
        raise ConfigurationError(
            f"multilingual.enabled: the project default/default holds {held} memories embedded in the "
            "default vector space; searches in the multilingual space would not find them. Move them "
            "first: `memorist reembed --config <this file> --project default --multilingual on`, "
            "or set multilingual.enabled: false"
        )


class SpaceDirectory:
    """Answers whether a project lives in the multilingual space (cached briefly per process)."""

    def __init__(self, db: Database, settings: Callable[[], Settings]) -> None:
        self._db = db
        self._settings = settings
        self._cache: dict[tuple[str, str], tuple[float, bool]] = {}
        self._lock = threading.Lock()

    def multilingual(self, org_id: str, project_id: str) -> bool:
        if (org_id, project_id) == (DEFAULT_ORG, DEFAULT_PROJECT) and self._settings().multilingual.enabled:
            return True
        now = time.monotonic()
        cached = self._cache.get((org_id, project_id))
        if cached is not None and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        with self._db.connect() as conn:
            value = conn.execute(
                select(projects.c.settings).where(projects.c.id == project_id, projects.c.org_id == org_id)
            ).scalar()
        flag = bool(isinstance(value, dict) and value.get("multilingual"))
        with self._lock:
            if len(self._cache) > 10_000:  # bounded: projects are many on a large platform
                self._cache.clear()
            self._cache[(org_id, project_id)] = (now, flag)
        return flag

    def forget(self, org_id: str, project_id: str) -> None:
        """Drop a cached answer (after the project's flag changed in this process)."""
        with self._lock:
            self._cache.pop((org_id, project_id), None)

    def any_multilingual(self) -> bool:
        """Whether some project lives in the multilingual space (its engine is then worth
        building before a request needs it)."""
        if self._settings().multilingual.enabled:
            return True
        with self._db.connect() as conn:
            for (value,) in conn.execute(select(projects.c.settings)):
                if isinstance(value, dict) and value.get("multilingual"):
                    return True
        return False
