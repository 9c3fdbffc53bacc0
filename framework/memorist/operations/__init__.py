"""The operations layer: one place for what every door does.

Doors (both HTTP surfaces, the queue worker, the dashboard, MCP, the Python
facade) translate their wire format into the typed inputs here and call
:class:`Operations`; scope rules, limits and result shapes live here once.
"""

from __future__ import annotations

from .caller import Caller
from .inputs import ENTITY_FIELDS, UNSET, AddInput, EntityIds, ListInput, SearchInput, UpdateInput
from .queued import LeaseLost, run_add_event
from .results import AddedMemory, AddedMemoryEvent, AddedMemoryV3, AddResult, EventOut
from .service import Operations
from .wire import EntityOut, EntityV1, HistoryEntry, HistoryEntryV1, MemoryItem, SearchResult, iso

__all__ = [
    "ENTITY_FIELDS",
    "UNSET",
    "AddInput",
    "AddResult",
    "AddedMemory",
    "AddedMemoryEvent",
    "AddedMemoryV3",
    "Caller",
    "EntityIds",
    "EntityOut",
    "EntityV1",
    "EventOut",
    "HistoryEntry",
    "HistoryEntryV1",
    "LeaseLost",
    "ListInput",
    "MemoryItem",
    "Operations",
    "SearchInput",
    "SearchResult",
    "UpdateInput",
    "iso",
    "run_add_event",
]
