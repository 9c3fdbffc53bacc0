"""Compile a :mod:`memorist.filters` tree to parameterized PostgreSQL.

Almost every condition compiles to SQL that decides exactly what
:func:`memorist.filters.evaluate` decides, so counting, paging and deleting
happen in the database. Two corners cannot be decided in SQL and are
*bracketed* instead, as in the LanceDB store: ``upper`` is true for every row
the filter accepts, ``lower`` only for rows it accepts, and the store settles
the rows in between with ``evaluate``:

* ``contains``/``icontains`` on a metadata value that is a JSON object
  (``evaluate`` searches Python's ``repr`` of the dict);
* ``icontains`` on non-ASCII text when the server has no ``casefold()``
  (PostgreSQL < 18; on 18 ``casefold(... COLLATE pg_unicode_fast)`` is the full
  Unicode case folding ``str.casefold`` does).

Every leaf is two-valued (never SQL NULL), because ``NOT (user_id = 'a')`` is
NULL for a NULL ``user_id`` while ``evaluate`` says True; casts sit inside
``CASE`` branches, which PostgreSQL evaluates in order, so a JSON string is
never cast to a number. Values only ever travel as ``%s`` parameters; field
names become SQL only through the fixed column tables below. Fragments and
their combinators live in :mod:`.fragments`, ``metadata.*`` in :mod:`.metadata`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memorist.plugin_api import And, Condition, Filter, InvalidFilterError, Not, Or, is_metadata_field

from .fragments import (
    CMP,
    FALSE,
    TRUE,
    Bounds,
    Param,
    Sql,
    and_,
    both,
    cat,
    contains_text,
    exact,
    icontains_text,
    negate,
    not_,
    or_,
    storable,
    string_cmp,
)
from .metadata import metadata_condition

__all__ = ["FALSE", "TRUE", "Bounds", "Sql", "compile_filter"]


#: String columns and whether they may hold NULL.
STRING_COLUMNS: dict[str, bool] = {
    "id": False,
    "text": False,
    "hash": False,
    "org_id": False,
    "project_id": False,
    "user_id": True,
    "agent_id": True,
    "run_id": True,
    "app_id": True,
    "attributed_to": True,
    "speaker": True,
}
#: Timestamp columns and whether they may hold NULL.
DATE_COLUMNS: dict[str, bool] = {
    "observed_at": False,
    "created_at": False,
    "updated_at": False,
    "expires_at": True,
}
_NEGATED = {"ne": "eq", "nin": "in"}


def compile_filter(node: Filter | None, casefold: bool = True) -> Bounds:
    """Bounds for ``node`` (``None`` is exactly TRUE).

    ``casefold`` says the server has PostgreSQL 18's ``casefold()`` and the
    ``pg_unicode_fast`` collation (a UTF-8 database); without them
    ``icontains`` on non-ASCII text is left to ``evaluate``.
    """
    if node is None:
        return exact(TRUE)
    if isinstance(node, And | Or):
        parts = [compile_filter(i, casefold) for i in node.items]
        combine = and_ if isinstance(node, And) else or_
        return Bounds(combine([p.upper for p in parts]), combine([p.lower for p in parts]))
    if isinstance(node, Not):
        return negate(compile_filter(node.item, casefold))
    return _condition(node, casefold)


def _condition(cond: Condition, casefold: bool) -> Bounds:
    field, op, value = cond.field, cond.op, cond.value
    if op in _NEGATED:  # ne is "not any element equals" at every level, as in evaluate
        return negate(_condition(Condition(field, _NEGATED[op], value), casefold))  # type: ignore[arg-type]
    if is_metadata_field(field):
        return metadata_condition(field, op, value, casefold)
    if field == "categories":
        return _categories(op, value, casefold)
    if field in DATE_COLUMNS:
        return _date(field, DATE_COLUMNS[field], op, value, casefold)
    if field in STRING_COLUMNS:
        return _string(field, STRING_COLUMNS[field], op, value, casefold)
    # Field names become SQL identifiers: only known columns may get this far.
    raise InvalidFilterError(f"unknown filter field '{field}'")


# -- plain string columns ------------------------------------------------------------------


def _string(col: str, nullable: bool, op: str, value: Any, casefold: bool) -> Bounds:
    column = Sql(col)
    present = Sql(f"{col} IS NOT NULL") if nullable else TRUE

    def guarded(expr: Sql) -> Sql:
        return and_([present, expr])

    if op == "exists":
        return exact(present)
    if op == "eq":
        if value is None:
            return exact(not_(present))
        if isinstance(value, str) and storable(value):
            return exact(guarded(cat(column, " = ", Param(value))))
        return exact(FALSE)  # a number never equals a string in Python
    if op == "in":
        strings = [v for v in value if isinstance(v, str) and storable(v)]
        options = [guarded(cat(column, " = ANY(", Param(strings, "text[]"), ")"))] if strings else []
        if any(v is None for v in value):
            options.append(not_(present))
        return exact(or_(options))
    if op in CMP:
        # str vs anything else raises TypeError in evaluate, which counts as no match.
        return exact(guarded(string_cmp(column, op, value)) if isinstance(value, str) else FALSE)
    if op == "contains":
        return exact(guarded(contains_text(column, str(value))))
    if op == "icontains":
        return both(icontains_text(column, str(value), casefold), guarded)
    raise InvalidFilterError(f"unknown operator '{op}'")


# -- timestamps ----------------------------------------------------------------------------


def _aware(value: Any) -> bool:
    return isinstance(value, datetime) and value.utcoffset() is not None


def python_datetime_text(col: str) -> Sql:
    """``str()`` of the column's UTC datetime, as Python writes it (what ``evaluate`` searches)."""
    utc = f"({col} AT TIME ZONE 'UTC')"
    return Sql(
        f"(to_char({utc}, 'YYYY-MM-DD HH24:MI:SS') || CASE WHEN to_char({utc}, 'US') = '000000' "
        f"THEN '' ELSE '.' || to_char({utc}, 'US') END || '+00:00')"
    )


