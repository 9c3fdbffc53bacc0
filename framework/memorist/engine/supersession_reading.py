"""How the supersession rule reads one fact: who it is about, which attributes it names,
whether it says it changes or adds, its topic words, names, quantities and shape.

:mod:`.supersession_rule` decides from two such readings; this module turns a fact's
text into one with the lists of :mod:`.supersession_lexicon` (the frame words of the
fact's own language and the default's, every language's content words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ..language import DEFAULT, Boundary, Token, fold, language_of, lexicon, split, tokens
from .keywords import STOP_WORDS, terms
from .supersession_lexicon import Frame, Lexicon, reading_lexicon, rule_lexicon, spaceless
from .versions import version_key

#: Values whose shape names their attribute in any language: an e-mail address, a phone number.
VALUE_KINDS = (
    ("email", re.compile(r"[\w.+\-]+@[\w\-]+\.[\w.\-]+")),
    ("phone", re.compile(r"(?<![\w.])\+?\d[\d \-().]{5,}\d(?![\w.]?\d)")),
)
#: A number and what it counts: "7 hours", "45 dollars", "$400", "9:30".
_QUANTITY = re.compile(r"([$€£¥])\s?(\d[\d,.]*)|\b(\d{1,2}:\d{2})\b|\b(\d[\d,.]*)\s*([^\W\d_]+)")
#: Longest facts read for the "X is V" shape: a long memory differs in more than one value.
COPULA_MAX_TOKENS = 14
#: The subject of a fact in the extractor's own voice for the speaker: the last word of the
#: lexicon's label for the user ("the user" -> "user").
SELF = str(lexicon(DEFAULT).get("speakers", "user") or "user").split()[-1].casefold()


def _is_copula(word: str, copulas: frozenset[str]) -> bool:
    """``word`` is a copula, alone ("is"), as a clitic on its subject ("I'm": "'m") or after an
    elided subject ("j'ai": "ai")."""
    if word in copulas or _base(word) in copulas:
        return True
    return any(c.startswith("'") and word.endswith(c) and len(word) > len(c) for c in copulas)


def _role(words: list[Token], frame: Frame) -> bool:
    """A role: "<copula> a|an <1 to most_words words> at|for" ("is a junior lawyer at ...")."""
    for i, token in enumerate(words[:-3]):
        if _is_copula(token.word, frame.copulas) and words[i + 1].word in frame.articles:
            last = min(i + 2 + frame.most_words, len(words) - 1)
            if any(words[j].word in frame.prepositions for j in range(i + 3, last + 1)):
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
        if closes and len(token.word) <= frame.most_digits and _is_copula(words[i - 1].word, frame.copulas):
            return tail in ("", ".", "!")
    return False


def _framed(text: str, words: list[Token], lex: Lexicon) -> list[str]:
    found = [frame.attribute for frame in lex.role if _role(words, frame)]
    return found + [frame.attribute for frame in lex.age if _age(words, text, frame)]


@dataclass(frozen=True)
class Reading:
    """What the rule needs of one fact's text."""

    subjects: frozenset[str]
    attributes: frozenset[str]
    topic: frozenset[str]
    additive: bool
    change: bool
    #: The text's value-masked shapes when it is a short "X is V" statement (else empty).
    shapes: frozenset[str]
    #: Its quantities as (unit, value): ("hour", "7"), ("$", "400"), (":", "9:30").
    quantities: frozenset[tuple[str, str]] = frozenset()
    #: Whether it places itself at a point in time (a weekday, a month, "yesterday"): an event.
    anchored: bool = False
    #: Whether it states a taste ("favourite", "prefers", "is into"): the preference slot.
    preference: bool = False
    #: The people and things it names (capitalized words past the first): "Mia", "Pixel".
    names: frozenset[str] = frozenset()
    #: How many words it has.
    size: int = 0
    #: Whether it says a habit began ("has started picking aisle seats").
    onset: bool = False
    #: Counts of things a person has, as (what is counted, number, told as an ordinal):
    #: ("children", 2, False) for "has two kids", ("children", 3, True) for "third child".
    counts: frozenset[tuple[str, int, bool]] = frozenset()
    #: The relatives whose thing the speaker's possessive names: "sister" in "the user's
    #: sister's visit" (the visit is the user's to plan and the sister's to make).
    owners: frozenset[str] = frozenset()


