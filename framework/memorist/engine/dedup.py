"""When a new fact says the same thing as a stored one: the duplicate rule of ADD-only.

Extraction never updates or deletes, so a changed fact ("My phone number is
555-9876." after "...555-1234.") must be stored beside the old one. A cosine
threshold alone cannot tell a paraphrase from a changed value: the two phone
sentences are nearly identical to an embedder. So a fact is a duplicate only
when

1. its normalized text (case, spaces, final punctuation) equals a stored
   memory's in the same scope, or
2. it is a paraphrase (cosine >= ``near_duplicate_threshold``) **and** its
   value-bearing tokens agree with the stored memory's: numbers and amounts,
   dates (months, weekdays, ordinals, number words), proper nouns, negation
   and reversal words ("not", "never", "no longer", "hate", "used to"),
   quantity and frequency words ("all", "some", "twice", "weekly") and units, and
   the relatives a fact is about ("sister", "brother", "Schwester"): "My sister lives in
   Lyon too." is no paraphrase of "My brother lives in Lyon.".

Any disagreement in those makes a new memory, whatever the cosine. Agreement
is checked both ways: each side's value tokens must occur in the other. A
proper noun agrees with the same word written in lower case ("Coffee is..."
at the start of a sentence and "...is coffee").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..language import CASELESS, DEFAULT, NUMBER, WORD_OR_NUMBER, languages, lexicon, pieces, script_of
from ..language.common_words import common_words
from .keywords import STOP_WORDS

#: The language layer's words and numbers, and the signs of an amount.
_WORD = re.compile(rf"{WORD_OR_NUMBER.pattern}|[$€£¥%]")
#: Words whose difference changes the fact. Each maps to a canonical token, so that
#: paraphrases of one meaning agree ("no longer" and "anymore").
#: Every language's rows, the default's first: a negation in another language ("Je ne mange
#: plus de viande", "Ich esse kein Fleisch") is no paraphrase of the statement it negates.
_LEXICON = lexicon(DEFAULT)
_VALUE_WORDS: dict[str, str] = {}
for _code in (DEFAULT, *(c for c in languages() if c != DEFAULT)):
    _lex = lexicon(_code)
    for _token in _lex.get("value_words") or {}:
        for _word in _lex.words("value_words", _token):
            _VALUE_WORDS.setdefault(_word, _word if _token == "self" else _token)
#: Every language's relatives (and pets): whom a fact is about, so two facts of two people
#: never merge, however alike their words.
_RELATIVES = frozenset().union(*(lexicon(c).words("relatives") for c in languages()))
#: Capitalized at a sentence start for grammar, not because they are names.
_NOT_NAMES = _LEXICON.words("sentence_openers")
_NEGATION = str(_LEXICON.get("negation_suffix") or "\0")
#: Every language's listed words and the keyword stop words: in a text typed without
#: capitals, every other word may be a name.
_COMMON = frozenset().union(*(common_words(c) for c in languages())) | STOP_WORDS
#: The extractor's label of a speaker ("The user: "), capitalized whatever the speaker typed.
_LABEL = re.compile(r"^\s*the (?:user|assistant)(?:'s)?:?\s*", re.IGNORECASE)


@dataclass(frozen=True)
class ValueTokens:
    """The value-bearing tokens of a text, and all its words (for case-blind name checks)."""

    values: frozenset[str]
    names: frozenset[str]
    words: frozenset[str]


def _canonical_number(token: str) -> str:
    return token.replace(",", "").rstrip(".")


def value_tokens(text: str) -> ValueTokens:
    """Numbers, amounts, dates, names, negation, quantity and unit words of ``text``."""
    values: set[str] = set()
    names: set[str] = set()
    words: set[str] = set()
    lowered = text.replace("’", "'")
    letters = [c for c in lowered if c.isalpha()]
    # In a text written in capitals, case says nothing about names.
    shouting = len(letters) > 3 and sum(c.isupper() for c in letters) > 0.6 * len(letters)
    # Nor in one typed without any (past the extractor's label): "izmire geri döndük" names a
    # place all the same, so a word no lexicon lists counts as a name there.
    said = _LABEL.sub("", lowered, count=1)
    unmarked = len(said) > 3 and not any(c.isupper() for c in said)
    for match in _WORD.finditer(lowered):
        token = match.group(0)
        if NUMBER.fullmatch(token) or token in "$€£¥%":
            values.add(_canonical_number(token))
            continue
        bare = re.sub(r"'s$", "", token)
        low = bare.lower()
        words.add(low)
        if low.endswith(_NEGATION):
            values.add("NOT")
            low = low[: -len(_NEGATION)]
        if not low.isascii() and _caseless(low):
            # No capitals tell a name in this script: every word (every character pair of a
            # script without spaces) counts as a value, so only the same words agree.
            values.update(piece for piece, _ in pieces(low))
        elif low in _VALUE_WORDS:
            values.add(_VALUE_WORDS[low])
        elif low in _RELATIVES:
            values.add(low)
        elif bare[:1].isupper() and low not in _NOT_NAMES and not shouting:
            names.add(low)  # checked case-blind against the other text's words
        elif unmarked and low.isalpha() and low not in _COMMON:
            names.add(low)
    return ValueTokens(frozenset(values), frozenset(names), frozenset(words))


def _caseless(word: str) -> bool:
    return any(script_of(c) in CASELESS for c in word)


def values_agree(a: str, b: str) -> bool:
    """True when no value-bearing token of either text is missing from the other."""
    left, right = value_tokens(a), value_tokens(b)
    if left.values != right.values:
        return False
    return left.names <= right.words and right.names <= left.words


def same_fact(a: str, b: str, cosine: float, threshold: float) -> bool:
    """The duplicate rule for two texts whose normalized hashes differ."""
    return cosine >= threshold and values_agree(a, b)
