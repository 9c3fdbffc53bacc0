"""How the supersession rule reads a fact's values: quantities and the units they count, the
counts of things a person has, a date that places it as an event, and the frames that name
an attribute by its shape ("is a junior lawyer at ...", "turned 35", an e-mail address).

:mod:`.supersession_reading` puts these beside who a fact is about and what it says changed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import takewhile

from ..language import Token, fold, tokens
from ..language.han_numerals import han_counts
from .keywords import STOP_WORDS, terms
from .supersession_lexicon import Lexicon, rule_lexicon
from .supersession_rows import Frame, spaceless


@lru_cache(maxsize=65_536)
def base(word: str) -> str:
    """``word`` without a possessive ending ("user's" -> "user"), an elided word before it
    ("j'habite" -> "habite") or a particle glued to a noun ("여동생이" -> "여동생").

    Cached: a reading asks it of each word a dozen times over (attributes, topic, copulas,
    names), and with the lexicon's endings tried each time that was half of reading a new
    memory (0.33 -> 0.16 ms a LoCoMo turn, the same readings)."""
    lex = rule_lexicon()
    for elision in lex.elisions:
        if word.startswith(elision) and len(word) > len(elision):
            word = word[len(elision) :]
            break
    for ending in lex.possessive_endings:
        if word.endswith(ending) and len(word) > len(ending):
            return word[: -len(ending)]
    for particle in lex.noun_particles:
        # "여동생이" -> "여동생"; a noun of one syllable keeps its ending ("나는" is "I", a row).
        if word.endswith(particle) and len(word) - len(particle) >= NOUN_LEAST:
            return word[: -len(particle)]
    return word


#: Fewest letters a noun keeps without its particle: "아이가" is "아이", but "아이" stays whole.
NOUN_LEAST = 2


#: Values whose shape names their attribute in any language: an e-mail address, a phone number.
VALUE_KINDS = (
    ("email", re.compile(r"[\w.+\-]+@[\w\-]+\.[\w.\-]+")),
    ("phone", re.compile(r"(?<![\w.])\+?\d[\d \-().]{5,}\d(?![\w.]?\d)")),
)


#: A number and what it counts: "7 hours", "45 dollars", "$400", "9:30".
#: In a script without spaces a number follows a letter directly ("房租3000元"): no word boundary.
_QUANTITY = re.compile(
    r"([$€£¥])\s?(\d[\d,.]*)|\b(\d{1,2}:\d{2})\b|(?:\b|(?<=[\u3040-\u9fff\uac00-\ud7af]))(\d[\d,.]*)\s*([^\W\d_]+)"
)


def is_copula(word: str, copulas: frozenset[str]) -> bool:
    """``word`` is a copula, alone ("is"), as a clitic on its subject ("I'm": "'m") or after an
    elided subject ("j'ai": "ai")."""
    if word in copulas or base(word) in copulas:
        return True
    return any(c.startswith("'") and word.endswith(c) and len(word) > len(c) for c in copulas)


def _role(words: list[Token], frame: Frame) -> bool:
    """A role: "<copula> a|an <1 to most_words words> at|for" ("is a junior lawyer at ..."), past
    an adverb of time ("is now an associate attorney at ..."), the
    article optional in a ``bare`` frame ("suis comptable dans ..."), whose first word is no
    participle (``not_endings``: "suis allée chez ...")."""
    for i, token in enumerate(words[:-2]):
        if not is_copula(token.word, frame.copulas):
            continue
        opens = i + 1
        while opens < len(words) - 2 and words[opens].word in frame.adverbs:
            opens += 1  # "is now an associate attorney at": the adverb says when, not what
        first = opens + 1 if words[opens].word in frame.articles else opens
        if first == opens and (not frame.bare or words[first].word.endswith(frame.not_endings or ("\0",))):
            continue
        last = min(first + frame.most_words, len(words) - 1)
        if any(
            words[j].word in frame.prepositions
            and (not frame.objects or j + 1 < len(words) and words[j + 1].word in frame.objects)
            for j in range(first + 1, last + 1)
        ):
            return True
    return False


def _age(words: list[Token], text: str, frame: Frame) -> bool:
    """A number after ``before`` ("turned 35") or before ``after`` ("42 geworden"), or closing
    a fact after a copula ("is 30", "I'm 31 years old")."""
    for i, token in enumerate(words[1:], 1):
        if not token.word.isdigit() or text[words[i - 1].end : token.start].strip():
            continue  # a number right after the word before it ("turned 35", not "is $300")
        if words[i - 1].word in frame.before:
            return True
        if i + 1 < len(words) and words[i + 1].word in frame.after and len(token.word) <= frame.most_digits:
            return True
        rest = tuple(w.word for w in words[i + 1 :])
        closes = not rest or rest in frame.units
        tail = text[words[-1].end :].strip()
        if closes and len(token.word) <= frame.most_digits and is_copula(words[i - 1].word, frame.copulas):
            return tail in ("", ".", "!")
    return False


def framed(text: str, words: list[Token], lex: Lexicon) -> list[str]:
    found = [frame.attribute for frame in lex.role if _role(words, frame)]
    return found + [frame.attribute for frame in lex.age if _age(words, text, frame)]


def counts(words: list[str], lex: Lexicon) -> frozenset[tuple[str, int, bool]]:
    """A number, a number word or an ordinal right before a counted thing ("two kids",
    "3 cats", "third child")."""
    out: set[tuple[str, int, bool]] = set()
    for word, noun in zip(words, words[1:], strict=False):
        counted = lex.counted.get(noun)
        if counted is None:
            continue
        if word.isdigit() and len(word) <= 2:
            out.add((counted, int(word), False))
        elif word in lex.numbers:
            out.add((counted, lex.numbers[word], False))
        elif word in lex.ordinals_counted:
            out.add((counted, lex.ordinals_counted[word], True))
    return frozenset(out)


def quantities(values: list[tuple[int, tuple[str, str]]]) -> frozenset[tuple[str, str]]:
    """A fact's quantities as (unit, value), from :func:`told`'s reading of its text."""
    return frozenset(quantity for _, quantity in values)


def _spaceless_units(lex: Lexicon) -> tuple[str, ...]:
    """The unit words of the languages written without spaces ("小时", "公斤"): a lone Han digit
    right before one is a number (:func:`.han_numerals.han_counts`)."""
    return tuple(u for u in lex.units if spaceless(u))


def told(text: str, lex: Lexicon) -> list[tuple[int, tuple[str, str]]]:
    """Each quantity of ``text`` with where it starts in the folded text: a number and what it
    counts (a unit's words are its one name, "kilos" is "kg"; another word's plural is its
    singular's term; a month, weekday or ordinal after a number makes a date, no quantity):
    "76 kg", "$400", "9:30", and a number word of more than two letters before a word ("three
    coffees": not "a coffee", whose article counts nothing)."""
    if not text.isascii():  # a Han digit is never ASCII: most facts skip the scan
        text = han_counts(text, _spaceless_units(lex))
    folded = fold(text)
    out = [(m.start(), q) for m in _QUANTITY.finditer(folded) if (q := _quantity(m, lex)) is not None]
    found = tokens(text)
    for word, unit in zip(found, found[1:], strict=False):
        number = lex.numbers.get(word.word)
        if number is None or len(word.word) <= 2 or not unit.word.isalpha() or text[word.end : unit.start].strip():
            continue
        if unit.word in STOP_WORDS or unit.word in lex.calendar or unit.word in lex.ordinals:
            continue
        named = lex.units.get(unit.word) or next(iter(terms(unit.word)), unit.word)
        out.append((word.start, (named, str(number))))
    return out + _elided(text, folded, found, lex)


#: The unit of a moved quantity told without one ("so we're down to one"): the thing the fact
#: counts elsewhere ("two of our chickens"), which the rule reads from its words.
ELIDED = ""


def _elided(text: str, folded: str, found: list[Token], lex: Lexicon) -> list[tuple[int, tuple[str, str]]]:
    """A number, in figures or words, that a ``quantity_changes`` row opens and a clause's end
    closes ("we're down to one.", "bajamos a dos"): a moved quantity whose unit is elided."""
    out = []
    for i, token in enumerate(found):
        number = lex.numbers.get(token.word) if token.word.isalpha() else None
        if number is None and not (token.word.isdigit() and len(token.word) <= 4):
            continue
        closes = i + 1 == len(found) or bool(_CLAUSE_MARKS & set(text[token.end : found[i + 1].start]))
        if closes and _changed_before(folded[: token.start], lex):
            out.append((token.start, (ELIDED, str(number if number is not None else int(token.word)))))
    return out


#: Marks that end a clause.
_CLAUSE_MARKS = frozenset(".,;:!?")


def _quantity(match: re.Match[str], lex: Lexicon) -> tuple[str, str] | None:
    symbol, amount, clock, number, unit = match.groups()
    if symbol:
        return symbol, amount.rstrip(".,")
    if clock:
        return ":", clock
    if unit in lex.units:
        return lex.units[unit], number.rstrip(".,")
    if spaceless(unit):  # a run of a script without spaces: "元了" holds the unit 元
        opening = next((lex.units[u] for u in sorted(lex.units, key=len, reverse=True) if unit.startswith(u)), None)
        return (opening or unit), number.rstrip(".,")
    if unit not in lex.calendar and unit not in lex.ordinals and unit not in STOP_WORDS:
        named = terms(unit)
        return named[0] if named else unit, number.rstrip(".,")
    return None


def moved(text: str, values: list[tuple[int, tuple[str, str]]], lex: Lexicon) -> frozenset[str]:
    """The units of the quantities ``text`` (read as ``values`` by :func:`told`) says moved: a
    ``quantity_changes`` row right before
    the quantity ("down to 76 kg", "rose to $1,400", "cut down to one coffee"; in a script
    without spaces, at the end of the run before it: "房租涨到3500元")."""
    folded = fold(text)
    out: set[str] = set()
    for start, (unit, _) in values:
        if _moved_after(folded[start:], lex):
            out.add(unit)
            continue
        if _changed_before(folded[:start], lex):
            out.add(unit)
    return frozenset(out)


def _changed_before(before: str, lex: Lexicon) -> bool:
    """Whether ``before`` (folded) ends with a ``quantity_changes`` row: "down to", "涨到"."""
    before = before.rstrip()
    for row in lex.quantity_changes:
        opens = len(before) - len(row)
        if before.endswith(row) and (spaceless(row) or opens == 0 or not before[opens - 1].isalnum()):
            return True
    return False


#: Most letters of a counter between a number and the words after it that say it moved ("1杯に").
COUNTER_LETTERS = 3
_NUMBER = re.compile(r"\d[\d,.]*\s*")


def _moved_after(rest: str, lex: Lexicon) -> bool:
    """Whether a ``quantity_changes_after`` row follows the number opening ``rest`` and its
    counter: Japanese "1杯に減らしました", Korean "1잔으로 줄였어요" (the verb after the number)."""
    number = _NUMBER.match(rest)
    if number is None or not lex.quantity_changes_after:
        return False
    after = rest[number.end() :]
    for skip in range(0, COUNTER_LETTERS + 1):
        if skip > len(after) or skip and (after[skip - 1].isdigit() or after[skip - 1].isspace()):
            break
        if after[skip:].startswith(lex.quantity_changes_after):
            return True
    return False


def in_parentheses(text: str, token: Token) -> bool:
    """Whether ``token`` stands inside "( ... )": the extractor's resolution of a relative
    date ("next week (the week of 12 January 2026)") repeats the date, it places nothing new."""
    opened = text.rfind("(", 0, token.start)
    return opened != -1 and text.rfind(")", opened, token.start) == -1


def anchored(found: list[Token], lex: Lexicon) -> bool:
    """Whether a fact names a point in time: a month or weekday, or a relative date; not
    one a state starts from ("starts at 10:00 from next week": a new value, no event)."""
    index = 0
    while index < len(found):
        opened = state_opening(found, index, lex, lex.calendar)
        if opened is not None:  # skip the opener and the date it opens
            index = opened[0]
            continue
        if found[index].word in lex.calendar or lex.relative_dates.at(found, index) is not None:
            return True
        index += 1
    return False


def state_opening(found: list[Token], index: int, lex: Lexicon, dates: frozenset[str]) -> tuple[int, bool] | None:
    """Past a state opener at ``index`` and the date it opens (a relative date, or a name of
    ``dates``): (the index after them, whether a date followed the opener); None when no
    opener stands there."""
    opener = lex.state_openers.at(found, index)
    if opener is None:
        return None
    index += opener[0]
    if index < len(found) - 1 and found[index].word in STOP_WORDS:  # "starting in May"
        index += 1
    date = lex.relative_dates.at(found, index)
    if date is not None:
        return index + date[0], True
    if index < len(found) and found[index].word in dates:
        return index + 1, True
    # "vanaf 1 maart": a day's number before a month.
    if index + 1 < len(found) and found[index].word.isdigit() and found[index + 1].word in dates:
        return index + 2, True
    return index, False


#: Fewest digits a phone number has: "1200 euros" and "2026" are no phone numbers.
PHONE_DIGITS = 7


def _values(text: str) -> list[tuple[str, str]]:
    """``text``'s values whose shape names their attribute, as (attribute, value as written)."""
    return [
        (kind, found)
        for kind, shape in VALUE_KINDS
        for found in shape.findall(text)
        if kind != "phone" or sum(c.isdigit() for c in found) >= PHONE_DIGITS
    ]


def value_kinds(text: str) -> list[str]:
    """The attributes ``text``'s values name by their shape (an e-mail, a phone number)."""
    return list(dict.fromkeys(kind for kind, _ in _values(text)))


def value_literals(text: str) -> frozenset[str]:
    """The e-mail addresses and phone numbers ``text`` tells, folded: an address in lower
    case, a phone number by its digits ("555-0101" and "555 0101" are one number)."""
    return frozenset(
        found.casefold().rstrip(".") if kind == "email" else "".join(c for c in found if c.isdigit())
        for kind, found in _values(text)
    )


#: How far from its "until" word a state's end date may stand ("fino al 2019", "until March 2019").
UNTIL_WINDOW = 2


def ended(words: list[str], lex: Lexicon) -> bool:
    """Whether a state is told with the date it ended or ends ("we lived there until 2019",
    "bis März bei Tom", "2019'a kadar İzmir'de", "2019年まで大阪に"): a stint, past or bounded,
    which no value held since gives way to (the date tells it is not open-ended)."""
    for i, word in enumerate(words):
        if word in lex.until and any(_is_date(w, lex) for w in words[i + 1 : i + 1 + UNTIL_WINDOW]):
            return True
        if word in lex.until_after and any(_is_date(w, lex) for w in words[max(0, i - UNTIL_WINDOW) : i]):
            return True
        # A run holding its year and its "until" ("直到2019年", "2019年まで大阪に住んでいました").
        if _year(word) and any(spaceless(row) and row in word for rows in (lex.until, lex.until_after) for row in rows):
            return True
    return False


def _is_date(word: str, lex: Lexicon) -> bool:
    return word in lex.dates or _year(word)


def _year(word: str) -> bool:
    """Whether ``word``'s first number is a year of four digits ("2019", "2019'a", "2019年まで",
    "直到2019年")."""
    start = next((i for i, c in enumerate(word) if c.isdigit()), None)
    if start is None:
        return False
    digits = "".join(takewhile(str.isdigit, word[start:]))
    return len(digits) == 4 and 1900 <= int(digits) <= 2100
