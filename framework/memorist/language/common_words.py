"""The words a language's lexicon lists anywhere, and whether a sentence's capitalized
opening word is one of them rather than a name.

A sentence's first word is capitalized whatever it is, so its capital is no sign of a name:
"The assistant: Då har ni 3 katter nu." opens with an adverb ("then"), "The user: Mia
turned 5" with a name. A word the language's lexicon lists in any list (function words,
openers, change, recency, additive, attribute words, ...) is a common word of that language,
never a person's name; every other capitalized opening word may be one. The language is read
from the rest of the sentence, without the word itself: a short statement's language is
unsure, and the opening word would vote for itself ("Mia" is Italian for "my", yet "Mia
turned 5" is English).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .lexicon import _top_level, expand, fold, languages, lexicon

#: Lists that hold names or whole sentences rather than a language's common words: months,
#: weekdays and seasons are given names too ("June", "April", "Summer"), and the example
#: sentences name people and places ("The user lives in Porto").
_NOT_COMMON = frozenset(
    {
        "language",
        "scripts",
        "letters",
        "months",
        "weekdays",
        "seasons",
        "attribute_prototypes",
        "taste_prototypes",
        "unrelated_statements",
        "speakers",
        "speaker_frame",
        "reply_frame",
        "question_frame",
        "reminder_statement",
        "atomic",
    }
)


def _words(node: Any) -> set[str]:
    """The single words of every entry under ``node``: a word list splits at spaces, a phrase
    list at ``|`` and its braces' options, and every phrase's words count."""
    if isinstance(node, dict):
        return {w for key, value in node.items() if str(key) not in _NOT_COMMON for w in _words(value)}
    if isinstance(node, list):
        return {w for item in node for w in _words(item)}
    if not isinstance(node, str) or "{speaker}" in node:
        return set()
    phrases = [variant for item in _top_level(node) for variant in expand(item)]
    return {w.strip('.,;:!?¿¡"') for phrase in phrases for w in fold(phrase).split()} - {""}


@lru_cache(maxsize=64)
def common_words(code: str) -> frozenset[str]:
    """Every word language ``code``'s lexicon lists (folded), past the lists of names and
    sentences (:data:`_NOT_COMMON`); empty for a language without a lexicon."""
    if code not in languages():
        return frozenset()
    return frozenset(_words(lexicon(code).data))


@lru_cache(maxsize=4096)
def _rest_language(rest: str) -> str:
    """The language whose lexicon lists the most of ``rest``'s words: a short sentence holds
    few function words ("ustedes tienen tres perros ahora" has none the detector weighs), but
    its pronouns, numbers, nouns and change words are rows of its language's lists. The
    detector's answer where no language lists more than the others."""
    from . import language_of  # the package's detector, imported late: it imports this layer

    said = [w.strip('.,;:!?¿¡"') for w in fold(rest).split()]
    said = [w for w in said if w]
    votes = {code: sum(w in common_words(code) for w in said) for code in languages()}
    best = max(votes.values(), default=0)
    leaders = [code for code, n in votes.items() if n == best]
    detected = language_of(rest)
    return detected if best == 0 or detected in leaders else leaders[0] if len(leaders) == 1 else detected


def listed_language(text: str) -> str:
    """The language ``text`` is in, read as :func:`_rest_language` reads a sentence's rest: the
    detector's answer unless another language's lexicon lists more of its words."""
    return _rest_language(text) if text.strip() else text


def opens_with_common_word(word: str, rest: str) -> bool:
    """Whether ``word``, capitalized at a sentence's opening, is a common word of the language
    ``rest`` (the sentence past it) is in: an adverb or a function word, not a name."""
    return fold(word) in common_words(_rest_language(rest)) if rest.strip() else False
