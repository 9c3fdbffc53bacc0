"""Resolving relative dates ("yesterday", "last week", "3 days ago") to absolute ones.

A memory must stand alone long after it was said, so a relative expression is
kept and followed by its absolute reading against the observation time:
"yesterday" observed on 8 May 2023 becomes "yesterday (7 May 2023)".

"in two weeks" is a date ahead only in a clause about the future ("We're moving in two
weeks"); "We haven't spoken in two years" or "I lost 5 kilos in two months" say a length of
time, and stay as said (see :func:`ahead`; the words are the lexicon's ``future_*`` and
``perfect_*`` lists).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

from dateutil.relativedelta import relativedelta
from memorist.plugin_api import Boundary, Token, boundaries, lexicon, phrases, tokens

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
#: "in two weeks": a date only where :func:`ahead` says its clause is about the future.
_AHEAD = re.compile(rf"\b({_alternation(_BEFORE)}) {_N} {_UNIT}\b", re.I)
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
        _AHEAD,
        lambda m, d: _ago(_amount(m.group(2)) or 1, _UNITS[m.group(3).lower()], d, _BEFORE[m.group(1).lower()]),
    ),
]


#: Where a clause ends: any mark but a line break (a full stop before a space, not a decimal
#: point), and the lexicon's ``future_clause_breaks`` words.
_CLAUSE_END = Boundary.SENTENCE | Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE | Boundary.DASH | Boundary.BRACKET
_BE_FORMS = _LEXICON.words("future_be_forms")
_PROGRESSIVE = str(_LEXICON.get("future_progressive_suffix") or "\0")
_SCHEDULE = _LEXICON.words("future_schedule_verbs")
_NEGATIONS = _LEXICON.words("future_negations")
_NEGATION_SUFFIX = str(_LEXICON.get("negation_suffix") or "\0")
_BREAKS = _LEXICON.words("future_clause_breaks")
_JOINERS = _LEXICON.words("future_joiners")
_SUBJECTS = _LEXICON.words("future_subjects")
_BE_ENDINGS = tuple(_LEXICON.words("future_be_endings"))
_PERFECT = _LEXICON.words("perfect_auxiliaries")
_PERFECT_ADVERBS = _LEXICON.words("perfect_adverbs")
_PARTICIPLES = _LEXICON.words("perfect_participles")
_PARTICIPLE_SUFFIXES = tuple(_LEXICON.words("perfect_suffixes"))
_NOT_PARTICIPLES = _LEXICON.words("verbs", "ed_present")


def _clauses(text: str) -> list[list[Token]]:
    """The words of ``text`` by clause (see the lexicon's ``future_clause_breaks``)."""
    out: list[list[Token]] = [[]]
    ends = [start for start, _ in boundaries(text, _CLAUSE_END)]
    found = tokens(text)
    for i, token in enumerate(found):
        while ends and ends[0] < token.start:
            ends.pop(0)
            if out[-1]:
                out.append([])
        joins = token.word in _JOINERS and i + 1 < len(found) and found[i + 1].word in _SUBJECTS
        if (token.word in _BREAKS or joins) and out[-1]:
            out.append([])
        out[-1].append(token)
    return [clause for clause in out if clause]


def _perfect(words: list[Token], i: int) -> bool:
    """Whether ``words[i]`` opens a perfect ("haven't spoken", "have never been")."""
    if words[i].word not in _PERFECT:
        return False
    for nxt in words[i + 1 : i + 3]:
        word = nxt.word
        if word in _PARTICIPLES or (word.endswith(_PARTICIPLE_SUFFIXES) and word not in _NOT_PARTICIPLES):
            return True
        if word not in _PERFECT_ADVERBS:
            return False
    return False


def _says_future(clause: list[Token], amount: int) -> bool:
    """Whether a clause is about the future and says no length of time (``amount``: where
    the "in <amount>" stands in it)."""
    markers = phrases("future_markers")
    future = False
    for i, token in enumerate(clause):
        word = token.word
        if word in _NEGATIONS or word.endswith(_NEGATION_SUFFIX) or _perfect(clause, i):
            return False
        if word in _SCHEDULE or markers.at(clause, i) is not None:
            future = True
        elif i + 1 == amount and (word in _BE_FORMS or word.endswith(_BE_ENDINGS)):
            future = True  # "the wedding is in two months"
        elif word in _BE_FORMS and i + 1 < len(clause) and clause[i + 1].word.endswith(_PROGRESSIVE):
            future = True  # "we're moving"
    return future


def ahead(text: str, start: int, end: int) -> bool:
    """Whether the "in <amount> <units>" at ``text[start:end]`` is a date ahead: its clause is
    about the future (a clause of the amount alone, "In two weeks, we move", reads the next)."""
    clauses = _clauses(text)
    for k, clause in enumerate(clauses):
        inside = [i for i, t in enumerate(clause) if start <= t.start < end]
        if not inside:
            continue
        if len(inside) == len(clause) and k + 1 < len(clauses):
            return _says_future(clauses[k + 1], -1)
        return _says_future(clause, inside[0])
    return False


def resolve_relative_dates(text: str, observed_at: datetime) -> str:
    """``text`` with each relative date followed by its absolute reading in parentheses."""
    spans: list[tuple[int, int, str]] = []
    for pattern, resolve in _PATTERNS:
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e, _ in spans):
                continue  # a longer rule already covered this stretch
            if pattern is _AHEAD and not ahead(text, match.start(), match.end()):
                continue  # "haven't spoken in two years": a length of time, not a date
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
