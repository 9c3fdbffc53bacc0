"""``reference_date``: relative time in a query, anchored at a date the caller gives.

"What did I do last week?" asked with ``reference_date=2026-03-10`` is about
the week of 2 March 2026. The query is searched as "What did I do last week
(the week of 2 March 2026)?": the written-out date is what the temporal signal
reads (:func:`.temporal.query_period`) and what the heuristic extractor writes
into memories ("... last week (the week of 2 March 2026)"), so both the
temporal and the keyword signals see it. Without ``reference_date`` a query is
searched as written. The phrases are data (``lexicon/relative_time.<lang>.yaml``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from dateutil.relativedelta import relativedelta

LEXICON = Path(__file__).with_name("lexicon") / "relative_time.en.yaml"
MONTHS = ("January February March April May June July August September October November December").split()


@dataclass(frozen=True)
class Phrases:
    fixed: dict[str, tuple[str, int]]
    pattern: re.Pattern[str]
    units: dict[str, str]
    numbers: dict[str, int]


@lru_cache(maxsize=1)
def phrases() -> Phrases:
    raw: dict[str, Any] = yaml.safe_load(LEXICON.read_text(encoding="utf-8"))
    fixed = {p.casefold(): (unit, int(offset)) for p, (unit, offset) in raw["phrases"].items()}
    units = {k.casefold(): v for k, v in raw["units"].items()}
    numbers = {k.casefold(): int(v) for k, v in raw["numbers"].items()}
    counts = "|".join(map(re.escape, numbers))
    ago = rf"(?:\d+|{counts})\s+(?:{'|'.join(map(re.escape, units))})\s+{re.escape(raw['ago'])}"
    alternatives = "|".join(sorted(map(re.escape, fixed), key=len, reverse=True))
    return Phrases(fixed, re.compile(rf"\b(?:{ago}|{alternatives})\b", re.IGNORECASE), units, numbers)


def _day(moment: datetime) -> str:
    return f"{moment.day} {MONTHS[moment.month - 1]} {moment.year}"


def _written(unit: str, offset: int, reference: datetime) -> str:
    if unit == "day":
        return _day(reference + timedelta(days=offset))
    if unit == "week":
        monday = reference - timedelta(days=reference.weekday()) + timedelta(weeks=offset)
        return f"the week of {_day(monday)}"
    if unit == "month":
        moment = reference + relativedelta(months=offset)
        return f"{MONTHS[moment.month - 1]} {moment.year}"
    return f"in {reference.year + offset}"


def anchored(query: str, reference: datetime) -> str:
    """``query`` with each relative time expression followed by the date it means at ``reference``."""
    lexicon = phrases()

    def write_out(match: re.Match[str]) -> str:
        said = match.group(0)
        words = said.casefold().split()
        if said.casefold() in lexicon.fixed:
            unit, offset = lexicon.fixed[said.casefold()]
        else:  # "<n> <unit> ago"
            n = int(words[0]) if words[0].isdigit() else lexicon.numbers[words[0]]
            unit, offset = lexicon.units[words[1]], -n
        return f"{said} ({_written(unit, offset, reference)})"

    return lexicon.pattern.sub(write_out, query)
