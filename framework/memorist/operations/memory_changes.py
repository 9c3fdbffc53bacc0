"""The change operations: update and delete, one memory, several, or an entity's all.

A mixin of :class:`~.service.Operations` (kept apart so each module stays
small). A confined caller (:attr:`~.caller.Caller.pinned`) changes only memories
it may read: each id is looked up through :meth:`~.service.Operations.get` first,
so another user's memory answers 404 as a missing one does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..auth.errors import PermissionDenied
from ..auth.roles import Role
from ..engine.scope import WILDCARD, require_entity
from ..errors import NotFoundError, ValidationError
from ..queue.events import EventStore
from ..records import MemoryRecord
from .authorize import requires
from .caller import Caller
from .confine import confined_ids
from .inputs import ENTITY_FIELDS, EntityIds, UpdateInput

if TYPE_CHECKING:
    from ..engine.memory import MemoryEngine


class MemoryChangeOperations:
    """Update and delete for a caller. What it uses of :class:`~.service.Operations` is
    declared for the type checker only."""

    _events: EventStore | None

    if TYPE_CHECKING:

        def engine_of(self, caller: Caller) -> MemoryEngine: ...

        def get(self, caller: Caller, memory_id: str) -> MemoryRecord: ...

    @requires(Role.OWNER)
    def update(self, caller: Caller, memory_id: str, request: UpdateInput) -> MemoryRecord:
        request.check()
        if caller.pinned:
            self.get(caller, memory_id)
        return self.engine_of(caller).update(
            memory_id,
            text=request.text,
            metadata=request.metadata,
            expiration_date=request.expiration_date,
            timestamp=request.timestamp,
            **caller.tenant,
            actor=caller.actor,
        )

    @requires(Role.OWNER)
    def update_many(self, caller: Caller, changes: Sequence[tuple[str, UpdateInput]]) -> int:
        """Several updates; every memory must exist and every change be valid before any is made."""
        for memory_id, _ in changes:
            self.get(caller, memory_id)
        for memory_id, request in changes:
            try:
                request.check()
            except ValidationError as exc:
                raise ValidationError(f"memories: {memory_id}: {exc.message}") from None
        for memory_id, request in changes:
            self.update(caller, memory_id, request)
        return len(changes)

    @requires(Role.OWNER)
    def delete(self, caller: Caller, memory_id: str, *, delete_linked: bool = False) -> MemoryRecord:
        """One memory; ``delete_linked``: the older ones it superseded too, transitively."""
        if caller.pinned:
            self.get(caller, memory_id)
        return self.engine_of(caller).delete(
            memory_id,
            org_id=caller.org_id,
            project_id=caller.project_id,
            actor=caller.actor,
            delete_linked=delete_linked,
        )

    @requires(Role.OWNER)
    def delete_many(self, caller: Caller, memory_ids: Sequence[str]) -> int:
        """Several deletes; every memory must exist before any is deleted (a repeated id counts once)."""
        memory = self.engine_of(caller)
        for memory_id in memory_ids:
            self.get(caller, memory_id)
        for memory_id in memory_ids:
            try:
                memory.delete(memory_id, org_id=caller.org_id, project_id=caller.project_id, actor=caller.actor)
            except NotFoundError:
                pass  # listed twice
        return len(memory_ids)

    @requires(Role.OWNER)
    def delete_all(
        self,
        caller: Caller,
        ids: EntityIds,
        filters: dict[str, Any] | None = None,
    ) -> int:
        """Every memory of an entity (never capped); the scope rule applies.

        ``"*"`` for an id is mem0's wildcard: every memory *of that entity type* in the
        caller's project (``user_id="*"``: every memory that has a user id). Several
        wildcards add their types together (all four: the whole project, since every
        memory has at least one id); a concrete id given beside them still narrows.
        ``filters`` (a mem0 filter document) narrows the same way. A wildcard or a
        filter-only delete reaches beyond one named entity: only a caller that
        :attr:`~.caller.Caller.may_span` (an unconfined OWNER or admin) may do that;
        one who may not gets a 403 saying so, never a quiet ``deleted: 0``.

        The entity's adds accepted before are stopped first, so none brings a memory back
        afterwards: queued ones are cancelled, running ones are told to stop and their
        workers remove what they wrote (:meth:`memorist.queue.events.EventStore.cancel_queued`).
        What those adds may already have written, uncommitted, goes from the store only.
        """
        require_entity(ids.all(), filters=filters, filters_allowed=filters is not None)
        wild = ids.wildcards()
        concrete = {f: v for f, v in ids.present().items() if f not in wild}
        if (wild or not concrete) and not caller.may_span:
            reach = " and ".join(f"{f}='*'" for f in wild) or "a delete by filters alone"
            raise PermissionDenied(
                f"{reach} deletes the memories of every entity it matches: only an admin may do that; "
                "name one entity (e.g. user_id=alice) instead"
            )
        ids = confined_ids(caller, ids)
        unfinished: tuple[str, ...] = ()
        if self._events is not None and ids.present():
            unfinished = self._events.cancel_queued(caller.org_id, caller.project_id, ids.present()).unfinished_ids
        return self.engine_of(caller).delete_all(
            filters,
            **ids.present(),  # "*" included: the engine's wildcard_scope reads it
            org_id=caller.org_id,
            project_id=caller.project_id,
            actor=caller.actor,
            unfinished=unfinished,
        )

    @requires(Role.OWNER)
    def delete_entity(self, caller: Caller, entity_type: str, entity_id: str) -> int:
        """An entity named by a path (``user``/``alice``) and all its memories."""
        if entity_id == WILDCARD:
            raise ValidationError(
                f"entity_id: '*' is the wildcard, not an entity; to delete the memories of every {entity_type}, "
                f"delete all memories with {ENTITY_FIELDS.get(entity_type, entity_type + '_id')}=* (admins/owners only)"
            )
        return self.delete_all(caller, EntityIds.entity(entity_type, entity_id))
