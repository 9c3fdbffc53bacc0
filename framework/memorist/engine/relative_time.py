"""``reference_date``: relative time in a query, anchored at a date the caller gives.

"What did I do last week?" asked with ``reference_date=2026-03-10`` is about
the week of 2 March 2026. The query is searched as "What did I do last week
(the week of 2 March 2026)?": the written-out date is what the temporal signal
reads (:func:`.temporal.query_period`) and what the heuristic extractor writes
into memories ("... last week (the week of 2 March 2026)"), so both the
temporal and the keyword signals see it. Without ``reference_date`` a query is
searched as written. The phrases are data (the language layer's lexicon: ``relative_dates``,
``number_words``, ``date_units``, ``amount_after``, ``written_dates``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from dateutil.relativedelta import relativedelta

from ..language import DEFAULT, Phrases, Token, lexicon, tokens

#: The units a relative date is written out in (a lexicon's ``relative_dates`` rows of other
#: units, such as "this weekend", are the extractor's alone).
UNITS = ("day", "week", "month", "year")


@dataclass(frozen=True)
class RelativeWords:
    """A language's relative dates: fixed phrases ("last week"), and "<count> <unit> ago"."""

    fixed: dict[str, tuple[str, int]]
    phrases: Phrases
    counts: Phrases
    numbers: dict[str, int]
    units: dict[str, str]
    ago: dict[str, int]
    months: tuple[str, ...]
    written: dict[str, str]


@lru_cache(maxsize=8)
def relative_words(language: str = DEFAULT) -> RelativeWords:
    lex = lexicon(language)
    fixed = {
        phrase: (str(unit), int(offset))
        for phrase, (unit, offset) in lex.mapping("relative_dates").items()
        if unit in UNITS
    }
    numbers = {phrase: int(n) for phrase, n in lex.mapping("number_words").items()}
    return RelativeWords(
        fixed,
        Phrases(dict.fromkeys(fixed, "fixed")),
        Phrases(dict.fromkeys(numbers, "count")),
        numbers,
        {word: str(unit) for word, unit in lex.mapping("date_units").items() if unit in UNITS},
        {word: int(sign) for word, sign in lex.mapping("amount_after").items()},
        tuple(m.capitalize() for m in lex.ordered_words("months")),
        {unit: str(form) for unit, form in (lex.get("written_dates") or {}).items()},
    )


def _day(moment: datetime, words: RelativeWords) -> str:
    return words.written["day"].format(day=moment.day, month=words.months[moment.month - 1], year=moment.year)


def _written(unit: str, offset: int, reference: datetime, words: RelativeWords) -> str:
    if unit == "day":
        return _day(reference + timedelta(days=offset), words)
    if unit == "week":
        monday = reference - timedelta(days=reference.weekday()) + timedelta(weeks=offset)
        return words.written["week"].format(day=_day(monday, words))
    if unit == "month":
        moment = reference + relativedelta(months=offset)
        return words.written["month"].format(month=words.months[moment.month - 1], year=moment.year)
    return words.written["year"].format(year=reference.year + offset)


def _at(found: list[Token], i: int, words: RelativeWords) -> tuple[int, str, int] | None:
    """``(words read, unit, offset)`` of a relative date starting at ``found[i]``."""
    if (fixed := words.phrases.at(found, i)) is not None:
        size = fixed[0]
        unit, offset = words.fixed[" ".join(t.word for t in found[i : i + size])]
        return size, unit, offset
    if found[i].word.isdigit():
        size, n = 1, int(found[i].word)
    elif (count := words.counts.at(found, i)) is not None:
        size = count[0]
        n = words.numbers[" ".join(t.word for t in found[i : i + size])]
    else:
        return None
    if i + size + 1 < len(found) and (named := words.units.get(found[i + size].word)) is not None:
        if (sign := words.ago.get(found[i + size + 1].word)) is not None:
            return size + 2, named, sign * n
    return None


def anchored(query: str, reference: datetime, language: str = DEFAULT) -> str:
    """``query`` with each relative time expression followed by the date it means at ``reference``."""
    words = relative_words(language)
    if not words.written:
        return query
    found = tokens(query)
    out: list[str] = []
    last = 0
    i = 0
    while i < len(found):
        match = _at(found, i, words)
        if match is None:
            i += 1
            continue
        size, unit, offset = match
        end = found[i + size - 1].end
        out.append(f"{query[last:end]} ({_written(unit, offset, reference, words)})")
        last = end
        i += size
    return "".join(out) + query[last:]
