"""``SearchHit``: one ranked memory of a search, apart from the search itself.

Its own module so the steps that reorder hits (e.g. :mod:`.versions`) need not
import the search that makes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..records import MemoryRecord


@dataclass
class SearchHit:
    record: MemoryRecord
    score: float
    #: The explain breakdown (semantic, keyword, entity, temporal, context) when asked for.
    details: dict[str, Any] | None = None