def _date(col: str, nullable: bool, op: str, value: Any, casefold: bool) -> Bounds:
    column = Sql(col)
    present = Sql(f"{col} IS NOT NULL") if nullable else TRUE

    def guarded(expr: Sql) -> Sql:
        return and_([present, expr])

    if op == "exists":
        return exact(present)
    if op == "eq":
        if value is None:
            return exact(not_(present))
        # An aware datetime never equals a naive one or a non-date in Python.
        return exact(guarded(cat(column, " = ", Param(value))) if _aware(value) else FALSE)
    if op == "in":
        dates = [v for v in value if _aware(v)]
        options = [guarded(cat(column, " = ANY(", Param(dates, "timestamptz[]"), ")"))] if dates else []
        if any(v is None for v in value):
            options.append(not_(present))
        return exact(or_(options))
    if op in CMP:
        if not _aware(value):  # naive or non-date comparisons raise TypeError: no match
            return exact(FALSE)
        return exact(guarded(cat(column, f" {CMP[op]} ", Param(value))))
    if op == "contains":
        return exact(guarded(contains_text(python_datetime_text(col), str(value))))
    if op == "icontains":
        return both(icontains_text(python_datetime_text(col), str(value), casefold), guarded)
    raise InvalidFilterError(f"unknown operator '{op}'")


# -- categories (text[], never NULL, maybe empty) -----------------------------------------


def _any_category(pred: Sql) -> Sql:
    """Some element satisfies ``pred`` (written over ``_v``): any() in evaluate."""
    if pred == FALSE:
        return FALSE
    if pred == TRUE:
        return Sql("cardinality(categories) > 0")
    return cat("EXISTS (SELECT 1 FROM unnest(categories) AS _c(_v) WHERE ", pred, ")")


def _categories(op: str, value: Any, casefold: bool) -> Bounds:
    element = Sql("_v")
    if op == "exists":
        return exact(Sql("cardinality(categories) > 0"))
    if op == "eq":
        if not (isinstance(value, str) and storable(value)):
            return exact(FALSE)
        return exact(cat("categories @> ", Param([value], "text[]")))  # GIN-indexable
    if op == "in":
        strings = [v for v in value if isinstance(v, str) and storable(v)]
        return exact(cat("categories && ", Param(strings, "text[]")) if strings else FALSE)
    if op in CMP:
        if not isinstance(value, str):
            return exact(FALSE)
        return exact(_any_category(string_cmp(element, op, value)))
    if op == "contains":
        return exact(_any_category(contains_text(element, str(value))))
    if op == "icontains":
        return both(icontains_text(element, str(value), casefold), _any_category)
    raise InvalidFilterError(f"unknown operator '{op}'")
