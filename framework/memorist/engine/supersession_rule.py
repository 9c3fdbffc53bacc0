"""When a newly stored fact replaces an older one: the rule an add applies once.

An add compares each fact it stores with the scope's nearest stored memories
(the ones its duplicate check already read). The newer fact supersedes an older
one when both are about the same subject, the newer was observed no earlier,
it does not say it adds to what was said ("also", "another", ...), and one of:

- both name the same **attribute** a person holds one value of at a time
  (where they live, their phone number, employer, partner, ...): "lives in
  Lisbon" / "moved to Porto";
- the newer **says it changes something** ("now", "no longer", "switched",
  "changed", ...) and shares a topic word with the older: "dentist appointment
  on Friday" / "the dentist appointment was rescheduled to Monday";
- both are **"X is V" statements** that differ only in the value: "favorite
  color is blue" / "favorite color is green", "is 30" / "is 31".

The words are data (``lexicon/supersession.<lang>.yaml``); this module is the
mechanism. Facts of two different speakers never supersede each other. What
stays apart: "has a dog" / "also has a cat", "likes tea" / "likes coffee",
"visited Paris" / "visited Rome" (no exclusive attribute, no stated change).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..records import MemoryRecord
from .keywords import STOP_WORDS, terms
from .versions import version_key

LEXICON = Path(__file__).with_name("lexicon") / "supersession.en.yaml"
_WORD = re.compile(r"[^\W\d_][\w'’\-]*|\d[\d,.:/\-]*\d|\d", re.UNICODE)
#: Values whose shape names their attribute in any language: an e-mail address, a phone number.
VALUE_KINDS = (
    ("email", re.compile(r"[\w.+\-]+@[\w\-]+\.[\w.\-]+")),
    ("phone", re.compile(r"(?<![\w.])\+?\d[\d \-().]{5,}\d(?![\w.]?\d)")),
)
#: Longest facts read for the "X is V" shape: a long memory differs in more than one value.
COPULA_MAX_TOKENS = 14


@dataclass(frozen=True)
class Lexicon:
    """The word lists of one language."""

    attributes: dict[str, str]  # word -> attribute
    additive: tuple[tuple[str, ...], ...]
    change: tuple[tuple[str, ...], ...]
    copulas: frozenset[str]
    speaker: frozenset[str]
    others: frozenset[str]
    frames: tuple[tuple[str, re.Pattern[str]], ...] = ()

    @classmethod
    def load(cls, path: Path = LEXICON) -> Lexicon:
        raw: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
        attributes = {word.casefold(): name for name, words in raw["attributes"].items() for word in words}
        return cls(
            attributes,
            tuple(tuple(p.casefold().split()) for p in raw["additive"]),
            tuple(tuple(p.casefold().split()) for p in raw["change"]),
            frozenset(w.casefold() for w in raw["copulas"]),
            frozenset(w.casefold() for w in raw["speaker"]),
            frozenset(w.casefold() for w in raw.get("others", ())),
            tuple(
                (name, re.compile(pattern, re.IGNORECASE))
                for name, patterns in raw.get("frames", {}).items()
                for pattern in patterns
            ),
        )


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    return Lexicon.load()


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


def _has(words: list[str], phrases: tuple[tuple[str, ...], ...]) -> bool:
    for phrase in phrases:
        n = len(phrase)
        if any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1)):
            return True
    return False


def _base(word: str) -> str:
    """``word`` without a possessive ending ("user's" -> "user")."""
    for ending in ("'s", "’s", "'", "’"):
        if word.endswith(ending) and len(word) > len(ending):
            return word[: -len(ending)]
    return word


@lru_cache(maxsize=65_536)
def read(text: str) -> Reading:
    lex = lexicon()
    tokens = _WORD.findall(text)
    words = [t.casefold() for t in tokens]
    # Names: capitalized words past the first; never a topic ("Emma" changes nothing of "Lisbon").
    names = {w for t, w in zip(tokens[1:], words[1:], strict=True) if t[0].isupper()}
    attributes = frozenset(
        [lex.attributes[_base(w)] for w in words if _base(w) in lex.attributes]
        + _value_kinds(text)
        + [name for name, frame in lex.frames if frame.search(text)]
    )
    change_words = {w for phrase in lex.change for w in phrase}
    kept = [
        _base(w)
        for w in words
        if w[0].isalpha() and _base(w) not in lex.speaker and w not in change_words and w not in names
    ]
    topic = frozenset(terms(" ".join(kept)))
    return Reading(
        _subjects(words, lex),
        attributes,
        topic,
        _has(words, lex.additive),
        _has(words, lex.change),
        _shapes(text, words, lex),
    )


def _subjects(words: list[str], lex: Lexicon) -> frozenset[str]:
    """Who a fact is about: its first word (past "the"), the speaker ("user") for the
    extractor's voice, for an attribute or change word opening a fact written without a
    subject ("Lives in Porto"), and for "the user" named early ("Anna and the user ...");
    the owned thing of a possessive that is not an attribute ("the user's sister ...")."""
    rest = words[1:] if words and words[0] == "the" else words
    if not rest:
        return frozenset()
    first = _base(rest[0])
    out: set[str] = set()
    if first in lex.speaker or first in lex.attributes or any(first == p[0] for p in lex.change):
        out.add("user")
        owner = rest[0] != first  # a possessive: "the user's <owned> ..."
        owned = next((_base(w) for w in rest[1:4] if _base(w) not in lex.attributes and w.isalpha()), None)
        if owner and owned in lex.others:
            out = {owned}
    else:
        out.add(first)
    if "user" in (_base(w) for w in rest[:5]) and rest[0] not in ("user's", "user’s"):
        out.add("user")
    return frozenset(out)


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


def supersedes(newer: MemoryRecord, older: MemoryRecord) -> bool:
    """Whether storing ``newer`` makes ``older`` a past version (see the module's description)."""
    if newer.id == older.id or newer.hash == older.hash:
        return False
    if (newer.speaker or "").casefold() != (older.speaker or "").casefold():
        return False
    if newer.attributed_to and older.attributed_to and newer.attributed_to != older.attributed_to:
        return False
    if older.observed_at > newer.observed_at:
        return False
    new, old = read(newer.text), read(older.text)
    if new.additive or not new.subjects & old.subjects:
        return False
    if new.attributes & old.attributes:
        return True
    if new.change and new.topic & old.topic:
        return True
    return bool(new.shapes & old.shapes)


def _value_kinds(text: str) -> list[str]:
    """The attributes ``text``'s values name by their shape; a phone number needs seven digits
    or more (not "1200 euros", nor "2026")."""
    return [
        kind
        for kind, shape in VALUE_KINDS
        if any(kind != "phone" or sum(c.isdigit() for c in found) >= 7 for found in shape.findall(text))
    ]
