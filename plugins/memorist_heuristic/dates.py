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

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a few": 3,
    "couple of": 2,
}


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
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return day(d + sign * timedelta(days=n))
    if unit == "week":
        return _week_of(d + sign * timedelta(weeks=n))
    if unit == "month":
        return month(d + sign * relativedelta(months=n))
    return str((d + sign * relativedelta(years=n)).year)


_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], datetime], str]]
_N = r"(\d+|a couple of|couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
_RULES: list[_Rule] = [
    (re.compile(r"\bthe day before yesterday\b", re.I), lambda m, d: day(d - timedelta(days=2))),
    (re.compile(r"\bthe day after tomorrow\b", re.I), lambda m, d: day(d + timedelta(days=2))),
    (re.compile(r"\byesterday\b", re.I), lambda m, d: day(d - timedelta(days=1))),
    (
        re.compile(r"\b(today|tonight|this morning|this afternoon|this evening)\b", re.I),
        lambda m, d: day(d),
    ),
    (re.compile(r"\btomorrow\b", re.I), lambda m, d: day(d + timedelta(days=1))),
    (re.compile(r"\blast weekend\b", re.I), lambda m, d: _weekend(d, -1)),
    (re.compile(r"\bthis weekend\b", re.I), lambda m, d: _weekend(d, 0)),
    (re.compile(r"\bnext weekend\b", re.I), lambda m, d: _weekend(d, 1)),
    (re.compile(r"\blast week\b", re.I), lambda m, d: _week_of(d - timedelta(weeks=1))),
    (re.compile(r"\bthis week\b", re.I), lambda m, d: _week_of(d)),
    (re.compile(r"\bnext week\b", re.I), lambda m, d: _week_of(d + timedelta(weeks=1))),
    (re.compile(r"\blast month\b", re.I), lambda m, d: month(d - relativedelta(months=1))),
    (re.compile(r"\bthis month\b", re.I), lambda m, d: month(d)),
    (re.compile(r"\bnext month\b", re.I), lambda m, d: month(d + relativedelta(months=1))),
    (re.compile(r"\blast year\b", re.I), lambda m, d: str(d.year - 1)),
    (re.compile(r"\bthis year\b", re.I), lambda m, d: str(d.year)),
    (re.compile(r"\bnext year\b", re.I), lambda m, d: str(d.year + 1)),
    (
        re.compile(rf"\blast ({'|'.join(WEEKDAYS)})\b", re.I),
        lambda m, d: _weekday(d, m.group(1).lower(), -1),
    ),
    (
        re.compile(rf"\b(?:next|this coming) ({'|'.join(WEEKDAYS)})\b", re.I),
        lambda m, d: _weekday(d, m.group(1).lower(), 1),
    ),
    (
        re.compile(rf"\b{_N} (days?|weeks?|months?|years?) ago\b", re.I),
        lambda m, d: _ago(_amount(m.group(1)) or 1, m.group(2), d, -1),
    ),
    (
        re.compile(rf"\bin {_N} (days?|weeks?|months?|years?)\b", re.I),
        lambda m, d: _ago(_amount(m.group(1)) or 1, m.group(2), d, 1),
    ),
]


def resolve_relative_dates(text: str, observed_at: datetime) -> str:
    """``text`` with each relative date followed by its absolute reading in parentheses."""
    spans: list[tuple[int, int, str]] = []
    for pattern, resolve in _RULES:
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
