"""Resolving relative dates ("yesterday", "last week", "3 days ago") to absolute ones.

A memory must stand alone long after it was said, so a relative expression is
kept and followed by its absolute reading against the observation time:
"yesterday" observed on 8 May 2023 becomes "yesterday (7 May 2023)".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from dateutil.relativedelta import relativedelta
from memorist.plugin_api import lexicon

_LEXICON = lexicon()
WEEKDAYS = list(_LEXICON.ordered_words("weekdays"))
_NUMBERS: dict[str, int] = {k: int(v) for k, v in _LEXICON.mapping("number_words").items()}


def day(d: datetime) -> str:
    return f"{d.day} {d.strftime('%B')} {d.year}"


def month(d: datetime) -> str:
    return f"{d.strftime('%B')} {d.year}"


def _week_of(d: datetime) -> str:
    start = d - timedelta(days=d.weekday())
    return f"the week of {day(start)}"


def _weekend(d: datetime, direction: int) -> str:
    # Saturday of the weekend before/after/containing d.
    saturday = d + timedelta(days=(5 - d.weekday()))
    if direction < 0:
        saturday -= timedelta(days=7)
    elif direction > 0 and d.weekday() >= 5:
        saturday += timedelta(days=7)
    return f"the weekend of {day(saturday)}"


def _weekday(d: datetime, name: str, direction: int) -> str:
    target = WEEKDAYS.index(name)
    delta = (d.weekday() - target) % 7 or 7
    if direction < 0:
        return day(d - timedelta(days=delta))
    ahead = (target - d.weekday()) % 7 or 7
    return day(d + timedelta(days=ahead))


def _amount(word: str) -> int | None:
    word = word.lower().strip()
    return int(word) if word.isdigit() else _NUMBERS.get(word)


def _ago(n: int, unit: str, d: datetime, sign: int) -> str:
    if unit == "day":
        return day(d + sign * timedelta(days=n))
    if unit == "week":
        return _week_of(d + sign * timedelta(weeks=n))
    if unit == "month":
        return month(d + sign * relativedelta(months=n))
    return str((d + sign * relativedelta(years=n)).year)


def _alternation(phrases: object) -> str:
    words = sorted((str(p) for p in phrases), key=lambda p: (-len(p), p))  # type: ignore[attr-defined]
    return "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in words)


def _shifted(d: datetime, unit: str, offset: int) -> str:
    """``d`` moved by ``offset`` units, read as that unit ("the week of 1 May 2023")."""
    if unit == "day":
        return day(d + timedelta(days=offset))
    if unit == "weekend":
        return _weekend(d, offset)
    if unit == "week":
        return _week_of(d + timedelta(weeks=offset))
    if unit == "month":
        return month(d + relativedelta(months=offset))
    return str(d.year + offset)


_FIXED = {" ".join(k.split()): (str(v[0]), int(v[1])) for k, v in _LEXICON.mapping("relative_dates").items()}
_DIRECTIONS = {" ".join(k.split()): int(v) for k, v in _LEXICON.mapping("weekday_directions").items()}
_UNITS = {k: str(v) for k, v in _LEXICON.mapping("date_units").items()}
_AFTER = {k: int(v) for k, v in _LEXICON.mapping("amount_after").items()}
_BEFORE = {k: int(v) for k, v in _LEXICON.mapping("amount_before").items()}
_N = rf"(\d+|{_alternation(_NUMBERS)})"
_UNIT = rf"({_alternation(_UNITS)})"
#: The lexicon's relative dates, one pattern for each kind of phrase, tried in this order.
_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str], datetime], str]]] = [
    (
        re.compile(rf"\b(?:{_alternation(_FIXED)})\b", re.I),
        lambda m, d: _shifted(d, *_FIXED[" ".join(m.group(0).lower().split())]),
    ),
    (
        re.compile(rf"\b({_alternation(_DIRECTIONS)}) ({'|'.join(WEEKDAYS)})\b", re.I),
        lambda m, d: _weekday(d, m.group(2).lower(), _DIRECTIONS[" ".join(m.group(1).lower().split())]),
    ),
    (
        re.compile(rf"\b{_N} {_UNIT} ({_alternation(_AFTER)})\b", re.I),
        lambda m, d: _ago(_amount(m.group(1)) or 1, _UNITS[m.group(2).lower()], d, _AFTER[m.group(3).lower()]),
    ),
    (
        re.compile(rf"\b({_alternation(_BEFORE)}) {_N} {_UNIT}\b", re.I),
        lambda m, d: _ago(_amount(m.group(2)) or 1, _UNITS[m.group(3).lower()], d, _BEFORE[m.group(1).lower()]),
    ),
]


def resolve_relative_dates(text: str, observed_at: datetime) -> str:
    """``text`` with each relative date followed by its absolute reading in parentheses."""
    spans: list[tuple[int, int, str]] = []
    for pattern, resolve in _PATTERNS:
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e, _ in spans):
                continue  # a longer rule already covered this stretch
            spans.append((match.start(), match.end(), resolve(match, observed_at)))
    if not spans:
        return text
    out, last = [], 0
    for _start, end, absolute in sorted(spans):
        out.append(text[last:end])
        out.append(f" ({absolute})")
        last = end
    out.append(text[last:])
    return "".join(out)
