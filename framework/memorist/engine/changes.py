"""Explicit changes to stored memories (update, delete, purge, reset) and what keeps them coherent.

A memory lives in several places at once: its vector and record in the vector
store, its history rows, its scope's counts, its entity links, the scope
generations every process's snapshots check, this process's scope index, and
the plugins' lifecycle hooks. Extraction never edits or deletes; these changes
come only from a caller, and each must reach every one of those places in the
right order. :class:`MemoryChanges` holds that order, apart from
:class:`~.memory.Memory`, which keeps the doors: argument checks, scope and
filter parsing, and the lookups that confine a change to the caller's project.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..db import Database
from ..filters import Filter
from ..records import MemoryRecord
from .components import Components
from .counts import ScopeCounts
from .decay import MemoryUsage
from .entities import EntityGraph
from .generations import ScopeGenerations, record_keys
from .history import HistoryLog
from .open_questions import OpenQuestions
from .purge import project_scope_keys, purge_memories, purge_rows
from .scope import visible
from .scope_index import ScopeIndex
from .supersession import SupersessionLog

#: Memories per batch of a delete that matches many (one transaction and store delete each).
DELETE_BATCH = 500


class MemoryChanges:
    """Updates and deletes that reach the store, the relational rows, the scope snapshots and the hooks.

    ``emit(hook, **kwargs)`` calls a lifecycle hook (the engine's, which logs a failing plugin).
    """

    def __init__(
        self,
        components: Components,
        db: Database,
        graph: EntityGraph,
        history_log: HistoryLog,
        counts: ScopeCounts,
        generations: ScopeGenerations,
        index: ScopeIndex | None,
        emit: Callable[..., None],
    ) -> None:
        self.components = components
        self.db = db
        self.graph = graph
        self.history_log = history_log
        self.counts = counts
        self.generations = generations
        self.index = index
        self.emit = emit
        #: Which memory replaced which: a deleted memory's rows go with it.
        self.supersessions = SupersessionLog(db)
        self.usage = MemoryUsage(db)
        #: Conversations' open questions: they go with the memories (their text may hold the user's).
        self.questions = OpenQuestions(db, generations)

    def rewrite(self, previous: MemoryRecord, changes: dict[str, Any], actor: str | None) -> MemoryRecord:
        """Store ``previous`` with ``changes`` applied (re-embedded; its entity links redone when its
        text changed) and record the update; the new record."""
        record = previous.model_copy(update=changes)
        vector = self.components.embedder.embed([record.text], "document")
        self.components.vector_store.upsert([record], vector)
        with self.db.begin() as conn:
            self.history_log.record([HistoryLog.row("UPDATE", record, previous, actor=actor)], conn)
            self.generations.bump(conn, [record, previous])
            if "text" in changes:
                self.graph.unlink([record.id], conn)
                self.graph.link(record, self.components.entity_extractor.extract(record.text), conn)
        if self.index is not None:
            self.index.dropped([record])
        self.emit("memory_updated", memory=record, previous=previous)
        return record

    def delete_matching(self, where: Filter, actor: str | None) -> int:
        """Delete every memory ``where`` accepts, batch after batch; never capped. Returns the count."""
        deleted = 0
        while batch := self.components.vector_store.list(where, 0, DELETE_BATCH):
            self.delete_records(batch, actor)
            deleted += len(batch)
        return deleted

    def delete_records(self, records: list[MemoryRecord], actor: str | None) -> None:
        """Delete stored memories: their history, counts and entity links, then their vectors."""
        ids = [r.id for r in records]
        with self.db.begin() as conn:
            self.history_log.record([HistoryLog.row("DELETE", r, r, actor=actor) for r in records], conn)
            self.counts.adjust(conn, records, -1)
            self.graph.unlink(ids, conn)
            self.supersessions.forget(ids, conn)
            self.usage.forget(ids, conn)
        self.components.vector_store.delete(ids)
        # After the delete, not with the relational rows: a search that reloads the scope
        # between the two must not cache the deleted rows under the new generation.
        self.generations.bump_now(records)
        self.questions.forget(record_keys(records))
        if self.index is not None:
            self.index.dropped(records)
        for record in records:
            self.emit("memory_deleted", memory=record)

    def drop_unrecorded(self, memory_ids: Sequence[str]) -> int:
        """Remove vectors an unfinished queued add wrote before its relational rows, which never
        committed (the add was cancelled or is being redone): from the store only, as no history
        row, count or entity link records them. Searches stop seeing them as after any delete
        (the scope generations are bumped after the store delete). Returns how many were there."""
        if not memory_ids:
            return 0
        store = self.components.vector_store
        records = store.get(list(memory_ids))
        if not records:
            return 0
        store.delete([r.id for r in records])
        self.generations.bump_now(records)
        if self.index is not None:
            self.index.dropped(records)
        return len(records)

    def purge_project(self, org_id: str, project_id: str, actor: str | None = None) -> int:
        """Delete every memory of a project (expired ones too), then its history, entities and counts."""
        where = visible(None, org_id, project_id, show_expired=True)
        store = self.components.vector_store
        deleted = purge_memories(lambda n: store.list(where, 0, n), lambda b: self.delete_records(list(b), actor))
        purge_rows(self.db, org_id, project_id)
        self.questions.forget_project(org_id, project_id)
        with self.db.begin() as conn:
            self.generations.bump_keys(conn, project_scope_keys(self.db, org_id, project_id))
        return deleted

    def reset(self) -> None:
        """Delete every memory, entity and history row (all organizations and projects)."""
        self.components.vector_store.reset()
        self.graph.clear()
        self.history_log.clear()
        self.counts.clear()
        self.questions.clear()
        self.supersessions.clear()
        self.usage.clear()
        # Last: a search reloading a scope before this must not keep the old graph either.
        self.generations.bump_everything()
