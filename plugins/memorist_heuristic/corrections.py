"""A correction within one add restates the fact it corrects, with the new value.

"My budget is about $3000." then "Actually, make that $4000, my partner is
joining." stored the second message as it was said: a memory about "that",
which no search for the budget finds (it does not say "budget"), while the old
value ranks first. A language model resolves "that"; this rule resolves the
common spoken forms: "make that / make it X", "change that / change it to X",
"I meant X", after an optional "actually", "sorry", "oops", "wait" or "no".

X is a value of a kind that can be told apart: an amount of money, a clock
time, a weekday, a month (with its day), a numeric date ("3/14"), a code of
digits and hyphens (a phone number), or a plain number. The correction
restates the latest earlier sentence *of the same speaker* that
holds a value of that kind, with that value replaced ("My budget is about
$4000."), and keeps what follows the value as a sentence of its own ("My
partner is joining."). The restated sentence is a memory of its own, worded as
the original, so search ranks the two as versions of one fact, the newer one
first (:mod:`memorist.engine.versions`). ADD-only still holds: the old memory
stays. With no earlier value of that kind, the sentence is kept as it was said.

A correction sent in an add of its own refers to a fact an earlier add stored:
the extractor then asks for the scope's latest memories
(``LanguageModel.context_wanted``) and resolves against them too, oldest first,
before the add's own sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memorist.plugin_api import Boundary, lexicon, opening_break

_LEXICON = lexicon()


def _any(name: str) -> str:
    """The lexicon list ``name`` as an alternation (longest first; a space is any spaces)."""
    return "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _LEXICON.phrases(name))


_WEEKDAYS = "|".join(_LEXICON.ordered_words("weekdays"))
_MONTHS = "|".join(_LEXICON.ordered_words("months"))
_NUMBER = r"\d+(?:,\d{3})*(?:\.\d+)?"
#: Value kinds, most specific first: a value is of the first kind whose pattern matches it
#: whole, and a number inside a money amount or a time is not a plain number.
KINDS: dict[str, str] = {
    "money": rf"[$€£]\s?{_NUMBER}(?:\s?[kKmM]\b)?|{_NUMBER}\s?(?:{_any('money_words')})\b",
    "time": r"\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}",
    "weekday": rf"(?:{_WEEKDAYS})s?\b",
    "month": rf"(?:{_MONTHS})(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?\b",
    # Whole tokens only: "555-0000" must not become "555", and a head count ("make it 5")
    # must not replace a date or a phone number. "60k" is none of these.
    "date": r"\d{1,2}/\d{1,2}(?:/\d{2,4})?(?![\w\-/])",
    "code": r"\d+(?:-\d+)+(?![\w\-/])",
    "number": rf"{_NUMBER}(?![\w\-/]|[.,]\d)",
}
_KIND_PATTERNS = {kind: re.compile(rf"(?<![\w$€£.,\-/]){pattern}", re.I) for kind, pattern in KINDS.items()}
_VALUE = "|".join(f"(?:{pattern})" for pattern in KINDS.values())
_CORRECTION = re.compile(
    rf"^\s*(?:(?:{_any('correction_openers')})\s*[,:!.\-–—]?\s*)*"
    rf"(?:{_any('corrections')})\s+(?P<value>{_VALUE})(?P<rest>.*)$",
    re.I | re.S,
)
#: What follows the value starts a clause of its own ("$4000, my partner is joining"), or it
#: belongs to the value ("$1,500 per month") and is already in the restated sentence.
_JOINERS = _LEXICON.words("correction_joiners")
_CLAUSE_AFTER = Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE | Boundary.DASH | Boundary.HYPHEN


#: Anywhere in a message: whether an add must read the scope's latest memories for it.
_ANY_CORRECTION = re.compile(rf"\b(?:{_any('corrections')})\s+(?:{_VALUE})", re.I)


@dataclass(frozen=True)
class Restated:
    """A correction resolved: the corrected sentence, what the correction said besides, and
    which of the earlier sentences it restates."""

    sentence: str
    rest: str | None
    source: int = -1


def may_correct(text: str) -> bool:
    """Whether ``text`` holds a correction this module may resolve (a cheap first look)."""
    return _ANY_CORRECTION.search(text) is not None


def kind_of(value: str) -> str | None:
    """The kind of a value the correction names, or None."""
    for kind, pattern in _KIND_PATTERNS.items():
        if pattern.fullmatch(value.strip()):
            return kind
    return None


def restate(sentence: str, earlier: list[str]) -> Restated | None:
    """``sentence`` resolved against ``earlier`` (the same speaker's sentences before it, oldest
    first), or None when it is not a correction or names no earlier value of its kind."""
    match = _CORRECTION.match(sentence)
    if match is None:
        return None
    value = match.group("value").strip()
    kind = kind_of(value)
    if kind is None:
        return None
    for source in range(len(earlier) - 1, -1, -1):
        before = earlier[source]
        found = _values(before, kind)
        if not found:
            continue
        start, end = found[-1]
        corrected = before[:start] + value + before[end:]
        clause = opening_break(match.group("rest"), _CLAUSE_AFTER, _JOINERS)
        rest = match.group("rest")[clause:].strip() if clause else ""
        return Restated(corrected, _sentence(rest) if re.search(r"[A-Za-z]{2}", rest) else None, source)
    return None


def _values(text: str, kind: str) -> list[tuple[int, int]]:
    """Spans of ``kind`` values in ``text``, leaving out those inside a more specific kind's
    (the 7 of "7pm" is a time, not a number)."""
    taken: list[tuple[int, int]] = []
    for name, pattern in _KIND_PATTERNS.items():
        spans = [m.span() for m in pattern.finditer(text)]
        free = [(a, b) for a, b in spans if all(b <= s or a >= e for s, e in taken)]
        if name == kind:
            return free
        taken.extend(free)
    return []


def _sentence(text: str) -> str:
    text = text[:1].upper() + text[1:]
    return text if text[-1:] in ".!?" else f"{text}."
