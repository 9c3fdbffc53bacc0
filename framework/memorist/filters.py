"""The filter language shared by every vector store.

Filters arrive as JSON (``{"user_id": "alice"}``, ``{"AND": [...]}``,
``{"metadata.topic": {"in": ["a", "b"]}}``) and are parsed once into a small
tree. Stores compile the tree to their own query language; :func:`evaluate`
is the reference semantics they are tested against, and the fallback for
conditions a store cannot push down.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from typing import Any, Literal, TypeAlias

from .errors import InvalidFilterError
from .records import SCOPE_FIELDS, MemoryRecord

Operator = Literal["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains", "exists"]
OPERATORS: frozenset[str] = frozenset(["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains"])
DATE_FIELDS: frozenset[str] = frozenset(["created_at", "updated_at", "observed_at", "expires_at"])
#: The memory's text: ``memory`` on the wire (the name every answer uses), ``text`` in records and stores.
#: Meant for ``contains``/``icontains`` (a full-text filter: "memories whose text contains these words").
TEXT_FIELD = "text"
TEXT_ALIASES: frozenset[str] = frozenset(["memory", "text"])
PLAIN_FIELDS: frozenset[str] = frozenset(
    [*SCOPE_FIELDS, "id", "hash", "categories", "attributed_to", "speaker", TEXT_FIELD, *DATE_FIELDS]
)
#: Bounds that keep a hostile filter from costing unbounded work (400 naming the bound past any):
#: nesting, conditions, values (each scalar, and each element of an ``in``/``nin`` list, counts
#: one: a condition alone says little about cost when one ``in`` can hold thousands), and bytes
#: of the field names and string values together.
MAX_DEPTH = 32
MAX_CONDITIONS = 512
MAX_FILTER_VALUES = 1_000
MAX_FILTER_BYTES = 64 * 1024


@dataclass(frozen=True)
class Condition:
    """``field op value``; ``exists`` is what the ``*`` wildcard means."""

    field: str
    op: Operator
    value: Any = None
    #: ``in``/``nin`` values as a set, so matching a record costs one lookup, not a scan of the list.
    members: frozenset[Any] | None = dataclass_field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.op in ("in", "nin"):
            try:
                object.__setattr__(self, "members", frozenset(self.value))
            except TypeError:  # an unhashable value: matched by scanning the list
                pass


@dataclass(frozen=True)
class And:
    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Or:
    items: tuple[Filter, ...]


@dataclass(frozen=True)
class Not:
    item: Filter


Filter: TypeAlias = Condition | And | Or | Not


def is_metadata_field(field: str) -> bool:
    return field.startswith("metadata.") and len(field) > len("metadata.")


def _check_field(field: str) -> None:
    if field in PLAIN_FIELDS or is_metadata_field(field):
        return
    known = ", ".join(sorted(PLAIN_FIELDS | TEXT_ALIASES))
    raise InvalidFilterError(f"unknown filter field '{field}'; use one of {known} or metadata.<key>")


def _coerce_value(field: str, op: str, value: Any) -> Any:
    if op in ("in", "nin"):
        if not isinstance(value, list):
            raise InvalidFilterError(f"filter '{field}': operator '{op}' needs a list")
        return tuple(_coerce_scalar(field, v) for v in value)
    if op in ("contains", "icontains") and not isinstance(value, str | int | float):
        raise InvalidFilterError(f"filter '{field}': operator '{op}' needs a string")
    return _coerce_scalar(field, value)


def _coerce_scalar(field: str, value: Any) -> Any:
    if field in DATE_FIELDS and isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidFilterError(f"filter '{field}': '{value}' is not an ISO date") from exc
        if parsed.tzinfo is None:
            from datetime import UTC

            parsed = parsed.replace(tzinfo=UTC)
        return parsed
    if isinstance(value, dict | list):
        raise InvalidFilterError(f"filter '{field}': value must be a scalar")
    if field in SCOPE_FIELDS and value is not None and not isinstance(value, str):  # 123 would match nothing
        raise InvalidFilterError(f"filters.{field}: must be a string, got {type(value).__name__} {value!r}")
    return value


class _Parser:
    def __init__(self) -> None:
        self.conditions = 0
        self.values = 0
        self.bytes = 0

    def count(self, field: str, value: Any) -> None:
        """Add a condition's values and bytes to the filter's totals; 400 past a bound."""
        items = value if isinstance(value, list) else [value]
        self.values += len(items)
        self.bytes += len(field.encode("utf-8", "surrogatepass"))
        for item in items:
            if isinstance(item, str):
                self.bytes += len(item.encode("utf-8", "surrogatepass"))
        if self.values > MAX_FILTER_VALUES:
            raise InvalidFilterError(
                f"filter has more than {MAX_FILTER_VALUES} values (MAX_FILTER_VALUES; each element of an "
                "'in' or 'nin' list counts), narrow it or split the request"
            )
        if self.bytes > MAX_FILTER_BYTES:
            raise InvalidFilterError(
                f"filter has more than {MAX_FILTER_BYTES} bytes of field names and values (MAX_FILTER_BYTES), "
                "narrow it or split the request"
            )

    def parse(self, raw: Any, depth: int) -> Filter:
        if depth > MAX_DEPTH:
            raise InvalidFilterError(f"filter nesting deeper than {MAX_DEPTH} levels")
        if not isinstance(raw, Mapping):
            raise InvalidFilterError("a filter must be a JSON object")
        items: list[Filter] = []
        for key, value in raw.items():
            upper = key.upper() if isinstance(key, str) else key
            if upper in ("AND", "OR"):
                if not isinstance(value, list) or not value:
                    raise InvalidFilterError(f"filter '{key}' needs a non-empty list")
                children = tuple(self.parse(v, depth + 1) for v in value)
                items.append(And(children) if upper == "AND" else Or(children))
            elif upper == "NOT":
                if isinstance(value, list):
                    if not value:
                        raise InvalidFilterError("filter 'NOT' needs an object or non-empty list")
                    inner: Filter = And(tuple(self.parse(v, depth + 1) for v in value))
                else:
                    inner = self.parse(value, depth + 1)
                items.append(Not(inner))
            else:
                items.extend(self.field(str(key), value))
        if not items:
            return And(())
        return items[0] if len(items) == 1 else And(tuple(items))

    def field(self, field: str, value: Any) -> list[Filter]:
        if field == "metadata" and isinstance(value, Mapping):
            out: list[Filter] = []
            for k, v in value.items():
                out.extend(self.field(f"metadata.{k}", v))
            return out
        if field in TEXT_ALIASES:
            field = TEXT_FIELD
        _check_field(field)
        if isinstance(value, Mapping):
            if not value:
                raise InvalidFilterError(f"filter '{field}': empty operator object")
            return [self.condition(field, str(op), v) for op, v in value.items()]
        return [self.condition(field, "eq", value)]

    def condition(self, field: str, op: str, value: Any) -> Condition:
        self.conditions += 1
        if self.conditions > MAX_CONDITIONS:
            raise InvalidFilterError(f"filter has more than {MAX_CONDITIONS} conditions (MAX_CONDITIONS)")
        self.count(field, value)
        if op not in OPERATORS:
            raise InvalidFilterError(
                f"filter '{field}': unknown operator '{op}'; use one of {', '.join(sorted(OPERATORS))}"
            )
        if op == "eq" and value == "*":
            return Condition(field, "exists")
        return Condition(field, op, _coerce_value(field, op, value))  # type: ignore[arg-type]


def parse_filter(raw: Mapping[str, Any] | None) -> Filter:
    """Parse a JSON filter into a tree; raises :class:`InvalidFilterError` naming the problem."""
    return _Parser().parse(raw or {}, 0)


def conjoin(*filters: Filter | None) -> Filter:
    """AND together filters, flattening nested ANDs and dropping empty ones."""
    items: list[Filter] = []
    for f in filters:
        if f is None:
            continue
        if isinstance(f, And):
            items.extend(f.items)
        else:
            items.append(f)
    return items[0] if len(items) == 1 else And(tuple(items))


def field_value(record: MemoryRecord, field: str) -> Any:
    if is_metadata_field(field):
        value: Any = record.metadata
        for part in field[len("metadata.") :].split("."):
            if not isinstance(value, Mapping) or part not in value:
                return None
            value = value[part]
        return value
    return getattr(record, field)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _compare(actual: Any, op: str, expected: Any, members: frozenset[Any] | None = None) -> bool:
    if op == "exists":
        return actual is not None and actual != []
    if isinstance(actual, list):  # categories and list-valued metadata: any element matches
        if op in ("ne", "nin"):
            return all(_compare(a, op, expected, members) for a in actual)
        return any(_compare(a, op, expected, members) for a in actual)
    if op == "eq":
        return bool(actual == expected)
    if op == "ne":
        return bool(actual != expected)
    if op in ("in", "nin"):
        found = actual in members if members is not None and _hashable(actual) else actual in expected
        return found if op == "in" else not found
    if op in ("contains", "icontains"):
        if actual is None:
            return False
        a, e = str(actual), str(expected)
        return e.casefold() in a.casefold() if op == "icontains" else e in a
    if actual is None:
        return False
    try:
        if op == "gt":
            return bool(actual > expected)
        if op == "gte":
            return bool(actual >= expected)
        if op == "lt":
            return bool(actual < expected)
        if op == "lte":
            return bool(actual <= expected)
    except TypeError:
        return False
    raise InvalidFilterError(f"unknown operator '{op}'")


def evaluate(node: Filter, record: MemoryRecord) -> bool:
    """Whether ``record`` matches ``node``: the reference semantics of the language."""
    if isinstance(node, Condition):
        return _compare(field_value(record, node.field), node.op, node.value, node.members)
    if isinstance(node, And):
        return all(evaluate(i, record) for i in node.items)
    if isinstance(node, Or):
        return any(evaluate(i, record) for i in node.items)
    return not evaluate(node.item, record)
