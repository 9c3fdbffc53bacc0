"""A scope's memories in stored order (``VectorStore.sequence``), read lean and cached.

Why cached: search asks for its scope's order on every query (the conversational
context signal), reading it costs ~9 ms per 1,000 rows, and any write moves the
table version on; so the ids are kept per filter and limit together with the
version they were read at, and a read at another version reads again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from .sql import TRUE

#: Scopes whose stored order is kept, least recently used dropped first.
CACHED_SCOPES = 256

_Key = tuple[str, int | None]


class StoredOrder:
    """Ids in stored order per (SQL filter, limit), valid for one table version each."""

    def __init__(self, size: int = CACHED_SCOPES) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._cached: OrderedDict[_Key, tuple[int, list[str] | None]] = OrderedDict()

    def ids(self, table: Any, sql: str, limit: int | None) -> list[str] | None:
        """The ids ``sql`` selects, oldest first (created, then updated, then id); None
        when there are more than ``limit``."""
        version = table.version
        key = (sql, limit)
        with self._lock:
            cached = self._cached.get(key)
            if cached is not None and cached[0] == version:
                self._cached.move_to_end(key)
                return cached[1]
        ids = read_order(table, sql, limit)
        with self._lock:
            self._cached[key] = (version, ids)
            while len(self._cached) > self._size:
                self._cached.popitem(last=False)
        return ids


def read_order(table: Any, sql: str, limit: int | None) -> list[str] | None:
    """One scan of three scalar columns: no text, metadata or vectors leave the table."""
    query = table.search().select(["id", "created_at", "updated_at"]).limit(None if limit is None else limit + 1)
    if sql != TRUE:
        query = query.where(sql)
    found = query.to_arrow()
    if limit is not None and found.num_rows > limit:
        return None
    keys = zip(
        found.column("created_at").to_pylist(),
        found.column("updated_at").to_pylist(),
        found.column("id").to_pylist(),
        strict=True,
    )
    return [record_id for _, _, record_id in sorted(keys)]
