"""The operations layer: one place for what every door does.

Doors (both HTTP surfaces, the queue worker, the dashboard, MCP, the Python
facade) translate their wire format into the typed inputs here and call
:class:`Operations`; scope rules, limits and result shapes live here once.
"""

from __future__ import annotations

from ..auth.roles import MEMBER_ROLES, Role
from .authorize import REQUIRED, authorize, authorize_role, requires
from .caller import Caller, ScopeError, caller_for
from .inputs import ENTITY_TYPES, UNSET, AddInput, EntityIds, ListInput, SearchInput, UpdateInput
from .queued import LeaseLost, run_add_event
from .results import (
    ADDED_EVENT,
    ADDED_PLATFORM,
    ADDED_SELFHOSTED,
    AddResult,
    entity_row,
    event_view,
    history_entry,
    history_entry_v1,
    iso,
    memory_item,
    pick,
    search_result,
)
from .service import Operations

__all__ = [
    "ADDED_EVENT",
    "ADDED_PLATFORM",
    "ADDED_SELFHOSTED",
    "ENTITY_TYPES",
    "UNSET",
    "AddInput",
    "AddResult",
    "Caller",
    "MEMBER_ROLES",
    "REQUIRED",
    "Role",
    "ScopeError",
    "authorize",
    "authorize_role",
    "caller_for",
    "requires",
    "EntityIds",
    "LeaseLost",
    "ListInput",
    "Operations",
    "SearchInput",
    "UpdateInput",
    "entity_row",
    "event_view",
    "history_entry",
    "history_entry_v1",
    "iso",
    "memory_item",
    "pick",
    "run_add_event",
    "search_result",
]
