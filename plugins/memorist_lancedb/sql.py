"""Compile a :mod:`memorist.filters` tree to LanceDB (DataFusion) SQL.

A filter is compiled to two predicates instead of one:

* ``upper`` is true for *every* row the filter accepts (a superset), and
* ``lower`` is true *only* for rows the filter accepts (a subset).

Where SQL can say exactly what :func:`memorist.filters.evaluate` means (scope
fields, ids, dates, categories, ...), both are the same expression and the
filter is ``exact``: the store can count, page and delete in SQL alone.
Where it cannot (``metadata.*`` lives in a JSON string; ``icontains`` uses
Unicode case folding that SQL ``lower`` only matches for ASCII), the two
differ, the store pushes ``upper`` down to narrow the scan and applies
``evaluate`` in Python to the rows it returns. Carrying both bounds is what
keeps this correct under ``NOT``: the superset of ``NOT x`` is ``NOT`` of the
*subset* of ``x``, never ``NOT`` of its superset.

Every leaf is written to be two-valued (never SQL NULL), because
``NOT (user_id = 'a')`` is NULL for a NULL ``user_id`` in SQL while
``evaluate`` says True. Every literal goes through :func:`quote` or is a
number this module formats itself, so no filter value can change the shape of
the expression.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memorist.plugin_api import DATE_FIELDS, And, Condition, Filter, InvalidFilterError, Not, Or, is_metadata_field

TRUE = "TRUE"
FALSE = "FALSE"
#: Ids per ``id IN (...)`` clause: keeps SQL text bounded for huge batches.
ID_CHUNK = 500

#: String columns that may hold NULL (the rest of the string fields never do).
NULLABLE_STRINGS = frozenset(["user_id", "agent_id", "run_id", "app_id", "attributed_to", "speaker"])
#: String columns that always hold a value.
REQUIRED_STRINGS = frozenset(["id", "hash", "org_id", "project_id", "text"])

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def id_clauses(ids: Sequence[str]) -> Iterator[str]:
    """``id IN (...)`` clauses covering the distinct ``ids``, at most ``ID_CHUNK`` ids each."""
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), ID_CHUNK):
        yield f"id IN ({', '.join(quote(i) for i in unique[start : start + ID_CHUNK])})"


def quote(value: str) -> str:
    """A SQL string literal. DataFusion strings have no backslash escapes, so
    doubling single quotes is the complete escaping (verified for NUL, newlines,
    ``%``, ``_``, ``;``, ``--`` and non-ASCII text)."""
    return "'" + value.replace("'", "''") + "'"


def timestamp_literal(value: datetime) -> str:
    """A UTC microsecond timestamp literal built from an integer, not parsed text."""
    micros = (value - _EPOCH) // _MICROSECOND
    return f"arrow_cast({int(micros)}, 'Timestamp(Microsecond, Some(\"UTC\"))')"


def metadata_json(metadata: dict[str, Any]) -> str:
    """The stored form of ``metadata``; the superset needles below assume it.

    ``ensure_ascii=False`` plus fixed separators make a string value's JSON
    text a per-character function of the value, so ``json.dumps(v)`` appears
    in the document whenever some string in it equals ``v``.
    """
    return json.dumps(metadata, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Bounds:
    """SQL predicates bracketing a filter: ``lower`` ⊆ matches ⊆ ``upper``."""

    upper: str
    lower: str

    @property
    def exact(self) -> bool:
        return self.upper == self.lower


def _exact(sql: str) -> Bounds:
    return Bounds(sql, sql)


def _and(parts: Sequence[str]) -> str:
    if FALSE in parts:
        return FALSE
    kept = [p for p in parts if p != TRUE]
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else "(" + " AND ".join(kept) + ")"


def _or(parts: Sequence[str]) -> str:
    if TRUE in parts:
        return TRUE
    kept = [p for p in parts if p != FALSE]
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else "(" + " OR ".join(kept) + ")"


def _not(sql: str) -> str:
    if sql == TRUE:
        return FALSE
    if sql == FALSE:
        return TRUE
    return f"(NOT {sql})"


def compile_filter(node: Filter | None) -> Bounds:
    """Bounds for ``node``; ``None`` (no filter) is exactly TRUE."""
    if node is None:
        return _exact(TRUE)
    if isinstance(node, And):
        parts = [compile_filter(i) for i in node.items]
        return Bounds(_and([p.upper for p in parts]), _and([p.lower for p in parts]))
    if isinstance(node, Or):
        parts = [compile_filter(i) for i in node.items]
        return Bounds(_or([p.upper for p in parts]), _or([p.lower for p in parts]))
    if isinstance(node, Not):
        inner = compile_filter(node.item)
        return Bounds(_not(inner.lower), _not(inner.upper))
    return _condition(node)


def _condition(cond: Condition) -> Bounds:
    field, op, value = cond.field, cond.op, cond.value
    if is_metadata_field(field):
        return _metadata(field, op, value)
    if field == "categories":
        return _categories(op, value)
    if field in DATE_FIELDS:
        return _date(field, op, value)
    if field in NULLABLE_STRINGS or field in REQUIRED_STRINGS:
        return _string(field, op, value)
    # Field names become SQL identifiers: only known columns may get this far.
    raise InvalidFilterError(f"unknown filter field '{field}'")


# -- negations shared by every column kind ----------------------------------------------


def _negated(op: str) -> str | None:
    return {"ne": "eq", "nin": "in"}.get(op)


# -- plain string columns ---------------------------------------------------------------


def _string(col: str, op: str, value: Any) -> Bounds:
    present = f"{col} IS NOT NULL" if col in NULLABLE_STRINGS else TRUE
    absent = _not(present)

    def guarded(expr: str) -> str:
        return _and([present, expr])

    positive = _negated(op)
    if positive is not None:
        b = _string(col, positive, value)
        return Bounds(_not(b.lower), _not(b.upper))
    if op == "exists":
        return _exact(present)
    if op == "eq":
        if value is None:
            return _exact(absent)
        return _exact(guarded(f"{col} = {quote(value)}") if isinstance(value, str) else FALSE)
    if op == "in":
        strings = [v for v in value if isinstance(v, str)]
        options = [guarded(f"{col} IN ({', '.join(quote(s) for s in strings)})")] if strings else []
        if any(v is None for v in value):
            options.append(absent)
        return _exact(_or(options))
    if op in ("gt", "gte", "lt", "lte"):
        if not isinstance(value, str):  # str vs anything else raises TypeError in evaluate: False
            return _exact(FALSE)
        return _exact(guarded(f"{col} {_SQL_OP[op]} {quote(value)}"))
    if op == "contains":
        needle = str(value)
        return _exact(guarded(f"strpos({col}, {quote(needle)}) > 0") if needle else present)
    if op == "icontains":
        return _icontains(col, present, str(value))
    raise ValueError(f"unsupported operator {op!r}")  # pragma: no cover - parser rejects it


_SQL_OP = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def _icontains(text_sql: str, present: str, needle: str, separator: str | None = None) -> Bounds:
    """Case-insensitive containment, exact for ASCII text, deferred otherwise.

    ``evaluate`` compares ``casefold()`` forms. For ASCII text SQL ``lower``
    is identical, so those rows are decided in SQL; rows with non-ASCII text
    ("STRAßE" folds to "strasse") are kept in ``upper`` only and decided by
    ``evaluate``.
    """
    folded = needle.casefold()
    if not folded:
        return _exact(present)
    ascii_text = f"octet_length({text_sql}) = character_length({text_sql})"
    if folded.isascii() and (separator is None or separator not in folded):
        known = _and([present, ascii_text, f"strpos(lower({text_sql}), {quote(folded)}) > 0"])
    else:
        known = FALSE
    unknown = _and([present, f"octet_length({text_sql}) <> character_length({text_sql})"])
    return Bounds(_or([known, unknown]), known)


# -- dates ------------------------------------------------------------------------------


def _is_aware(value: Any) -> bool:
    return isinstance(value, datetime) and value.utcoffset() is not None


def _date(col: str, op: str, value: Any) -> Bounds:
    nullable = col == "expires_at"
    present = f"{col} IS NOT NULL" if nullable else TRUE
    absent = _not(present)

    def guarded(expr: str) -> str:
        return _and([present, expr])

    positive = _negated(op)
    if positive is not None:
        b = _date(col, positive, value)
        return Bounds(_not(b.lower), _not(b.upper))
    if op == "exists":
        return _exact(present)
    if op == "eq":
        if value is None:
            return _exact(absent)
        # An aware datetime never equals a naive one or a non-date in Python.
        return _exact(guarded(f"{col} = {timestamp_literal(value)}") if _is_aware(value) else FALSE)
    if op == "in":
        dates = [v for v in value if _is_aware(v)]
        literals = ", ".join(timestamp_literal(d) for d in dates)
        options = [guarded(f"{col} IN ({literals})")] if dates else []
        if any(v is None for v in value):
            options.append(absent)
        return _exact(_or(options))
    if op in ("gt", "gte", "lt", "lte"):
        if not _is_aware(value):  # naive or non-date comparisons raise TypeError: False
            return _exact(FALSE)
        return _exact(guarded(f"{col} {_SQL_OP[op]} {timestamp_literal(value)}"))
    if op in ("contains", "icontains"):
        # Substring of the datetime's str(): left to evaluate.
        return Bounds(present, FALSE)
    raise ValueError(f"unsupported operator {op!r}")  # pragma: no cover


# -- categories (list<string>, never NULL, maybe empty) ----------------------------------


def _separator(needle: str) -> str:
    """A control character absent from ``needle`` to join categories with.

    A needle without the separator can only occur inside one element of the
    joined string, so ``strpos`` on it is exactly "some element contains it".
    """
    for code in (31, 30, 29, 28, 1, 2, 3, 4, 5, 6, 7, 8):
        if chr(code) not in needle:
            return chr(code)
    raise ValueError("no free separator")  # pragma: no cover - needles this odd are deferred


def _categories(op: str, value: Any) -> Bounds:
    col = "categories"
    nonempty = f"cardinality({col}) > 0"
    positive = _negated(op)
    if positive is not None:  # all(a != v) is exactly not any(a == v)
        b = _categories(positive, value)
        return Bounds(_not(b.lower), _not(b.upper))
    if op == "exists":
        return _exact(nonempty)
    if op == "eq":
        return _exact(f"array_has({col}, {quote(value)})" if isinstance(value, str) else FALSE)
    if op == "in":
        strings = [v for v in value if isinstance(v, str)]
        if not strings:
            return _exact(FALSE)
        return _exact(f"array_has_any({col}, make_array({', '.join(quote(s) for s in strings)}))")
    if op in ("gt", "gte", "lt", "lte"):
        if not isinstance(value, str):
            return _exact(FALSE)
        # any(a > v) is max(a) > v; any(a < v) is min(a) < v. Empty lists give NULL.
        agg = "array_max" if op in ("gt", "gte") else "array_min"
        return _exact(f"coalesce({agg}({col}) {_SQL_OP[op]} {quote(value)}, FALSE)")
    if op in ("contains", "icontains"):
        needle = str(value)
        if not needle or (op == "icontains" and not needle.casefold()):
            return _exact(nonempty)
        probe = needle if op == "contains" else needle.casefold()
        sep = _separator(probe)
        joined = f"array_to_string({col}, chr({ord(sep)}))"
        if op == "contains":
            return _exact(f"strpos({joined}, {quote(needle)}) > 0")
        return _icontains(joined, nonempty, needle, separator=sep)
    raise ValueError(f"unsupported operator {op!r}")  # pragma: no cover


# -- metadata (a JSON string): supersets only ---------------------------------------------


def _metadata(field: str, op: str, value: Any) -> Bounds:
    """A superset from substrings of the stored JSON; ``lower`` is always FALSE.

    If ``metadata.a.b`` has a value, the keys ``"a":`` and ``"b":`` occur in
    the document; if it equals (or, for a list, contains) the string ``v``,
    ``json.dumps(v)`` occurs too. Operators that accept a missing key (``ne``,
    ``nin``, ``eq None``, ``in`` with None) get no bound at all.
    """
    accepts_missing = (
        op in ("ne", "nin") or (op == "eq" and value is None) or (op == "in" and any(v is None for v in value))
    )
    if accepts_missing:
        return Bounds(TRUE, FALSE)
    parts = field[len("metadata.") :].split(".")
    needles = [f"strpos(metadata, {quote(json.dumps(p, ensure_ascii=False) + ':')}) > 0" for p in parts]
    if op == "eq" and isinstance(value, str):
        needles.append(_json_string_probe(value))
    elif op == "in" and value and all(isinstance(v, str) for v in value):
        needles.append(_or([_json_string_probe(v) for v in value]))
    return Bounds(_and(needles), FALSE)


def _json_string_probe(value: str) -> str:
    return f"strpos(metadata, {quote(json.dumps(value, ensure_ascii=False))}) > 0"
