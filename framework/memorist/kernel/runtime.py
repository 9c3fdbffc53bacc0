"""The engine currently serving, and runtime reconfiguration (``POST /configure``).

Overrides are validated, a new engine is built beside the old one, then the
reference is swapped: requests in flight finish on the engine they started
with. The overrides are stored in the database, so a restart keeps them and
every other process or node picks them up: a watcher thread looks every few
seconds and rebuilds the engine there, off the request path. Reading
:attr:`Runtime.memory` never builds anything (no request pays for loading a
model another process asked for).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from sqlalchemy import insert, select, update

from .. import spaces
from ..config import configure_policy
from ..config.files import deep_merge
from ..config.settings import Settings, load_settings, plugin_sections
from ..db import Database
from ..db.schema import kv
from ..engine import vector_space
from ..engine.memory import HasHooks, MemoryEngine
from ..errors import Busy, ValidationError
from ..plugin.registry import ProviderRegistry
from ..plugin.slots import SLOT_NAMES
from ..records import utcnow

log = logging.getLogger("memorist.runtime")
OVERRIDES_KEY = "runtime_overrides"
#: What ``POST /configure`` may change: every provider slot (the slot table) and engine tuning.
CONFIGURABLE = (*SLOT_NAMES, "engine")
#: How often the watcher looks for a configuration changed by another process.
CHECK_SECONDS = 2.0
#: An old engine is closed this long after being replaced (requests in flight finish first).
RETIRE_SECONDS = 60.0
#: Seconds a ``POST /configure`` refused because another one is building is asked to wait.
CONFIGURE_RETRY_AFTER = 2


class Runtime:
    """Holds the serving engine; ``configure`` swaps it, the watcher follows other processes."""

    def __init__(
        self,
        base: Settings,
        plugins: HasHooks,
        db: Database,
        registry: ProviderRegistry | None = None,
        *,
        context: Any = None,
    ) -> None:
        # Provider clients are guarded here (server and worker): only the startup settings
        # can make an internal host trusted, never a later POST /configure.
        self._base = configure_policy.guarded(base)
        self._plugins = plugins
        self._registry = registry or ProviderRegistry.from_plugins(plugins)
        self._db = db
        self._context = context
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        overrides, self._version = self._load()
        self._memory = self._build(self.merged(overrides), None)
        self._overrides = overrides
        self.spaces = spaces.SpaceDirectory(db, lambda: self._memory.settings)
        #: The multilingual space's engine and the default engine it was built beside.
        self._multilingual: tuple[MemoryEngine, MemoryEngine] | None = None
        self._space_lock = threading.Lock()
        if self._memory.settings.multilingual.enabled:
            spaces.refuse_default_space_memories(self._memory.settings, self._registry, self._db)
            self.multilingual_memory()

    @property
    def memory(self) -> MemoryEngine:
        """The current engine (cheap: a reference read; rebuilds happen in the watcher)."""
        return self._memory

    def memory_for(self, org_id: str, project_id: str) -> MemoryEngine:
        """The engine of the vector space the project's memories live in (``memorist.spaces``)."""
        if self.spaces.multilingual(org_id, project_id):
            return self.multilingual_memory()
        return self._memory

    def multilingual_memory(self) -> MemoryEngine:
        """The multilingual space's engine, built beside the current engine on first use
        (loading its model once, ~3 s) and rebuilt after a reconfiguration."""
        current, pair = self._memory, self._multilingual
        if pair is not None and pair[0] is current:
            return pair[1]
        with self._space_lock:
            pair = self._multilingual
            if pair is not None and pair[0] is current:
                return pair[1]
            if self._stop.is_set():
                raise RuntimeError("the runtime is stopped: no engine is built any more")
            previous = pair[1] if pair is not None else None
            memory = MemoryEngine.build(
                spaces.multilingual_settings(current.settings),
                self._registry,
                self._db,
                self._plugins,
                previous,
                context=self._context,
                settle_vector_space=False,
            )
            try:
                vector_space.settle(
                    self._db, memory.components.embedder, memory.components.vector_store, spaces.MULTILINGUAL_KEY
                )
            except Exception:
                memory.abandon(previous)
                raise
            self._multilingual = (current, memory)
            if previous is not None:
                self._retire_later(previous, memory)
            return memory

    def all_engines(self) -> list[MemoryEngine]:
        """The engine of every space holding memories (``/reset`` empties them all)."""
        engines = [self._memory]
        if self._multilingual is not None or vector_space.recorded_label(self._db, spaces.MULTILINGUAL_KEY):
            engines.append(self.multilingual_memory())
        return engines

    @property
    def settings(self) -> Settings:
        return self._memory.settings

    @property
    def overrides(self) -> dict[str, Any]:
        return dict(self._overrides)

    def merged(self, overrides: Mapping[str, Any]) -> Settings:
        """The deployment's settings (file, environment) with ``overrides`` on top. A slot the
        overrides move to another provider keeps none of the deployment's options for the
        old one (``dimension: 384`` of a hashing embedder is no option of another embedder)."""
        if not overrides:
            return self._base
        base = self._base.model_dump()
        for slot in SLOT_NAMES:
            patch = overrides.get(slot)
            if isinstance(patch, Mapping) and patch.get("provider") not in (None, base[slot]["provider"]):
                base[slot] = {**base[slot], "options": {}}
        return load_settings(None, deep_merge(base, overrides), sections=plugin_sections(self._base))

    def configure(self, patch: Mapping[str, Any]) -> Settings:
        """Deep-merge ``patch`` into the overrides, build and swap the engine, persist.

        One build at a time: a call that arrives while another is building (or the watcher is
        following another process) is refused with :class:`Busy` (429, ``Retry-After``) at
        once, instead of holding a serving thread while it waits its turn. Each build loads
        providers and may load models; queued calls would pile threads and memory up behind
        it, and the caller learns sooner that its change did not happen yet."""
        if not isinstance(patch, Mapping) or not patch:
            raise ValidationError("body: a non-empty object of settings to change is required")
        unknown = sorted(set(patch) - set(CONFIGURABLE))
        if unknown:
            raise ValidationError(
                f"{unknown[0]}: cannot be changed at runtime; configurable: {', '.join(CONFIGURABLE)}"
            )
        configure_policy.check_patch(patch, self._base)
        if not self._lock.acquire(blocking=False):
            raise Busy(
                f"another configuration change is being applied; retry in {CONFIGURE_RETRY_AFTER} s",
                retry_after=CONFIGURE_RETRY_AFTER,
            )
        try:
            overrides = deep_merge(self._overrides, patch)
            for slot in SLOT_NAMES:
                # Choosing another provider starts from that provider's defaults.
                if slot in patch and "provider" in patch[slot] and "options" not in patch[slot]:
                    overrides[slot] = {**overrides[slot], "options": {}}
            settings = self.merged(overrides)
            configure_policy.check_key_destinations(patch, settings)
            # Raises 400/409 before anything is swapped or stored.
            memory = self._build(settings, self._memory, settle_vector_space=False)
            try:
                configure_policy.verify_built(memory, patch, self._memory)
                # Last of the checks: it may record the new embedder's space, which only an
                # engine that is about to serve may do.
                vector_space.settle(self._db, memory.components.embedder, memory.components.vector_store)
            except Exception:
                # A refused engine leaves nothing behind: not even the empty table its store made.
                memory.abandon(self._memory)
                raise
            self._version = self._store(overrides)
            self._overrides = overrides
            self._swap(memory)
        finally:
            self._lock.release()
        return settings

    # -- following other processes ---------------------------------------------------
    def refresh(self) -> bool:
        """Apply a configuration another process stored; True when the engine was replaced."""
        overrides, version = self._load()
        if version == self._version:
            return False
        with self._lock:
            if version == self._version:
                return False
            fresh = self._build(self.merged(overrides), self._memory)
            self._swap(fresh)
            self._overrides, self._version = overrides, version
        return True

    def watch(self, every: float = CHECK_SECONDS) -> None:
        """Start the watcher thread (idempotent); it follows ``/configure`` made elsewhere."""
        if self._watcher is not None:
            return
        self._watcher = threading.Thread(target=self._watch, args=(every,), name="memorist-runtime", daemon=True)
        self._watcher.start()
        self.prepare_multilingual()

    def prepare_multilingual(self) -> None:
        """Build the multilingual engine on a thread of its own when a project uses it, so that
        no request waits for its model to load (a serving process; idempotent)."""

        def build() -> None:
            try:
                with self._space_lock:  # stop() takes it too: nothing is built after it
                    if self._stop.is_set() or not self.spaces.any_multilingual():
                        return
                self.multilingual_memory()
            except Exception:  # the first request of such a project reports it itself
                if not self._stop.is_set():
                    log.exception("could not prepare the multilingual engine")

        threading.Thread(target=build, name="memorist-multilingual", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        with self._space_lock:  # a multilingual engine being built is finished, then released
            if self._multilingual is not None:
                self._multilingual[1].retire()
                self._multilingual[1].generations.close()
                self._multilingual = None
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join(5.0)
        self._watcher = None

    def _watch(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                self.refresh()
            except Exception:  # a bad stored config or a database blip: keep serving the current engine
                log.exception("could not apply configuration changed by another process")

    # -- internals -----------------------------------------------------------------------
    def _build(
        self, settings: Settings, previous: MemoryEngine | None, *, settle_vector_space: bool = True
    ) -> MemoryEngine:
        return MemoryEngine.build(
            settings,
            self._registry,
            self._db,
            self._plugins,
            previous,
            context=self._context,
            settle_vector_space=settle_vector_space,
        )

    def _swap(self, memory: MemoryEngine) -> None:
        old, self._memory = self._memory, memory
        self._retire_later(old, memory)

    @staticmethod
    def _retire_later(old: MemoryEngine, successor: MemoryEngine) -> None:
        timer = threading.Timer(RETIRE_SECONDS, old.retire, kwargs={"successor": successor})
        timer.daemon = True
        timer.start()

    def _load(self) -> tuple[dict[str, Any], str | None]:
        with self._db.connect() as conn:
            row = conn.execute(select(kv.c.value, kv.c.updated_at).where(kv.c.key == OVERRIDES_KEY)).first()
        if row is None:
            return {}, None
        return dict(row.value or {}), str(row.updated_at)

    def _store(self, overrides: dict[str, Any]) -> str:
        now = utcnow()
        with self._db.begin() as conn:
            changed = conn.execute(update(kv).where(kv.c.key == OVERRIDES_KEY).values(value=overrides, updated_at=now))
            if not changed.rowcount:
                conn.execute(insert(kv).values(key=OVERRIDES_KEY, value=overrides, updated_at=now))
            stored = conn.execute(select(kv.c.updated_at).where(kv.c.key == OVERRIDES_KEY)).scalar()
        return str(stored)
