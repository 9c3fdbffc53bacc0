"""Whether a newer fact keeps an older fact's value beside a new one: "I play guitar." then
"so you'll be playing both guitar and piano now" holds guitar still, so it replaces nothing.

A change word ("now") and a shared topic word (guitar) are the signs the supersession rule
reads as a change; a value told in a coordination with another ("both X and Y", "X as well
as Y", "X y Y", "X und Y") says the older value is still held. The exception is a fact that
ties them as a replacement ("from X to Y", "X instead of Y", "no longer X", "X → Y"): the
lexicons' ``replacement_markers``. And a clause telling the older's value again as still
held ("Ellers bor vi stadig i Odense") beside other news keeps it too (:func:`still_named`).
"""

from __future__ import annotations

from functools import lru_cache

from ..language import Phrases, Token, languages, lexicon, tokens
from ..language.calendar import calendar_words, relative_time_phrases
from .keywords import STOP_WORDS, terms
from .supersession_clauses import clause_readings
from .supersession_frames import around
from .supersession_lexicon import rule_lexicon
from .supersession_reading import Reading
from .supersession_rows import Gapped
from .supersession_values import value_literals

#: How many words before an older value a change word tells it changed ("left the bank").
CHANGE_REACH = 3
#: Marks that tie two values as a replacement wherever they stand: "X → Y", "X -> Y".
ARROWS = ("→", "->", "=>", "⇒")


@lru_cache(maxsize=1)
def _no_values() -> frozenset[str]:
    """The words that are no value: the speaker ("Elena y yo nos divorciamos" joins two
    people, not two values) and function words, in every language."""
    lexes = [lexicon(code) for code in languages()]
    return frozenset().union(
        STOP_WORDS,
        *(lex.words(name) for lex in lexes for name in ("speaker_words", "first_person", "function_words")),
    )


def restates(newer: str, old: Reading) -> bool:
    """Whether ``newer`` tells a value of ``old`` (a topic word or a name) coordinated with a
    word ``old`` does not hold ("both guitar and piano", "guitar as well as piano"; not "with
    their wife and kids" restating two of the older's words) and ties no replacement."""
    lex = rule_lexicon()
    coordinators, markers, no_values = lex.coordinators, lex.replacement_markers, _no_values()
    found = tokens(newer)
    if any(arrow in newer for arrow in ARROWS) or markers.anywhere(found) or _negated(newer, found):
        return False
    held = old.topic | old.names

    def new_value(at: int) -> bool:
        token = found[at]
        named = set(terms(token.word))
        return (
            bool(named)
            and not named & held
            and token.word not in old.names | no_values
            and lex.change.at([token], 0) is None
            and _times().at(found, at) is None  # "Emre ile geçen ay ...": with Emre, last month
        )

    change, now = lex.change, lex.now_words
    for i, token in enumerate(found):
        if token.word.split("'")[0] in no_values or not (token.word in old.names or set(terms(token.word)) & held):
            continue  # "it's" is no value, though a sentence opens with it ("It's been ...")
        if any(
            change.at(found, j) is not None and now.at(found, j) is None for j in range(max(0, i - CHANGE_REACH), i)
        ):
            continue  # "left the bank and joined ...", "habe gekündigt und arbeite ...": changed
        if any(
            change.at(found, j) is not None and now.at(found, j) is None
            for j in range(i + 1, min(len(found), i + 1 + CHANGE_REACH))
        ):
            continue  # "renovei o contrato e o aluguel subiu": the value a clause says changed
        other = _partner(newer, found, i, coordinators)
        if other is not None and new_value(other):
            return True
    return False


def still_named(newer: str, old: Reading) -> bool:
    """Whether a clause of the newer says the older's value still holds, naming every name the
    older holds as its value ("Odense" of "Jeg bor i Odense"): "Ellers bor vi stadig i Odense",
    "Själv blir jag kvar på Karolinska" tell the older again beside other news, and the news
    beside it (a summer house, a partner's new job) holds no new value of the older's."""
    values = old.names - old.subjects
    return bool(values) and any(part.continues and values <= part.names for _, part, _ in clause_readings(newer))


