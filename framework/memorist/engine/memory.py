"""``Memory``: the Python API, and what both HTTP surfaces call.

Every memory lives in a scope: an organization and project (``default`` /
``default`` for embedded and self-hosted use) and any of ``user_id``,
``agent_id``, ``run_id``, ``app_id``. Operations that take a memory id are
confined to the caller's organization and project. The read side (search,
list, get, history) is :class:`~.memory_reads.MemoryReads`, a mixin of the engine.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy.engine import Connection

from ..config.settings import Settings
from ..db import Database
from ..errors import ValidationError
from ..filters import Condition, conjoin
from ..plugin.registry import ProviderRegistry
from ..records import (
    DEFAULT_ORG,
    DEFAULT_PROJECT,
    MemoryRecord,
    normalized_hash,
    utcnow,
)
from . import vector_space
from .add import AddPipeline
from .add_request import AddRequest, build_add_request
from .browse import EntityBrowser
from .changes import MemoryChanges
from .components import Components, build_components
from .counts import ScopeCounts
from .entities import EntityGraph
from .generations import ScopeGenerations, generation_key
from .history import HistoryLog
from .memory_reads import MemoryReads
from .outcome import AddOutcome
from .scope import parse_moment, require_entity, visible, wildcard_scope
from .scope_index import ScopeIndex, carried_index
from .search import HybridSearch

log = logging.getLogger("memorist.engine")
#: Requests per batch of ``Memory.add_many``: one embedder call, vector write and transaction each.
ADD_MANY_CHUNK = 128


class HasHooks(Protocol):
    """What the engine needs of the plugin manager: its hook relay (``Plugins`` has one)."""

    @property
    def hook(self) -> Any: ...


class MemoryEngine(MemoryReads):
    """Long-term memory over the configured providers and relational database."""

    def __init__(
        self,
        settings: Settings,
        components: Components,
        db: Database,
        plugins: HasHooks,
        *,
        context: Any = None,
        scope_index: ScopeIndex | None = None,
    ) -> None:
        self.settings = settings
        self.components = components
        self.db = db
        self.plugins = plugins
        #: What hooks receive as ``context`` (the kernel's plugin context; None for a bare engine).
        self.context = context
        self.graph = EntityGraph(db)
        self.browser = EntityBrowser(db)
        self.history_log = HistoryLog(db)
        self.counts = ScopeCounts(db)
        #: Per-scope write counters that keep every process's scope snapshots coherent.
        self.generations = ScopeGenerations(db)
        engine = settings.engine
        index = scope_index or (
            ScopeIndex(
                components.vector_store,
                self.generations,
                max_rows=engine.scope_index_rows,
                max_scope_rows=engine.scope_index_max_rows,
            )
            if engine.scope_index
            else None
        )
        self.adder = AddPipeline(
            components,
            db,
            self.graph,
            self.history_log,
            self.counts,
            engine.near_duplicate_threshold,
            generations=self.generations,
            index=index,
            source_weight=engine.source_vector_weight,
        )
        self._searcher = HybridSearch(components, self.graph, engine, index)
        #: Updates and deletes, kept coherent across the store and the relational rows.
        self._changes = MemoryChanges(
            components, db, self.graph, self.history_log, self.counts, self.generations, index, self.emit
        )
        # A process killed between an add's vector write and its history rows left an intent behind.
        self.adder.recover()

    # -- construction --------------------------------------------------------------
    @classmethod
    def build(
        cls,
        settings: Settings,
        registry: ProviderRegistry,
        db: Database,
        plugins: HasHooks,
        previous: MemoryEngine | None = None,
        *,
        context: Any = None,
        settle_vector_space: bool = True,
    ) -> MemoryEngine:
        """Build the providers of ``settings`` over an open, migrated database.

        ``previous`` lends its unchanged providers to the new engine (reconfiguration).
        Opening the database and loading plugins is the kernel's job
        (:mod:`memorist.kernel.core`); ``memorist.Memory.from_config`` does both for the Python API.
        The embedder must make vectors in the space the store's vectors are in
        (:mod:`.vector_space`); ``settle_vector_space=False`` leaves that to the caller, which
        must then call :func:`.vector_space.settle` before the engine serves.
        """
        components = build_components(
            settings, registry, (previous.settings, previous.components) if previous else None
        )
        if settle_vector_space:
            try:
                vector_space.settle(db, components.embedder, components.vector_store)
            except Exception:
                components.close(keep=previous.components if previous else None)
                raise
        # A reconfiguration that keeps the embedder and the store (a new language model,
        # reranker or threshold) keeps the scope snapshots too: no user's next search reloads.
        carried = (
            carried_index(previous.scope_index, previous.components, components, settings.engine, db)
            if previous is not None
            else None
        )
        return cls(settings, components, db, plugins, context=context, scope_index=carried)

    def close(self) -> None:
        self.retire()
        self.generations.close()
        self.db.dispose()

    def retire(self, successor: MemoryEngine | None = None) -> None:
        """Release what this engine holds, except providers a ``successor`` engine shares."""
        self._searcher.close()
        self.adder.close()
        index = self._searcher.index
        if index is not None and (successor is None or successor.scope_index is not index):
            index.forget()
        self.components.close(keep=successor.components if successor else None)

    def abandon(self, previous: MemoryEngine | None) -> None:
        """Retire an engine that never served (a refused ``POST /configure``), leaving storage
        as the request found it: a vector store of its own first removes what building it
        created (an empty table, a new directory), then everything ``previous`` does not
        share is closed."""
        store = self.components.vector_store
        if previous is None or store is not previous.components.vector_store:
            store.discard_created()
        self.retire(successor=previous)

    # -- add -----------------------------------------------------------------------
    def add(self, messages: str | Mapping[str, Any] | Sequence[Any], **kwargs: Any) -> list[MemoryRecord]:
        """Extract memories from ``messages`` and store the new ones; returns what was stored.

        Keyword arguments are those of :meth:`add_request`. ``enable_graph`` is
        accepted and ignored: the entity graph is always on.
        """
        return self.add_outcome(self.add_request(messages, **kwargs)).stored

    def add_outcome(self, messages: AddRequest | str | Mapping[str, Any] | Sequence[Any], **kwargs: Any) -> AddOutcome:
        """``add`` with the whole answer: what was stored, merged (with which memory) and
        skipped (and why). Takes a validated :class:`AddRequest` or ``add``'s arguments."""
        request = messages if isinstance(messages, AddRequest) else self.add_request(messages, **kwargs)
        outcome = self.adder.run(request)
        for record in outcome.stored:
            self.emit("memory_added", memory=record)
        return outcome

    def add_many(self, requests: Sequence[AddRequest]) -> list[AddOutcome]:
        """Many validated adds in one call (bulk import), in order; each answers as
        :meth:`add_outcome` would, one after another: the same stored, merged and skipped.

        Done in chunks of ``ADD_MANY_CHUNK`` requests, each with one embedder call, one
        vector write and one relational transaction (see ``AddPipeline.run_many``); a
        chunk that fails stores nothing, the chunks before it stay stored.
        """
        outcomes: list[AddOutcome] = []
        for start in range(0, len(requests), ADD_MANY_CHUNK):
            chunk = self.adder.run_many(requests[start : start + ADD_MANY_CHUNK])
            for outcome in chunk:
                for record in outcome.stored:
                    self.emit("memory_added", memory=record)
            outcomes.extend(chunk)
        return outcomes

    def add_durably(
        self,
        request: AddRequest,
        *,
        discard: Sequence[str] = (),
        plan: Callable[[list[str]], None],
        commit: Callable[[Connection, AddOutcome], None],
    ) -> AddOutcome:
        """An add that survives being killed half-way (the durable queue's worker).

        ``discard``: vector ids an earlier, interrupted attempt wrote (deleted first).
        ``plan(ids)`` is told the ids before any vector is written (it raises to stop);
        ``commit(conn, outcome)`` runs in the transaction of the relational rows, so the
        caller's own status commits with them or not at all (it raises to roll back).
        """
        store = self.components.vector_store
        if discard:
            store.delete(list(discard))
        observed_at, extraction = self.adder.extracted(request)
        with self.adder.guard.hold([request.scope]) as held:  # an identical add racing it sees its writes
            prepared = self.adder.decide(request, observed_at, extraction)
            records, outcome = prepared.records, prepared.outcome
            if records:
                plan([r.id for r in records])
                store.upsert(records, prepared.vectors)
            with held.begin() as conn:
                bumped = self.adder.commit(request, records, conn, prepared.supersessions)
                commit(conn, outcome)
            self.adder.written(records, prepared.vectors, bumped)
        self.adder.note_question(request, prepared.open_question, bumped)
        for record in records:
            self.emit("memory_added", memory=record)
        return outcome

    #: A validated add from ``add``'s keyword arguments (:func:`.add_request.build_add_request`).
    add_request = staticmethod(build_add_request)

    # -- search and read: MemoryReads (.memory_reads) -------------------------------------

    # -- explicit changes (never done by extraction) -----------------------------------
    def update(
        self,
        memory_id: str,
        *,
        text: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        expiration_date: Any = ...,
        timestamp: Any = None,
        org_id: str = DEFAULT_ORG,
        project_id: str = DEFAULT_PROJECT,
        actor: str | None = None,
    ) -> MemoryRecord:
        """Change a memory's text, metadata, expiration (None clears it) or observation time."""
        previous = self.get(memory_id, org_id=org_id, project_id=project_id)
        changes: dict[str, Any] = {"updated_at": utcnow()}
        if text is not None:
            if not text.strip():
                raise ValidationError("text: must not be empty")
            changes.update(text=text.strip(), hash=normalized_hash(text))
        if metadata is not None:
            changes["metadata"] = dict(metadata)
        if expiration_date is not ...:
            changes["expires_at"] = parse_moment(expiration_date, "expiration_date", end_of_day=True)
        if timestamp is not None:
            changes["observed_at"] = parse_moment(timestamp, "timestamp")
        return self._changes.rewrite(previous, changes, actor)

    def delete(
        self,
        memory_id: str,
        *,
        org_id: str = DEFAULT_ORG,
        project_id: str = DEFAULT_PROJECT,
        actor: str | None = None,
        delete_linked: bool = False,
    ) -> MemoryRecord:
        """Delete one memory; ``delete_linked``: the older memories it superseded too, transitively
        (each with its history kept, as any delete keeps it)."""
        record = self.get(memory_id, org_id=org_id, project_id=project_id)
        records = [record]
        if delete_linked:
            chain = self.supersessions.chain(record.id)
            records += [
                r for r in self.components.vector_store.get(chain) if (r.org_id, r.project_id) == (org_id, project_id)
            ]
        self._changes.delete_records(records, actor)
        return record

    def delete_all(
        self,
        filters: Mapping[str, Any] | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        app_id: str | None = None,
        org_id: str = DEFAULT_ORG,
        project_id: str = DEFAULT_PROJECT,
        actor: str | None = None,
        unfinished: Sequence[str] = (),
    ) -> int:
        """Delete every memory matching the identifiers/filters; never capped. Returns the count.

        ``"*"`` for an id is mem0's wildcard (:func:`.scope.wildcard_scope`): every memory of
        that entity type; several add up, and concrete ids beside them narrow.

        ``unfinished``: ids that queued adds stopped by this delete noted before writing
        (:meth:`memorist.queue.events.EventStore.cancel_queued`). Their vectors may be in the store
        with no relational row, since those adds never commit: they are removed from the store
        only (:meth:`drop_unrecorded`), never as stored memories, whose delete would take them
        off entity counts they were never added to.
        """
        ids = dict(user_id=user_id, agent_id=agent_id, run_id=run_id, app_id=app_id)
        require_entity(ids, filters=filters, filters_allowed=True)
        ids, wild = wildcard_scope(ids)
        where = visible(conjoin(self._where(filters, ids), wild), org_id, project_id, show_expired=True)
        if unfinished:
            where = conjoin(where, Condition("id", "nin", tuple(unfinished)))
        deleted = self._changes.delete_matching(where, actor)
        self.drop_unrecorded(unfinished)
        # The entity's open question too, though it had no memory to delete.
        self._changes.questions.forget(
            generation_key(org_id, project_id, field, value) for field, value in ids.items() if value is not None
        )
        return deleted

    def drop_unrecorded(self, memory_ids: Sequence[str]) -> int:
        """Remove vectors an unfinished queued add wrote before its relational rows (see
        :meth:`MemoryChanges.drop_unrecorded`); returns how many were there."""
        return self._changes.drop_unrecorded(memory_ids)

    def purge_project(self, org_id: str, project_id: str, actor: str | None = None) -> int:
        """Delete every memory of a project (expired ones too), then its history, entities and counts."""
        return self._changes.purge_project(org_id, project_id, actor)

    def reset(self) -> None:
        """Delete every memory, entity and history row (all organizations and projects)."""
        self._changes.reset()

    def emit(self, hook: str, **kwargs: Any) -> None:
        """Call a lifecycle hook with this engine's plugin ``context``; a failing plugin is only logged."""
        try:
            getattr(self.plugins.hook, hook)(**kwargs, context=self.context)
        except Exception:  # a plugin's failure must not undo a stored write
            log.exception("plugin hook %s failed", hook)
