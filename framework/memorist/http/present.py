"""How memories and search hits look on the wire: now in :mod:`memorist.operations.results`."""

from __future__ import annotations

from ..operations.results import iso, memory_item, search_result

__all__ = ["iso", "memory_item", "search_result"]
