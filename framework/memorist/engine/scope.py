"""Scope filters, the scope rule and time parsing shared by the engine's operations.

:func:`require_entity` is *the* "one of user_id / agent_id / run_id / app_id"
check: the engine's add and delete-all, and every door through
:mod:`memorist.operations`, call it, so the rule and its wording live here once.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from typing import Any

from dateutil import parser as date_parser

from ..errors import ValidationError
from ..filters import And, Condition, Filter, Not, Or, conjoin
from ..records import ENTITY_SCOPE_FIELDS, Scope, utcnow

#: The one wording of the scope rule (it names the field a client most often forgot).
SCOPE_REQUIRED = "user_id: one of user_id, agent_id, run_id or app_id is required"
#: The same rule where a filter document may stand in for an identifier.
SCOPE_OR_FILTERS_REQUIRED = "user_id: one of user_id, agent_id, run_id, app_id or filters is required"
#: An entity id of ``"*"`` means "every entity of that type" (mem0's wildcard); it is never an id.
WILDCARD = "*"


def literal_ids(ids: Mapping[str, str | None]) -> None:
    """A 400 when an id an add would store under is the wildcard: ``"*"`` names no one entity."""
    for field, value in ids.items():
        if value == WILDCARD:
            raise ValidationError(
                f"{field}: '*' is the wildcard (every {field.removesuffix('_id')}), not an identifier; "
                "a memory is stored under one named entity"
            )


def wildcard_scope(ids: Mapping[str, str | None]) -> tuple[dict[str, str | None], Filter | None]:
    """A delete-all's ids split into the concrete ones and the filter its wildcards stand for.

    mem0's delete-all semantics (its PR #4103): ``user_id="*"`` is every memory that has a
    user id; several wildcards add up (all four: every memory, since each has at least one
    id), so they are OR-ed, unlike ``"*"`` in a search filter, where each is a condition.
    """
    wild = [f for f, v in ids.items() if v == WILDCARD]
    concrete = {f: (None if v == WILDCARD else v) for f, v in ids.items()}
    if not wild:
        return concrete, None
    conditions = tuple(Condition(f, "exists") for f in wild)
    return concrete, conditions[0] if len(conditions) == 1 else Or(conditions)


def id_condition(field: str, value: str) -> Condition:
    """The condition a top-level entity id pins: equality, or existence for the wildcard."""
    return Condition(field, "exists") if value == WILDCARD else Condition(field, "eq", value)


def require_entity(
    ids: Mapping[str, str | None], *, filters: Any = None, filters_allowed: bool = False
) -> dict[str, str]:
    """The entity identifiers that are set; a 400 naming ``user_id`` when none is.

    ``filters`` (when the operation accepts them) may stand in for an identifier:
    a search or delete-all by metadata alone is allowed, an add never is.
    """
    present = {f: v for f, v in ids.items() if f in ENTITY_SCOPE_FIELDS and v is not None}
    if present or filters:
        return present
    raise ValidationError(SCOPE_OR_FILTERS_REQUIRED if filters_allowed else SCOPE_REQUIRED)


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
