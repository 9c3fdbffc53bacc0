"""The project-wide operations: counts, collections, feedback, exports, summaries, add events.

A mixin of :class:`~.service.Operations` (kept apart so each module stays
small). Exports, summaries and event lists read a whole project: a caller
confined to one user (:attr:`~.caller.Caller.pinned`) is refused them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..auth.errors import PermissionDenied
from ..auth.roles import Role
from ..errors import NotFoundError
from ..queue.events import Event, EventStore
from . import extras
from .authorize import requires
from .caller import Caller
from .export_store import ExportStore

if TYPE_CHECKING:
    from ..engine.memory import MemoryEngine
    from ..records import MemoryRecord


def unconfined(caller: Caller, what: str) -> None:
    """403 for a caller confined to one user (or agent) asking for something project-wide."""
    if caller.pinned:
        confined = ", ".join(f"{k}='{v}'" for k, v in caller.pinned.items())
        raise PermissionDenied(f"{what} reads the whole project; these credentials are confined to {confined}")


class ProjectData:
    """Counts, collections, feedback, exports, summaries and events of the caller's project.

    What it uses of :class:`~.service.Operations` is declared for the type checker only."""

    _exports: ExportStore | None

    if TYPE_CHECKING:

        @property
        def events(self) -> EventStore: ...

        def engine_of(self, caller: Caller) -> MemoryEngine: ...

        def get(self, caller: Caller, memory_id: str) -> MemoryRecord: ...

    @requires(Role.READER)
    def collect(
        self, caller: Caller, filters: dict[str, Any] | None, *, limit: int, show_expired: bool
    ) -> list[MemoryRecord]:
        """Up to ``limit`` of the caller's memories matching ``filters``, newest first (exports, summaries)."""
        unconfined(caller, "collecting memories by filters")
        memory = self.engine_of(caller)
        records: list[MemoryRecord] = []
        size = min(limit, 1000)
        page = 1
        while True:
            batch = memory.list(
                filters,
                org_id=caller.org_id,
                project_id=caller.project_id,
                page=page,
                page_size=size,
                show_expired=show_expired,
            )
            records.extend(batch.records)
            if len(records) >= limit or len(batch.records) < size:
                return records[:limit]
            page += 1

    @requires(Role.READER)
    def count(self, caller: Caller, filters: dict[str, Any] | None, *, show_expired: bool) -> int:
        unconfined(caller, "counting memories by filters")
        page = self.engine_of(caller).list(
            filters, org_id=caller.org_id, project_id=caller.project_id, page_size=1, show_expired=show_expired
        )
        return page.total

    @requires(Role.READER)
    def feedback(
        self, caller: Caller, memory_id: str, value: str | None, reason: str | None, user_id: str | None
    ) -> dict[str, Any]:
        """A member's feedback on one memory of the project (404 when it is not the project's)."""
        memory = self.engine_of(caller)
        self.get(caller, memory_id)
        return extras.record_feedback(memory.db, caller, memory_id, value, reason, user_id)

    @requires(Role.READER)
    def export(self, caller: Caller, filters: dict[str, Any] | None, schema: Any) -> tuple[str, int]:
        """Build and keep an export of the memories matching ``filters`` (expired included); id and count."""
        unconfined(caller, "an export")
        extras.check_export_size(self.count(caller, filters, show_expired=True))
        if self._exports is not None:
            self._exports.admit(caller.org_id, caller.project_id)  # 429 past the hourly quota, before any work
        records = self.collect(caller, filters, limit=extras.MAX_EXPORT, show_expired=True)
        if self._exports is None:
            return extras.store_export(self.engine_of(caller).db, caller, filters, schema, records), len(records)
        row = self._exports.save(caller.org_id, caller.project_id, filters or {}, extras.export_result(schema, records))
        return str(row["id"]), len(records)

    @requires(Role.READER)
    def find_export(self, caller: Caller, export_id: str | None, filters: dict[str, Any] | None) -> dict[str, Any]:
        if self._exports is None:
            return extras.find_export(self.engine_of(caller).db, caller, export_id, filters)
        return extras.export_view(self._exports.find(caller.org_id, caller.project_id, export_id, filters), export_id)

    @requires(Role.READER)
    def summarize(
        self, caller: Caller, filters: dict[str, Any] | None, *, limit: int, settings: dict[str, Any]
    ) -> extras.Summary:
        """The newest ``limit`` memories matching ``filters`` summarized, oldest first."""
        unconfined(caller, "a summary")
        records = self.collect(caller, filters, limit=min(limit, extras.MAX_SUMMARY_MEMORIES), show_expired=False)
        records.reverse()  # oldest first reads as a story
        return extras.summarize(self.engine_of(caller).components.language_model, records, settings)

    # -- events --------------------------------------------------------------------------
    @requires(Role.READER)
    def event(self, caller: Caller, event_id: str) -> Event:
        """One add's event; a confined caller sees only its own (else 404, as a missing one)."""
        event = self.events.get(event_id, caller.org_id, caller.project_id)
        if any(event.payload.get(name) != value for name, value in caller.pinned.items()):
            raise NotFoundError(f"event '{event_id}' not found")
        return event

    @requires(Role.READER)
    def list_events(self, caller: Caller, page: int, page_size: int) -> tuple[list[Event], int]:
        unconfined(caller, "listing the project's events")
        return self.events.list(caller.org_id, caller.project_id, (page - 1) * page_size, page_size)
