"""A throwaway plugin that records memory lifecycle events (what an audit log would see)."""

from __future__ import annotations

from memorist.plugin.hookspecs import hookimpl
from memorist.records import MemoryRecord

EVENTS: list[tuple[str, str, str | None]] = []


@hookimpl
def memory_added(memory: MemoryRecord) -> None:
    EVENTS.append(("added", memory.id, None))


@hookimpl
def memory_updated(memory: MemoryRecord, previous: MemoryRecord) -> None:
    EVENTS.append(("updated", memory.id, previous.text))


@hookimpl
def memory_deleted(memory: MemoryRecord) -> None:
    EVENTS.append(("deleted", memory.id, None))
