"""Versions of one fact in a result list: the newest first.

ADD-only keeps a changed fact beside the old one ("...phone number is
555-1234." then "...555-9876."). Both are equally relevant to "What is my phone
number?", and their scores differ only by embedding noise; the reader should
meet the current value first. Two hits are versions of one fact when their
texts are equal once the value-bearing tokens (numbers, and capitalized words
not starting a sentence) are masked, or when two short facts differ in one word
("favorite color is green" / "blue"); among the positions such a group holds in the ranking, its members are
placed newest first (observation time, then creation time, then the message of
the add they came from) and take the scores
of those positions, so the list stays sorted by score.

A change is often said in other words than the fact it changes: "I don't like
ramen anymore, I prefer pho now" after "My favourite food is ramen", or "the
appointment moved to Monday" after "your dentist appointment is on Friday". A
hit with a sentence saying it changes something (:data:`CHANGE`: "anymore",
"no longer", "now", "again", "rescheduled", "moved to Monday"...) is placed just above the
highest older hit that shares a common word with that sentence, when both share
one with the query (:func:`current_first`); the hits between move down one
place, and each position keeps its score. Names are not topics ("Emma doesn't
eat meat anymore" changes nothing of where Emma lives), and statements of two
named speakers (a conversation's two people) never supersede each other.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ..language import (
    CAPITALS_OPEN_AFTER,
    DEFAULT,
    SPACELESS,
    WORD_OR_NUMBER,
    Boundary,
    at_sentence_start,
    lexicon,
    script_of,
    split,
)
from ..language.scripts import runs
from ..records import MemoryRecord
from .hits import SearchHit
from .keywords import STOP_WORDS, terms

#: The language layer's words and numbers, and each other sign.
_TOKEN = re.compile(rf"{WORD_OR_NUMBER.pattern}|\S")
#: A stated change moves above an older hit only when it scores at least this share of it: both
#: must answer the query. "They work as a data analyst now." (0.26) is no newer version of "The
#: user's work email is alice@example.org." (0.75) for "What is my work email address?",
#: though both say "work"; a real change scores close to what it changes (0.52 against 0.80
#: for a rescheduled appointment).
MIN_SCORE_SHARE = 0.5
#: Fewer unmasked words than this and two texts are too generic to call versions of one fact.
MIN_WORDS = 3
#: Facts of at most this many tokens are versions of one another when one word differs.
ONE_WORD_MAX_TOKENS = 12
#: Words that are the frame of a fact, never the value that changed: the subject, and the
#: stop words ("She chews shoes." and "He chews shoes." are two facts, not two versions).
_LEXICON = lexicon(DEFAULT)
#: Who a memory is about, in every memory: never the topic two memories share.
_SUBJECTS = _LEXICON.words("subject_words")
_FRAME = STOP_WORDS | _SUBJECTS
#: Words by which a statement says it replaces an earlier one ("now" and "again" only ending a
#: clause: "works at Microsoft now", not "now that..."). Not "instead" or "moved to <a place>",
#: which in LoCoMo's conversations mark no change as often as one. LoCoMo is a history whose
#: questions ask about the earlier statement as often as the later: with this list 92 of its
#: 760 questions get a hit moved, recall@10 0.7691 -> 0.7685 and @50 unchanged, while the
#: retention suite's changed facts came newest first in 16 of 18 cases instead of 11.
CHANGE = re.compile(
    r"\b(?:"
    + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _LEXICON.phrases("change_words"))
    + "|(?:"
    + "|".join(re.escape(p) for p in _LEXICON.phrases("change_words_at_clause_end"))
    + r")(?=\s*(?:[.,;:!?)]|$))|(?:"
    + "|".join(_LEXICON.phrases("change_moves"))
    + ") (?:"
    + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _LEXICON.phrases("change_move_targets"))
    + r"|(?:the )?\d))\b",
    re.IGNORECASE,
)


def _spaceless(token: str) -> bool:
    return not token.isascii() and script_of(token[0]) in SPACELESS


def _pieces(token: str) -> list[str]:
    """A token as the key reads it: a run of a script without spaces ("私の電話番号は090-1234
    -5678です") is cut where the script changes, so the number in it is a value like any other."""
    if token.isascii() or not _spaceless(token):
        return [token]
    return [run for run, _ in runs(token)]


@lru_cache(maxsize=65_536)  # a scope's memories come back search after search: tokenize each once
def version_key(text: str) -> str | None:
    """``text`` with numbers and capitalized words masked, or None when too little is left.

    A run of a script without spaces is cut where its script changes, so a number inside it
    is masked like any other value, and counts one word per two characters (as the heuristic's
    content rule does): "The user: 火曜日はジムに行きます。" is a clause, not one word."""
    out: list[str] = []
    words = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        sentence_start = token[0].isupper() and at_sentence_start(text, match.start(), CAPITALS_OPEN_AFTER)
        for piece in _pieces(token):
            if piece[0].isdigit() or (piece[0].isupper() and not sentence_start):
                out.append("#")
            elif _spaceless(piece):
                out.append(piece.casefold())
                words += max(1, len(piece) // 2)
            else:
                out.append(piece.casefold())
                words += piece[0].isalpha()
    return " ".join(out) if words >= MIN_WORDS else None


@lru_cache(maxsize=65_536)
def _one_word_keys(key: str) -> tuple[str, ...]:
    """A short fact's version key with each word in turn left open: two facts sharing one
    differ in that word alone ("favorite color is green" / "blue").

    Only where words are written apart: a run of a script without spaces (Chinese, Japanese,
    Thai; Korean with its particles glued on) is a whole clause, so "火曜日はジムに行きます。"
    and "兄は大阪に住んでいます。" would differ in "one word" and read as versions of one
    fact. Such texts are versions only when equal once their values are masked."""
    tokens = key.split(" ")
    if len(tokens) > ONE_WORD_MAX_TOKENS or any(_spaceless(token) for token in tokens):
        return ()
    return tuple(
        " ".join([*tokens[:i], "*", *tokens[i + 1 :]])
        for i, token in enumerate(tokens)
        if token[0].isalpha() and token not in _FRAME
    )


def _version_groups(hits: list[SearchHit]) -> list[list[int]]:
    """Positions of ``hits`` grouped by fact: the same version key, or (short facts) keys
    differing in one word; groups sharing a member are one group."""
    parent = list(range(len(hits)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for position, hit in enumerate(hits):
        key = version_key(hit.record.text)
        if key is None:
            continue
        for shape in (key, *_one_word_keys(key)):
            other = first.setdefault(shape, position)
            parent[root(position)] = root(other)
    groups: dict[int, list[int]] = defaultdict(list)
    for position in range(len(hits)):
        groups[root(position)].append(position)
    return list(groups.values())


def newest_versions_first(hits: list[SearchHit]) -> list[SearchHit]:
    """``hits`` with each group of versions of one fact reordered newest first."""
    out = list(hits)
    for positions in _version_groups(hits):
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
        was = {id(hits[p]): p for p in positions}
        for position, member in zip(positions, members, strict=True):
            up = was[id(member)] > position
            out[position] = replace(member, score=hits[position].score, details=_marked(member, up, MOVED_AS_NEWER))
    return out


#: Why explain's ``reordered`` says a hit left its score's place: a newer version of one fact
#: goes above the older ones, a stated change above the hit it changes.
MOVED_AS_NEWER, MOVED_AS_CHANGE = "newer_version", "stated_change"


def _marked(hit: SearchHit, moved_up: bool, reason: str) -> dict[str, Any] | None:
    """``hit``'s explain details, with ``reordered`` when it moved above a hit of higher score."""
    if hit.details is None or not moved_up:
        return hit.details
    return dict(hit.details, reordered=reason)


def current_first(hits: list[SearchHit], query: str = "") -> list[SearchHit]:
    """``hits`` with versions of one fact newest first, then each stated change above the
    older hit it changes (see the module's description)."""
    ordered = newest_versions_first(hits)
    out = list(ordered)
    asked = _topic(query)
    moved = False
    for j in range(1, len(out)):
        later = out[j].record
        if not _change_topic(later.text):  # cached: a scope's memories come back search after search
            continue
        for i in range(j):
            if out[j].score >= MIN_SCORE_SHARE * out[i].score and _supersedes(later, out[i].record, asked):
                out.insert(i, out.pop(j))
                moved = True
                break
    if not moved:
        return ordered
    was = {id(hit): position for position, hit in enumerate(ordered)}
    return [
        replace(hit, score=ordered[position].score, details=_marked(hit, was[id(hit)] > position, MOVED_AS_CHANGE))
        for position, hit in enumerate(out)
    ]


def _supersedes(later: MemoryRecord, earlier: MemoryRecord, asked: frozenset[str]) -> bool:
    """Whether ``later``, a statement of change, is newer than ``earlier`` and on its topic,
    both about what was ``asked`` (the query's terms)."""
    if later.speaker and earlier.speaker and later.speaker.casefold() != earlier.speaker.casefold():
        return False
    if _when(later) <= _when(earlier):
        return False
    names = _topic(later.speaker or "") | _topic(earlier.speaker or "")
    new, old = _change_topic(later.text) - names, _topic(earlier.text) - names
    return bool(new & old) and bool(new & asked) and bool(old & asked)


def _when(record: MemoryRecord) -> tuple[object, ...]:
    """A memory's place in time (within one add: the message it came from)."""
    return (
        record.observed_at,
        record.created_at,
        -1 if record.source_message is None else record.source_message,
    )


@lru_cache(maxsize=65_536)
def _change_topic(text: str) -> frozenset[str]:
    """The terms of the sentences of ``text`` that say something changed: a long memory's
    "anymore" is about its own sentence, not about everything the memory mentions."""
    sentences = split(text, Boundary.SENTENCE)
    return frozenset().union(*(_topic(s) for s in sentences if CHANGE.search(s)))


@lru_cache(maxsize=65_536)
def _topic(text: str) -> frozenset[str]:
    """The indexed terms of ``text``'s common words: not the subject's ("user", "assistant"),
    nor names (capitalized words not starting a sentence). "Emma doesn't eat meat anymore"
    says nothing new of where Emma lives."""
    words = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if not (token[0].isupper() and not at_sentence_start(text, match.start(), CAPITALS_OPEN_AFTER)):
            words.append(token)
    return frozenset(terms(" ".join(words))) - _SUBJECTS