@lru_cache(maxsize=65_536)
def _base(word: str) -> str:
    """``word`` without a possessive ending ("user's" -> "user") or an elided word before it
    ("j'habite" -> "habite").

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
    return word


@lru_cache(maxsize=65_536)
def read(text: str) -> Reading:
    code = _language(text)
    lex = reading_lexicon(code)
    found = tokens(text)
    words = [t.word for t in found]
    # Names: capitalized words past the first; never a topic ("Emma" changes nothing of "Lisbon").
    names = {t.word for t in found[1:] if t.surface[0].isupper()}
    runs = [w for w in words if spaceless(w)]
    inside = _inside(runs, lex)
    attributes = frozenset(
        [lex.attributes[_base(w)] for w in words if _base(w) in lex.attributes]
        + _phrased(found, lex)
        + _value_kinds(text)
        + _framed(text, found, lex)
        + [attribute for stem, attribute in lex.inside_attributes if any(stem in run for run in runs)]
    )
    frame = lexicon(code).words("function_words") if code != DEFAULT else frozenset()
    kept = [
        _base(w)
        for w in words
        if w[0].isalpha()
        and _base(w) not in lex.speaker
        and w not in lex.change_words
        and w not in names
        and _base(w) not in frame
    ]
    topic = frozenset(terms(" ".join(kept)))
    based = [replace(t, word=_base(t.word)) for t in found]  # "j'adore": "adore", "user's": "user"
    # The extractor's resolution of a relative date ("Last month (December 2025) the user ...")
    # is no word of the sentence: its subject is still within the opening words.
    subjects = _clause_subjects(text, [t.word for t in found if not _in_parentheses(text, t)], lex)
    return Reading(
        subjects | {SELF} if _holds_taste(based, lex) else subjects,
        attributes,
        topic,
        lex.additive.anywhere(found) or "additive_words" in inside,
        lex.change.anywhere(found) or "replacement_words" in inside,
        _shapes(text, words, lex),
        _quantities(text, lex),
        _anchored([t for t in found if not _in_parentheses(text, t)], lex),
        lex.preferences.anywhere(based) or "preference_words" in inside,
        frozenset(
            n for n in names if _base(n) not in lex.speaker and _base(n) not in lex.attributes and n not in lex.others
        ),
        len(found),
        lex.onsets.anywhere(found) or "onset_words" in inside,
        _counts(words, lex),
        _owners(words, lex),
    )


def _holds_taste(based: list[Token], lex: Lexicon) -> bool:
    """Whether the speaker holds a taste the fact names, wherever it stands: "Padel has
    replaced tennis as the user's favourite sport", "Thai food is what the user craves now"
    are the user's tastes though they open with the thing."""
    return any(t.word == SELF and lex.preferences.at(based, i + 1) is not None for i, t in enumerate(based))


def _inside(runs: list[str], lex: Lexicon) -> set[str]:
    """The lists (``replacement_words``, ...) with a row inside one of ``runs``, the runs of a
    script written without spaces: "今は紅茶の方が好きです" holds 今は (a change) and 好き (a taste)."""
    if not runs:
        return set()
    return {kind for kind, stems in lex.inside.items() if any(stem in run for stem in stems for run in runs)}


def _counts(words: list[str], lex: Lexicon) -> frozenset[tuple[str, int, bool]]:
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


def _phrased(found: list[Token], lex: Lexicon) -> list[str]:
    """The attributes ``found`` names with a multi-word row ("split up": relationship)."""
    out = []
    for i in range(len(found)):
        hit = lex.attribute_phrases.at(found, i)
        if hit is not None:
            out.append(hit[1])
    return out


def _quantities(text: str, lex: Lexicon) -> frozenset[tuple[str, str]]:
    """``text``'s numbers with what they count (a unit's plural is its singular's term; a
    month, weekday or ordinal ending after a number makes a date, no quantity)."""
    out: set[tuple[str, str]] = set()
    for symbol, amount, clock, number, unit in _QUANTITY.findall(fold(text)):
        if symbol:
            out.add((symbol, amount.rstrip(".,")))
        elif clock:
            out.add((":", clock))
        elif unit not in lex.calendar and unit not in lex.ordinals and unit not in STOP_WORDS:
            named = terms(unit)
            out.add((named[0] if named else unit, number.rstrip(".,")))
    return frozenset(out)


def _in_parentheses(text: str, token: Token) -> bool:
    """Whether ``token`` stands inside "( ... )": the extractor's resolution of a relative
    date ("next week (the week of 12 January 2026)") repeats the date, it places nothing new."""
    opened = text.rfind("(", 0, token.start)
    return opened != -1 and text.rfind(")", opened, token.start) == -1


def _anchored(found: list[Token], lex: Lexicon) -> bool:
    """Whether a fact names a point in time: a month or weekday, or a relative date; not
    one a state starts from ("starts at 10:00 from next week": a new value, no event)."""
    index = 0
    while index < len(found):
        opener = lex.state_openers.at(found, index)
        if opener is not None:  # skip the opener and the date it opens
            index += opener[0]
            if index < len(found) - 1 and found[index].word in STOP_WORDS:  # "starting in May"
                index += 1
            date = lex.relative_dates.at(found, index)
            index += date[0] if date is not None else int(index < len(found) and found[index].word in lex.calendar)
            continue
        if found[index].word in lex.calendar or lex.relative_dates.at(found, index) is not None:
            return True
        index += 1
    return False


