"""Keeping a caller inside its pinned identifiers (a self-hosted user's key, a scoped MCP connection).

:class:`~.service.Operations` runs every input through these before the
engine sees it, so each door gets the same confinement without checking it:
a pinned identifier is filled in when a call omits it and refused (400 naming
it) when a call names another value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from ..engine.counts import EntityCount
from ..engine.memory_reads import Page
from ..records import ENTITY_SCOPE_FIELDS, ENTITY_TYPES
from .caller import Caller
from .inputs import AddInput, EntityIds, ListInput, SearchInput

#: How many of a confined caller's memories its entity list reads (newest first).
ENTITY_SCAN_LIMIT = 5000
SCAN_PAGE = 1000
Request = TypeVar("Request", AddInput, SearchInput, ListInput)


def confined_ids(caller: Caller, ids: EntityIds) -> EntityIds:
    """``ids`` with the caller's pins (and defaults) applied; ScopeError naming a field that leaves them."""
    if not caller.pinned and not caller.defaults:
        return ids
    return EntityIds(**caller.ids(ids.all()))


def confined_add(caller: Caller, request: Request) -> Request:
    """An add, search or list input with its identifiers confined to the caller."""
    ids = confined_ids(caller, request.ids)
    return request if ids is request.ids else replace(request, ids=ids)


def entity_tally(caller: Caller, list_page: Callable[[ListInput], Page]) -> tuple[list[EntityCount], int, int]:
    """The users, agents, runs and apps of a confined caller's own memories, with counts.

    The project's entity counts cover every user, so a confined caller's list is
    counted from its memories instead (the newest :data:`ENTITY_SCAN_LIMIT`).
    Answers the counts, how many memories were read and how many there are.
    """
    tally: dict[tuple[str, str], tuple[int, datetime, datetime]] = {}
    page, seen, total = 1, 0, 0
    while seen < ENTITY_SCAN_LIMIT:
        batch = list_page(ListInput(ids=EntityIds(**caller.pinned), page=page, page_size=SCAN_PAGE))
        total = batch.total
        for record in batch.records:
            for name in ENTITY_SCOPE_FIELDS:
                if (value := getattr(record, name)) is not None:
                    key = (ENTITY_TYPES[name], value)
                    n, first, last = tally.get(key, (0, record.created_at, record.updated_at))
                    tally[key] = (n + 1, min(first, record.created_at), max(last, record.updated_at))
        seen += len(batch.records)
        if len(batch.records) < SCAN_PAGE:
            break
        page += 1
    counts = [EntityCount(t, i, n, first, last) for (t, i), (n, first, last) in sorted(tally.items())]
    return counts, seen, total
