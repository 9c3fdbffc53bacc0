"""Conditions on ``metadata.*`` (a ``jsonb`` column), with evaluate's exact semantics.

``field_value`` walks mappings only, and ``->`` with a text key is NULL on
anything but an object, so a path never steps into a list. A list value
matches when any element does, through nested lists (``ne``/``nin`` arrive
here as ``NOT`` of the positive operator, which is evaluate's "all"). A JSON
leaf compares like the Python value ``json.loads`` makes of it: strings by
code point, numbers as numbers (bools are 0 and 1), ``str()`` of numbers and
bools for ``contains``; only a dict's ``repr()`` is left to ``evaluate``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from memorist.plugin_api import InvalidFilterError

from .fragments import (
    CMP,
    FALSE,
    TRUE,
    Bounds,
    Param,
    Sql,
    cat,
    contains_text,
    exact,
    icontains_text,
    not_,
    or_,
    storable,
    string_cmp,
)


def metadata_condition(field: str, op: str, value: Any, casefold: bool) -> Bounds:
    """A condition on ``metadata.a.b``, with evaluate's list semantics.

    ``->`` with a text key is NULL on anything but an object, exactly like
    ``field_value`` stopping at a non-mapping. A list value matches when any
    element (recursively, through nested lists) matches; ``ne``/``nin`` were
    turned into ``NOT`` of the positive operator, which is evaluate's "all".
    """
    parts = field[len("metadata.") :].split(".")
    if any(not storable(p) for p in parts):
        value_sql = Sql("NULL::jsonb")  # jsonb keys never hold NUL: always missing
    else:
        path: list[str | Sql | Param] = []
        for part in parts:
            path += [" -> ", Param(part, "text")]
        value_sql = cat("(metadata", *path, ")")
    if op == "exists":
        return exact(
            cat(
                "coalesce(jsonb_typeof(",
                value_sql,
                ") <> 'null' AND ",
                value_sql,
                " <> '[]'::jsonb, FALSE)",
            )
        )
    direct = _leaf(value_sql, op, value, casefold)
    element = _leaf(Sql("_e._x"), op, value, casefold)

    def over(direct_pred: Sql, element_pred: Sql) -> Sql:
        if direct_pred == FALSE and element_pred == FALSE:
            return FALSE
        flattened = cat(
            "EXISTS (WITH RECURSIVE _e(_x) AS (SELECT ",
            value_sql,
            " UNION ALL SELECT jsonb_array_elements(_e._x) FROM _e WHERE jsonb_typeof(_e._x) = 'array')"
            " SELECT 1 FROM _e WHERE jsonb_typeof(_e._x) IS DISTINCT FROM 'array' AND ",
            element_pred,
            ")",
        )
        return cat(
            "CASE WHEN jsonb_typeof(",
            value_sql,
            ") = 'array' THEN ",
            flattened,
            " ELSE ",
            direct_pred,
            " END",
        )

    upper = over(direct.upper, element.upper)
    if direct.exact and element.exact:
        return exact(upper)
    return Bounds(upper, over(direct.lower, element.lower))


def _number(value: Any) -> Decimal | None:
    """A filter number as the numeric it compares like (bools are 0/1, as in Python)."""
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        if math.isnan(value):
            return None  # NaN equals and orders against nothing
        if math.isinf(value):
            return Decimal("Infinity") if value > 0 else Decimal("-Infinity")
        return Decimal(repr(value))  # the digits json.dumps stored for an equal float
    return None


def _is_none(x: Sql) -> Sql:
    return cat("(", x, " IS NULL OR jsonb_typeof(", x, ") = 'null')")


def _bool_as_number(x: Sql) -> Sql:
    return cat("(CASE WHEN (", x, ")::boolean THEN 1 ELSE 0 END)::numeric")


def _leaf(x: Sql, op: str, value: Any, casefold: bool) -> Bounds:
    """``op`` against one non-list JSON value ``x`` (SQL NULL or JSON null = None)."""
    if op == "eq":
        return exact(_leaf_in(x, (value,)))
    if op == "in":
        return exact(_leaf_in(x, value))
    if op in CMP:
        return exact(_leaf_cmp(x, op, value))
    if op in ("contains", "icontains"):
        return _leaf_contains(x, op, value, casefold)
    raise InvalidFilterError(f"unknown operator '{op}'")


def _leaf_in(x: Sql, values: Sequence[Any]) -> Sql:
    options: list[Sql] = []
    if any(v is None for v in values):
        options.append(_is_none(x))
    strings = [v for v in values if isinstance(v, str) and storable(v)]
    if strings:
        options.append(
            cat(
                "CASE WHEN jsonb_typeof(",
                x,
                ") = 'string' THEN (",
                x,
                " #>> '{}') = ANY(",
                Param(strings, "text[]"),
                ") ELSE FALSE END",
            )
        )
    numbers = [n for v in values if (n := _number(v)) is not None]
    if numbers:
        options.append(
            cat(
                "CASE jsonb_typeof(",
                x,
                ") WHEN 'number' THEN (",
                x,
                ")::numeric = ANY(",
                Param(numbers, "numeric[]"),
                ") WHEN 'boolean' THEN ",
                _bool_as_number(x),
                " = ANY(",
                Param(numbers, "numeric[]"),
                ") ELSE FALSE END",
            )
        )
    return or_(options)


def _leaf_cmp(x: Sql, op: str, value: Any) -> Sql:
    if isinstance(value, str):
        text = cat("(", x, " #>> '{}')")
        return cat(
            "CASE WHEN jsonb_typeof(",
            x,
            ") = 'string' THEN ",
            string_cmp(text, op, value),
            " ELSE FALSE END",
        )
    number = _number(value)
    if number is None:  # None, NaN: every comparison is False (or a TypeError) in Python
        return FALSE
    sign = CMP[op]
    return cat(
        "CASE jsonb_typeof(",
        x,
        ") WHEN 'number' THEN (",
        x,
        f")::numeric {sign} ",
        Param(number),
        " WHEN 'boolean' THEN ",
        _bool_as_number(x),
        f" {sign} ",
        Param(number),
        " ELSE FALSE END",
    )


def python_number_text(x: Sql) -> Sql:
    """``str()`` of the number Python reads back from a jsonb number.

    jsonb keeps the digits ``json.dumps`` wrote, except that exponents are
    expanded: a text with a point is a float, and Python writes floats below
    1e-4 with an exponent, as PostgreSQL's shortest float8 output also does.
    """
    return cat(
        "CASE WHEN strpos((",
        x,
        ")::text, '.') > 0 AND abs((",
        x,
        ")::numeric) < 0.0001 AND (",
        x,
        ")::numeric <> 0 THEN ((",
        x,
        ")::text)::float8::text ELSE (",
        x,
        ")::text END",
    )


def _leaf_contains(x: Sql, op: str, value: Any, casefold: bool) -> Bounds:
    needle = str(value)
    probe = needle if op == "contains" else needle.casefold()
    if not probe:  # "" is in the str() of every value but None
        return exact(not_(_is_none(x)))
    if not storable(probe):  # no str() of a JSON value holds a raw NUL (repr escapes it)
        return exact(FALSE)
    string_text = cat("(", x, " #>> '{}')")
    if op == "contains":
        string = exact(contains_text(string_text, probe))
        boolean = cat("CASE WHEN (", x, ")::boolean THEN 'True' ELSE 'False' END")
    else:
        string = icontains_text(string_text, needle, casefold)
        boolean = cat("CASE WHEN (", x, ")::boolean THEN 'true' ELSE 'false' END")
    number = contains_text(python_number_text(x), probe)  # digits, '.', 'e', signs: fold-free
    flag = contains_text(boolean, probe)

    def case(string_pred: Sql, dict_pred: Sql) -> Sql:
        return cat(
            "CASE jsonb_typeof(",
            x,
            ") WHEN 'string' THEN ",
            string_pred,
            " WHEN 'number' THEN ",
            number,
            " WHEN 'boolean' THEN ",
            flag,
            " WHEN 'object' THEN ",
            dict_pred,
            " ELSE FALSE END",
        )

    # A dict's repr() is Python's business: rows with one here are left to evaluate.
    return Bounds(case(string.upper, TRUE), case(string.lower, FALSE))
