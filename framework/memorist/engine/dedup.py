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
   quantity and frequency words ("all", "some", "twice", "weekly") and units.

Any disagreement in those makes a new memory, whatever the cosine. Agreement
is checked both ways: each side's value tokens must occur in the other. A
proper noun agrees with the same word written in lower case ("Coffee is..."
at the start of a sentence and "...is coffee").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..language import CASELESS, pieces, script_of

_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|['’\-])*|\d[\d,.:/\-]*\d|\d|[$€£¥%]")
_NUMBER = re.compile(r"^\d[\d,.:/\-]*$")
#: Words whose difference changes the fact. Each maps to a canonical token, so that
#: paraphrases of one meaning agree ("no longer" and "anymore").
_VALUE_WORDS: dict[str, str] = {
    **{w: w for w in "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen".split()},
    **{w: w for w in "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy".split()},
    **{w: w for w in "eighty ninety hundred thousand million billion dozen half once twice thrice".split()},
    **{w: w for w in "first second third fourth fifth sixth seventh eighth ninth tenth last".split()},
    **{w: w for w in "january february march april may june july august september october november".split()},
    **{w: w for w in "december monday tuesday wednesday thursday friday saturday sunday".split()},
    **{w: w for w in "spring summer autumn fall winter morning evening night weekend weekends".split()},
    **{w: w for w in "all every each some none many few several most both more less fewer lot lots".split()},
    **{w: w for w in "always usually often sometimes rarely seldom occasionally daily weekly monthly".split()},
    **{w: w for w in "yearly annually hourly nightly".split()},
    **{w: w for w in "km kilometers kilometres miles mile kg kilos pounds lbs cm meters metres feet".split()},
    **{w: w for w in "foot inches inch years year months month weeks week days day hours hour minutes".split()},
    **{w: w for w in "dollars dollar euros euro percent".split()},
    **{w: "NOT" for w in "not never no none nobody nothing neither nor without cannot".split()},
    **{w: "ANYMORE" for w in "anymore longer".split()},
    **{w: "FORMER" for w in "used former formerly previously ex quit stopped".split()},
    **{w: "AGAINST" for w in "hate hates hated dislike dislikes disliked detest detests loathe loathes".split()},
}
#: Capitalized at a sentence start for grammar, not because they are names.
_NOT_NAMES = frozenset(
    """the a an my their they them he she it its this that these those we our us you your i remember note
    and but so then also yesterday today tomorrow there here what when where who why how yes no user assistant
    his her if as at in on of for to with by from about after before since until while because just""".split()
)


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
    for match in _WORD.finditer(lowered):
        token = match.group(0)
        if _NUMBER.match(token) or token in "$€£¥%":
            values.add(_canonical_number(token))
            continue
        bare = re.sub(r"'s$", "", token)
        low = bare.lower()
        words.add(low)
        if low.endswith("n't"):
            values.add("NOT")
            low = low[:-3]
        if not low.isascii() and _caseless(low):
            # No capitals tell a name in this script: every word (every character pair of a
            # script without spaces) counts as a value, so only the same words agree.
            values.update(piece for piece, _ in pieces(low))
        elif low in _VALUE_WORDS:
            values.add(_VALUE_WORDS[low])
        elif bare[:1].isupper() and low not in _NOT_NAMES and not shouting:
            names.add(low)  # checked case-blind against the other text's words
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
