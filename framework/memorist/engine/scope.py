"""Scope filters and time parsing shared by the engine's operations."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from dateutil import parser as date_parser

from ..errors import ValidationError
from ..filters import And, Condition, Filter, Not, Or, conjoin
from ..records import ENTITY_SCOPE_FIELDS, Scope, utcnow


def exact_scope(scope: Scope) -> Filter:
    """Records in exactly this scope: same org/project and the same entity ids (unset = unset)."""
    items: list[Filter] = [
        Condition("org_id", "eq", scope.org_id),
        Condition("project_id", "eq", scope.project_id),
    ]
    for field in ENTITY_SCOPE_FIELDS:
        value = getattr(scope, field)
        items.append(Condition(field, "eq", value) if value is not None else Not(Condition(field, "exists")))
    return And(tuple(items))


def tenant(org_id: str, project_id: str) -> Filter:
    return And((Condition("org_id", "eq", org_id), Condition("project_id", "eq", project_id)))


def not_expired(now: datetime | None = None) -> Filter:
    moment = now or utcnow()
    return Or((Not(Condition("expires_at", "exists")), Condition("expires_at", "gt", moment)))


def visible(where: Filter | None, org_id: str, project_id: str, show_expired: bool) -> Filter:
    """A caller's filter confined to its tenant, hiding expired memories unless asked."""
    return conjoin(tenant(org_id, project_id), where, None if show_expired else not_expired())


def equality_values(where: Filter | None, field: str) -> list[str]:
    """Values a filter pins ``field`` to at its top level (for entity-graph lookups)."""
    if where is None:
        return []
    items = where.items if isinstance(where, And) else (where,)
    out: list[str] = []
    for item in items:
        if isinstance(item, Condition) and item.field == field:
            if item.op == "eq" and isinstance(item.value, str):
                out.append(item.value)
            elif item.op == "in":
                out.extend(str(v) for v in item.value)
        elif isinstance(item, And):
            out.extend(equality_values(item, field))
    return out


def parse_moment(value: Any, field: str, *, end_of_day: bool = False) -> datetime | None:
    """A timezone-aware datetime from an ISO string, a date, epoch seconds or a datetime."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time.max if end_of_day else time.min, tzinfo=UTC)
    if isinstance(value, bool):
        raise ValidationError(f"{field}: expected a date-time, got a boolean")
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            raise ValidationError(f"{field}: {value} is not a valid epoch time") from None
    if isinstance(value, str):
        try:
            parsed = date_parser.isoparse(value)
        except ValueError:
            try:
                parsed = date_parser.parse(value)
            except (ValueError, OverflowError):
                raise ValidationError(f"{field}: '{value[:64]}' is not a date-time") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise ValidationError(f"{field}: expected a date-time string")
