"""SQL fragments with their parameters, and the combinators the filter compiler builds on.

A fragment is text with ``%s`` placeholders plus the values for them, so
composing fragments can never splice a value into SQL text. ``Bounds`` pairs
a superset and a subset predicate (see :mod:`.sql`); ``AND``/``OR`` keep
both, ``NOT`` swaps them. The text helpers at the end reproduce Python's
string semantics (code-point order, ``in``, ``casefold``) in PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Sql:
    """A SQL fragment with its ``%s`` parameters, in order."""

    text: str
    params: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Param:
    """One bound value, optionally cast (``text[]``, ``numeric[]``, ...)."""

    value: Any
    cast: str = ""


TRUE = Sql("TRUE")
FALSE = Sql("FALSE")


def cat(*pieces: str | Sql | Param) -> Sql:
    """Concatenate raw SQL, fragments and parameters into one fragment."""
    texts: list[str] = []
    params: list[Any] = []
    for piece in pieces:
        if isinstance(piece, str):
            # A literal % would be read as a placeholder by psycopg; none of ours need one.
            assert "%" not in piece, piece
            texts.append(piece)
        elif isinstance(piece, Param):
            texts.append("%s" + (f"::{piece.cast}" if piece.cast else ""))
            params.append(piece.value)
        else:
            texts.append(piece.text)
            params.extend(piece.params)
    return Sql("".join(texts), tuple(params))


@dataclass(frozen=True)
class Bounds:
    """SQL predicates bracketing a filter: ``lower`` ⊆ matches ⊆ ``upper``."""

    upper: Sql
    lower: Sql

    @property
    def exact(self) -> bool:
        return self.upper == self.lower


def exact(sql: Sql) -> Bounds:
    return Bounds(sql, sql)


def and_(parts: Sequence[Sql]) -> Sql:
    if FALSE in parts:
        return FALSE
    kept = [p for p in parts if p != TRUE]
    if not kept:
        return TRUE
    if len(kept) == 1:
        return kept[0]
    return cat("(", *_joined(kept, " AND "), ")")


def or_(parts: Sequence[Sql]) -> Sql:
    if TRUE in parts:
        return TRUE
    kept = [p for p in parts if p != FALSE]
    if not kept:
        return FALSE
    if len(kept) == 1:
        return kept[0]
    return cat("(", *_joined(kept, " OR "), ")")


def _joined(parts: Sequence[Sql], separator: str) -> list[str | Sql]:
    out: list[str | Sql] = []
    for i, part in enumerate(parts):
        if i:
            out.append(separator)
        out.append(part)
    return out


def not_(sql: Sql) -> Sql:
    if sql == TRUE:
        return FALSE
    if sql == FALSE:
        return TRUE
    return cat("(NOT ", sql, ")")


def negate(b: Bounds) -> Bounds:
    """``NOT`` swaps the bounds: the superset of NOT x is NOT (subset of x)."""
    return Bounds(not_(b.lower), not_(b.upper))


def both(b: Bounds, wrap: Any) -> Bounds:
    """Apply a monotone wrapper (AND with presence, EXISTS over elements) to both bounds."""
    upper = wrap(b.upper)
    return exact(upper) if b.exact else Bounds(upper, wrap(b.lower))


CMP = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def storable(text: str) -> bool:
    """PostgreSQL text cannot hold NUL, so a value with one equals no stored string."""
    return "\x00" not in text


def string_cmp(text: Sql, op: str, value: str) -> Sql:
    """``text OP value`` in code-point order (Python's), even for a value holding NUL.

    No stored text holds NUL, so against ``p + "\\0" + rest`` a text is greater
    exactly when it is greater than ``p``, and smaller exactly when ``<= p``.
    """
    if not storable(value):
        value = value.split("\x00", 1)[0]
        op = "gt" if op in ("gt", "gte") else "lte"
    return cat("(", text, ') COLLATE "C" ', CMP[op], " ", Param(value))


def contains_text(text: Sql, needle: str) -> Sql:
    if not storable(needle):
        return FALSE
    return cat("strpos(", text, ", ", Param(needle), ") > 0")


def icontains_text(text: Sql, needle: str, casefold: bool) -> Bounds:
    """``needle.casefold() in text.casefold()`` for a non-NULL ``text``."""
    folded = needle.casefold()
    if not storable(folded):
        return exact(FALSE)
    if casefold:
        return exact(cat("strpos(casefold((", text, ") COLLATE pg_unicode_fast), ", Param(folded), ") > 0"))
    # Older servers: lower() under "C" folds ASCII only, which is exact for ASCII text.
    ascii_text = cat("octet_length(", text, ") = char_length(", text, ")")
    known = FALSE
    if folded.isascii():
        known = and_([ascii_text, cat("strpos(lower((", text, ') COLLATE "C"), ', Param(folded), ") > 0")])
    unknown = cat("octet_length(", text, ") <> char_length(", text, ")")
    return Bounds(or_([known, unknown]), known)
