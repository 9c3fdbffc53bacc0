"""Versions of one fact in a result list: the newest first.

ADD-only keeps a changed fact beside the old one ("...phone number is
555-1234." then "...555-9876."). Both are equally relevant to "What is my phone
number?", and their scores differ only by embedding noise; the reader should
meet the current value first. Two hits are versions of one fact when their
texts are equal once the value-bearing tokens (numbers, and capitalized words
not starting a sentence) are masked; among the positions such a group holds in the ranking, its members are
placed newest first (observation time, then creation time, then the message of
the add they came from) and take the scores
of those positions, so the list stays sorted by score. Nothing else moves.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from functools import lru_cache

from .hits import SearchHit

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d[\d,.:/\-]*\d|\d|\S")
_SENTENCE_END = frozenset('.!?:;"“(')
#: Fewer unmasked words than this and two texts are too generic to call versions of one fact.
MIN_WORDS = 3


@lru_cache(maxsize=65_536)  # a scope's memories come back search after search: tokenize each once
def version_key(text: str) -> str | None:
    """``text`` with numbers and capitalized words masked, or None when too little is left."""
    out: list[str] = []
    words = 0
    previous = "."
    for token in _TOKEN.findall(text):
        sentence_start = previous in _SENTENCE_END
        previous = token
        if token[0].isdigit() or (token[0].isupper() and not sentence_start):
            out.append("#")
        else:
            out.append(token.casefold())
            words += token[0].isalpha()
    return " ".join(out) if words >= MIN_WORDS else None


def newest_versions_first(hits: list[SearchHit]) -> list[SearchHit]:
    """``hits`` with each group of versions of one fact reordered newest first."""
    groups: dict[str, list[int]] = defaultdict(list)
    for position, hit in enumerate(hits):
        key = version_key(hit.record.text)
        if key is not None:
            groups[key].append(position)
    out = list(hits)
    for positions in groups.values():
        if len(positions) < 2:
            continue
        members = sorted(
            (hits[p] for p in positions),
            # Within one add (same times) the later message is the later statement
            # ("...$3000." then "Actually, make that $4000"): then the id only breaks ties.
            key=lambda h: (
                h.record.observed_at,
                h.record.created_at,
                -1 if h.record.source_message is None else h.record.source_message,
                h.record.id,
            ),
            reverse=True,
        )
        for position, member in zip(positions, members, strict=True):
            out[position] = replace(member, score=hits[position].score)
    return out
