"""One memory per fact a later message may change.

"I like tea. My phone number is 555-1234." states two facts; stored as one
memory, a later "I changed my number" would have to supersede the tea too.
A sentence that opens with the speaker as its subject ("I ...", "My ...") and
states an attribute a person holds one value of at a time (where they live,
their number, employer, partner: ``states_attribute``, the supersession
rule's own reading) becomes a memory of its own, in a message of short plain
statements (each at most ``max_fact_words``); a sentence that leans on it
("It has a garden.") stays with it. The other sentences of the message stay
together as one memory, as before: a conversation's sentences keep each
other's context (splitting every sentence cost LoCoMo recall@10 0.766 ->
0.753; splitting every attribute sentence, 0.757; every short one, 0.764).
Within a sentence, "I moved to Porto last year and I work at Spotify" is cut
where a conjunction joins two clauses that each open with the speaker
("... and I ..."), the first long enough to be a clause rather than a
compound subject ("My husband and I celebrated ..." stays whole), when a
part states such an attribute.

The words are data (``atomic.<lang>.yaml``); a language without a file keeps
one memory per message (split only by length).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from memorist.plugin_api import states_attribute

WORDS = Path(__file__).with_name("atomic.en.yaml")
_WORD = re.compile(r"[\w'’]+")


@dataclass(frozen=True)
class AtomicWords:
    openers: frozenset[str]
    clause_split: re.Pattern[str]
    min_clause_words: int
    max_fact_words: int


@lru_cache(maxsize=1)
def words() -> AtomicWords:
    raw = yaml.safe_load(WORDS.read_text(encoding="utf-8"))
    openers = frozenset(w.casefold() for w in raw["self"])
    joins = sorted((re.escape(c) for c in raw["conjunctions"]), key=len, reverse=True)
    subjects = "|".join(sorted((re.escape(w) for w in openers), key=len, reverse=True))
    # Split before the subject: "<left>, and I work ..." -> "<left>" + "I work ...".
    pattern = re.compile(rf"\s*(?:{'|'.join(joins)})\s+(?=(?:{subjects})\b)", re.IGNORECASE)
    return AtomicWords(openers, pattern, int(raw["min_clause_words"]), int(raw["max_fact_words"]))


def stands_alone(sentence: str) -> bool:
    """Whether ``sentence`` opens with the speaker as its subject."""
    first = _WORD.match(sentence.lstrip("\"“'(‘ "))
    return first is not None and first.group(0).casefold() in words().openers


def clauses(sentence: str) -> list[str]:
    """``sentence`` cut where a conjunction joins two clauses about the speaker, when they are
    short plain statements and one of them states an attribute (else whole)."""
    lexicon = words()
    if not stands_alone(sentence):
        return [sentence]
    out: list[str] = []
    start = 0
    for match in lexicon.clause_split.finditer(sentence):
        left = sentence[start : match.start()]
        if len(_WORD.findall(left)) < lexicon.min_clause_words:
            continue
        out.append(_closed(left))
        start = match.end()
    if not out:
        return [sentence]
    out.append(_capitalized(sentence[start:]))
    plain = all(len(_WORD.findall(part)) <= lexicon.max_fact_words for part in out)
    return out if plain and any(own_fact(part) for part in out) else [sentence]


def own_fact(sentence: str) -> bool:
    """Whether ``sentence`` is kept as a memory of its own: a short statement of an attribute
    a later message may change."""
    return len(_WORD.findall(sentence)) <= words().max_fact_words and states_attribute(sentence)


def fact_groups(sentences: list[str]) -> list[list[str]]:
    """``sentences`` (one message's, in order) as memories: each attribute statement about the
    speaker with the sentences leaning on it, and the rest together (where it first began).
    Only a message of plain statements (each clause at most ``max_fact_words``) is split: a
    narrative's sentences stay one memory, as their context."""
    limit = words().max_fact_words
    if any(len(_WORD.findall(part)) > limit for sentence in sentences for part in clauses(sentence)):
        return [sentences] if sentences else []
    groups: list[list[str]] = []
    rest: list[str] | None = None
    current: list[str] | None = None
    for sentence in sentences:
        for part in clauses(sentence):
            alone = stands_alone(part)
            if alone and own_fact(part):
                current = [part]
                groups.append(current)
            elif current is not None and not alone:
                current.append(part)
            else:
                current = None
                if rest is None:
                    rest = []
                    groups.append(rest)
                rest.append(part)
    return groups


def _closed(clause: str) -> str:
    clause = clause.rstrip(" ,;")
    return clause if clause.endswith((".", "!", "?")) else f"{clause}."


def _capitalized(clause: str) -> str:
    """A split-off clause opening a sentence ("i" is already upper case in English)."""
    return clause[:1].upper() + clause[1:]