#: The extractor's label of who said a statement ("The user: Vivo en Sevilla.", "Caroline:
#: ..."): a name of a few words, not a preamble. The statement after it is the fact's first
#: clause, and its language is the statement's, not the label's.
_SPEAKER_LABEL = re.compile(r"^\s*[^\s:]+(?:\s+[^\s:]+){0,2}:\s*")


def _language(text: str) -> str:
    """The language ``text``'s statement is in (past the extractor's label). Its function
    words are no topic (the default's stop words :func:`terms` already drops)."""
    return language_of(_SPEAKER_LABEL.sub("", text, count=1))


#: Where a fact's clauses part: "David passed away in January; the user is a widow." is about
#: David and about the user; a colon opens what a preamble announces ("Some background:
#: they are based in Denver" is about the speaker).
_CLAUSE_BREAK = Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE


def _clause_subjects(text: str, words: list[str], lex: Lexicon) -> frozenset[str]:
    """Who a fact is about, and the speaker or a relative a later clause is about (a later
    clause's first word is no subject otherwise: ", it's 555-9876 now")."""
    out = _subjects(words, lex)
    label = _SPEAKER_LABEL.match(text)
    clauses = split(text[label.end() :] if label else text, _CLAUSE_BREAK)
    for clause in clauses[1:] if len(clauses) > 1 else ():
        found = [t.word for t in tokens(clause)]
        if len(found) >= 2:
            out |= {s for s in _subjects(found, lex) if s == SELF or s in lex.others}
    return out


def _subjects(words: list[str], lex: Lexicon) -> frozenset[str]:
    """Who a fact is about: its first word (past "the"), the speaker ("user") for the
    extractor's voice, for an attribute or change word opening a fact written without a
    subject ("Lives in Porto"), and for "the user" named early ("Anna and the user ...");
    the owned thing of a possessive that is not an attribute ("the user's sister ...")."""
    rest = words[1:] if words and words[0] in lex.articles else words
    if not rest:
        return frozenset()
    first = _base(rest[0])
    out: set[str] = set()
    other = False
    if first in lex.speaker or first in lex.attributes or first in lex.change_openers:
        out.add(SELF)
        # A possessive: "the user's <owned> ...", or the speaker's own "my" after the
        # extractor's label ("The user: Ma sœur habite à Paris.").
        owner = rest[0] != first or (first == SELF and len(rest) > 1 and rest[1] in lex.speaker)
        owned = next(
            (
                _base(w)
                for w in rest[1:4]
                if _base(w) not in lex.attributes and _base(w) not in lex.speaker and w.isalpha()
            ),
            None,
        )
        if owner and owned in lex.others:
            out, other = {owned}, True
    else:
        out.add(first)
    if SELF in (_base(w) for w in rest[:5]) and not other and not (rest[0] != first and first == SELF):
        out.add(SELF)
    return frozenset(out)


def _owners(words: list[str], lex: Lexicon) -> frozenset[str]:
    """The relative a possessive chain opening the fact names past the speaker ("the user's
    sister's visit": sister)."""
    rest = words[1:] if words and words[0] in lex.articles else words
    if len(rest) < 3 or _base(rest[0]) not in lex.speaker or rest[0] == _base(rest[0]):
        return frozenset()
    owned = rest[1]
    return frozenset({_base(owned)}) if owned != _base(owned) and _base(owned) in lex.others else frozenset()


def _shapes(text: str, words: list[str], lex: Lexicon) -> frozenset[str]:
    """A short "X is V" fact's version key, and the key with each word left open."""
    if (
        len(words) > COPULA_MAX_TOKENS
        or not lex.copulas & {w for w in words}
        and not any(w.endswith(("'s", "’s")) for w in words[2:])
    ):
        return frozenset()
    key = version_key(text)
    if key is None:
        return frozenset()
    tokens = key.split(" ")
    open_one = {
        " ".join([*tokens[:i], "*", *tokens[i + 1 :]])
        for i, token in enumerate(tokens)
        if token[0].isalpha() and token not in STOP_WORDS and _base(token) not in lex.speaker
    }
    return frozenset({key, *open_one})


def states_attribute(text: str) -> bool:
    """Whether ``text`` names an attribute a person holds one value of at a time (where they
    live, their phone number, ...): a fact a later one may replace, which an extractor keeps
    as a memory of its own so the replacement takes nothing else with it."""
    return bool(read(text).attributes)


def _value_kinds(text: str) -> list[str]:
    """The attributes ``text``'s values name by their shape; a phone number needs seven digits
    or more (not "1200 euros", nor "2026")."""
    return [
        kind
        for kind, shape in VALUE_KINDS
        if any(kind != "phone" or sum(c.isdigit() for c in found) >= 7 for found in shape.findall(text))
    ]
