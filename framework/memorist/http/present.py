"""How memories and search hits look on the wire (both surfaces)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..engine.search import SearchHit
from ..records import ENTITY_SCOPE_FIELDS, MemoryRecord


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def memory_item(record: MemoryRecord) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": record.id,
        "memory": record.text,
        "hash": record.hash,
        "metadata": record.metadata,
        "categories": record.categories,
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
        "expiration_date": iso(record.expires_at),
        "attributed_to": record.attributed_to,
    }
    for field in ENTITY_SCOPE_FIELDS:
        item[field] = getattr(record, field)
    return item


def search_result(hit: SearchHit) -> dict[str, Any]:
    item = memory_item(hit.record)
    item["score"] = round(hit.score, 6)
    if hit.details is not None:
        item["score_details"] = hit.details
    return item