def keeps_value(newer: str, older: str, old: Reading) -> bool:
    """Whether a clause of ``newer`` tells ``older``'s own value again and says no change of
    it: "Jo's email is jo@x.me, and yours stays sam@y.com", "dia sekarang 11 juta per bulan,
    dan kamu tetap sekitar 9 juta". The older's value is an e-mail, a phone number or a
    quantity, told verbatim; a clause that says a change, a moved quantity or a time ("I
    weighed 92 kg in May") holds it as a past value, and a replacement marker anywhere ("from
    X to Y", "no longer") ties the two as versions."""
    held = value_literals(older)
    # A date is when a plan is, not a value a person holds: "moved to 23 May, half the team was
    # away on 9 May" tells the older date as the reason it moved.
    calendar = _calendar()
    if any(unit in calendar for unit, _ in old.quantities):
        return False
    # Told in digits: "een middelbare school" counts one school, a value of no one.
    amounts = frozenset((unit, value) for unit, value in old.quantities if value in older)
    if not held and not amounts:
        return False
    found = tokens(newer)
    if any(arrow in newer for arrow in ARROWS) or rule_lexicon().replacement_markers.anywhere(found):
        return False
    for clause, part, _ in clause_readings(newer):
        if part.change or part.moved or part.anchored:
            continue
        if held <= value_literals(clause) and amounts <= part.quantities:
            return True
    return False


@lru_cache(maxsize=1)
def _times() -> Phrases:
    """Every language's relative time names ("last month", "geçen ay"): no value."""
    return Phrases({phrase: "time" for code in languages() for phrase in relative_time_phrases(code)})


@lru_cache(maxsize=1)
def _calendar() -> frozenset[str]:
    """Every language's month and weekday words, folded: the units a date is told in."""
    return frozenset().union(*(calendar_words(code) for code in languages()))


def _negated(newer: str, found: list[Token]) -> bool:
    """Whether a ``negation_frames`` row ("ne … plus", "non … più") stands in ``newer``."""
    frames: tuple[Gapped, ...] = rule_lexicon().negation_frames
    return bool(around(newer, found, frames))


#: Most articles or other words of no value between a coordinator and the value it joins.
SKIPPED = 2
#: Marks between two words that part them into two clauses: no coordination across.
_BREAKS = frozenset(".;:!?")


def _skippable(word: str, before: str) -> bool:
    """Whether ``word`` may stand between a coordinator and the value it joins: an article, or
    the word before the other value (parallel: "al fútbol y al pádel", "в теннис и в сквош")."""
    return word in rule_lexicon().articles or word == before


def _partner(text: str, found: list[Token], i: int, coordinators: Phrases) -> int | None:
    """The word a coordinator joins the word at ``i`` to, right after or before it past an
    article ("guitar and piano", "fútbol y al pádel", "piano as well as guitar"), within one
    clause; else None. A sequence joiner ("and then", "und dann") opens another clause of
    dictated speech: it coordinates nothing ("... 89 kilo und dann hab ich ...")."""
    sequence = rule_lexicon().sequence_joiners
    after = coordinators.at(found, i + 1)
    if after is not None and sequence.at(found, i + 1) is None:
        other = i + 1 + after[0]
        before = found[i - 1].word if i else ""
        while other < len(found) - 1 and other - (i + 1 + after[0]) < SKIPPED and _skippable(found[other].word, before):
            other += 1
        if other < len(found) and not _BREAKS & set(text[found[i].end : found[other].start]):
            return other
    opening = i
    while opening > 0 and i - opening < SKIPPED and found[opening - 1].word in rule_lexicon().articles:
        opening -= 1
    for size in (1, 2, 3):
        start = opening - size
        if start < 1:
            break
        hit = coordinators.at(found, start)
        if (
            hit is not None
            and hit[0] == size
            and sequence.at(found, start) is None
            and not _BREAKS & set(text[found[start - 1].end : found[i].start])
        ):
            return start - 1
    return None
