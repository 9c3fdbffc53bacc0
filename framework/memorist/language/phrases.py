"""Phrases of a lexicon matched on words: "good morning", "that's so cool", "i'm fine".

Matching on words rather than characters lets a list be plain data: a phrase matches the
same words whatever punctuation and spacing stand between them ("Hi, there" is "hi
there"), in any case, with either apostrophe, and an interjection may stretch its letters
("heyyy", "hmmm", "hahaha").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import DEFAULT, fold, lexicon
from .scripts import WORD


@dataclass(frozen=True)
class Token:
    """A word of a text: folded, and where it stands."""

    word: str
    start: int
    end: int
    surface: str


@lru_cache(maxsize=4096)
def tokens(text: str) -> list[Token]:
    """The words of ``text`` as :class:`Token`, in order (cached: each rule of a sentence's
    filters reads them; callers must not change the list)."""
    folded = fold(text)
    if len(folded) != len(text):  # casefold lengthened a letter ("ß" -> "ss"): fold each word
        return [Token(fold(m.group(0)), m.start(), m.end(), m.group(0)) for m in WORD.finditer(text)]
    return [Token(folded[m.start() : m.end()], m.start(), m.end(), m.group(0)) for m in WORD.finditer(text)]


_REPEATED_LETTER = re.compile(r"(.)\1+")
_REPEATED_PAIR = re.compile(r"(..)\1+")


@lru_cache(maxsize=65_536)
def squeezed(word: str) -> str:
    """``word`` with stretched letters and repeated pairs squeezed ("heyyy" -> "hey", "hahaha"
    -> "ha"): how an elongated interjection is recognised."""
    return _REPEATED_PAIR.sub(r"\1", _REPEATED_LETTER.sub(r"\1", word))


class Phrases:
    """Labelled phrases, matched longest first at a word position."""

    def __init__(self, labelled: dict[str, str], elongated: dict[str, str] | None = None) -> None:
        # Read with the tokenizer texts are read with ("go get 'em" is go, get, em).
        table = {tuple(fold(w) for w in WORD.findall(phrase)): label for phrase, label in labelled.items()}
        table.pop((), None)
        self._index(table, elongated or {})

    def _index(self, table: dict[tuple[str, ...], str], elongated: dict[str, str]) -> None:
        """Hold ``table`` (each phrase's words to its label) with the lengths of the phrases
        each first word opens, longest first, and the stretched forms ``elongated``."""
        self._table = table
        sizes: dict[str, set[int]] = {}
        for words in table:
            sizes.setdefault(words[0], set()).add(len(words))
        self._sizes = {first: sorted(found, reverse=True) for first, found in sizes.items()}
        self._elongated = elongated

    def __bool__(self) -> bool:
        return bool(self._table)

    def at(self, words: list[Token], index: int) -> tuple[int, str] | None:
        """``(how many words, label)`` of the longest phrase starting at ``words[index]``."""
        if index >= len(words):
            return None
        first = words[index].word
        left = len(words) - index
        for size in self._sizes.get(first, ()):
            if size > left:
                continue
            key = (first,) if size == 1 else tuple(w.word for w in words[index : index + size])
            label = self._table.get(key)
            if label is not None:
                return size, label
        if self._elongated and (label := self._elongated.get(squeezed(first))) is not None:
            return 1, label
        return None

    def anywhere(self, words: list[Token]) -> bool:
        """Whether some phrase occurs in ``words``."""
        return any(self.at(words, i) is not None for i in range(len(words)))

    def without(self, words: frozenset[str]) -> Phrases:
        """These phrases less the one-word ones in ``words`` (folded): another language's row
        read in a statement whose own grammar uses the word otherwise (German "also", so)."""
        kept = Phrases({})
        kept._index(
            {key: label for key, label in self._table.items() if len(key) > 1 or key[0] not in words},
            {k: v for k, v in self._elongated.items() if k not in words},
        )
        return kept

    def whole(self, words: list[Token]) -> str | None:
        """The label when ``words`` are exactly one phrase, else None."""
        found = self.at(words, 0) if words else None
        return found[1] if found is not None and found[0] == len(words) else None


@lru_cache(maxsize=256)
def phrases(*lists: str, language: str = DEFAULT) -> Phrases:
    """The phrases of ``lists`` in ``language``'s lexicon, each labelled with its list's name
    (an earlier list wins a phrase two share). Stretched forms of the lexicon's ``elongated``
    words match too, labelled like the unstretched word."""
    lex = lexicon(language)
    labelled: dict[str, str] = {}
    for name in lists:
        for phrase in lex.phrases(name):
            labelled.setdefault(phrase, name)
    stretchable = {squeezed(w): labelled[w] for w in lex.phrases("elongated") if w in labelled}
    return Phrases(labelled, stretchable)
