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

The words are data (the ``atomic`` rows of the language layer's lexicon); a
language without them keeps one memory per message (split only by length).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from memorist.plugin_api import (
    Boundary,
    Token,
    has_boundary,
    language_of,
    lexicon,
    states_attribute,
    tokens,
)


@dataclass(frozen=True)
class AtomicWords:
    """A language's words for cutting a message into facts (its lexicon's ``atomic``)."""

    openers: frozenset[str]
    conjunctions: frozenset[str]
    marks: Boundary
    min_clause_words: int
    max_fact_words: int
    #: The language's first-person words (``first_person``): in a language that drops its
    #: pronoun, its first-person verb forms too ("tengo", "mam"). A sentence opening with
    #: one is the speaker's own, so it leans on no sentence before it.
    first_person: frozenset[str] = frozenset()
    #: Phrases that open a sentence with the speaker where a first-person word follows
    #: another word (``self_phrases``: the language's "I have", "у меня", "יש לי").
    phrases: tuple[str, ...] = ()
    #: Whether an opener opens a run of a script written without spaces ("私は東京に...").
    run_openers: bool = False


#: A language without ``atomic`` words: no cut within a sentence, and no length limit of its own.
_NONE = AtomicWords(frozenset(), frozenset(), Boundary(0), 0, 1 << 30)


@lru_cache(maxsize=64)
def words(language: str) -> AtomicWords:
    lex = lexicon(language)
    if not lex.get("atomic"):
        return _NONE
    return AtomicWords(
        lex.words("atomic", "self_openers"),
        lex.words("atomic", "clause_conjunctions"),
        Boundary.CLAUSE,
        int(lex.get("atomic", "min_clause_words")),
        int(lex.get("atomic", "max_fact_words")),
        # A group's "we" tells what the speaker's household does around the fact before
        # ("I'm visiting my parents. We will celebrate ..."): it may lean on it.
        lex.words("first_person") - lex.words("group_speaker_words"),
        lex.phrases("atomic", "self_phrases"),
        bool(lex.get("atomic", "run_openers")),
    )


def _words(text: str, language: str | None = None) -> AtomicWords:
    return words(language or language_of(text))


def _count(text: str) -> int:
    return len(tokens(text))


def _clause_words(clause: str, lexicon: AtomicWords) -> int:
    """How many words ``clause`` has, an elided opener a word of its own ("J'habite à Lyon"
    is four words, as "I live in Lyon" is): the clause is long enough to stand alone."""
    found = tokens(clause)
    return len(found) + sum(1 for t in found if _elided(t.word, lexicon))


def _elided(word: str, lexicon: AtomicWords) -> bool:
    """Whether ``word`` opens with an elided self opener ("j'habite": "j'")."""
    head, apostrophe, rest = word.replace("\u2019", "'").partition("'")
    return bool(apostrophe and rest) and f"{head}'" in lexicon.openers


def _opens(word: str, lexicon: AtomicWords) -> bool:
    """Whether ``word`` is a self opener: as a word, as the elided head of one ("j'habite"),
    or opening a run of a script without spaces ("私は東京に住んでいます")."""
    if word in lexicon.openers or word in lexicon.first_person:
        return True
    if _elided(word, lexicon):
        return True
    return lexicon.run_openers and any(word.startswith(opener) for opener in lexicon.openers)


def stands_alone(sentence: str, language: str | None = None) -> bool:
    """Whether ``sentence`` is the speaker's own statement, leaning on no sentence before it:
    it opens with the speaker: a self opener, or a word of the language's ``first_person``
    (where the language drops its pronoun, its first-person verb forms: "Mieszkam w
    Krakowie.", "Μένω στην Αθήνα."), or a ``self_phrases`` phrase ("У меня есть собака.")."""
    found = tokens(sentence)
    if not found:
        return False
    lexicon = _words(sentence, language)
    if _opens(found[0].word, lexicon):
        return True
    return any(_opens_with(found, phrase) for phrase in lexicon.phrases)


def _opens_with(found: list[Token], phrase: str) -> bool:
    """Whether the words ``found`` open with ``phrase``'s words."""
    said = phrase.split()
    return [t.word for t in found[: len(said)]] == said


def _cuts(sentence: str, lexicon: AtomicWords) -> list[tuple[int, int]]:
    """Where a conjunction (a word, or a semicolon) comes before a clause opening with the
    speaker: ``(end of the left clause, start of the right one)`` in ``sentence``."""
    found = tokens(sentence)
    cuts: list[tuple[int, int]] = []
    for i in range(1, len(found)):
        before = found[i - 1]
        joined = before.word in lexicon.conjunctions and i >= 2
        marked = not joined and has_boundary(sentence[before.end : found[i].start], lexicon.marks)
        if not (joined or marked):
            continue
        if not _opens(found[i].word, lexicon):
            continue
        if joined:
            gap = sentence[found[i - 2].end : before.start]
            cuts.append((found[i - 2].end if gap.strip(" ,;") == "" else before.start, found[i].start))
        else:
            cuts.append((before.end, found[i].start))
    return cuts


def clauses(sentence: str, language: str | None = None) -> list[str]:
    """``sentence`` cut where a conjunction joins two clauses about the speaker, when they are
    short plain statements and one of them states an attribute (else whole)."""
    lexicon = _words(sentence, language)
    if not lexicon.conjunctions and not lexicon.marks or not stands_alone(sentence, language):
        return [sentence]
    out: list[str] = []
    start = 0
    for end, after in _cuts(sentence, lexicon):
        left = sentence[start:end]
        if _clause_words(left, lexicon) < lexicon.min_clause_words:
            continue
        out.append(_closed(left))
        start = after
    if not out:
        return [sentence]
    out.append(_capitalized(sentence[start:]))
    plain = all(_count(part) <= lexicon.max_fact_words for part in out)
    return out if plain and any(own_fact(part, language) for part in out) else [sentence]


def own_fact(sentence: str, language: str | None = None) -> bool:
    """Whether ``sentence`` is kept as a memory of its own: a short statement of an attribute
    a later message may change."""
    return _count(sentence) <= _words(sentence, language).max_fact_words and states_attribute(sentence)


def fact_groups(sentences: list[str], language: str | None = None) -> list[list[str]]:
    """``sentences`` (one message's, in order, in ``language``: the message's, as one short
    sentence tells its language poorly) as memories: each attribute statement about the
    speaker with the sentences leaning on it, and the rest together (where it first began).
    Only a message of plain statements (each clause at most ``max_fact_words``) is split: a
    narrative's sentences stay one memory, as their context."""
    if not sentences:
        return []
    language = language or language_of(" ".join(sentences))
    limit = words(language).max_fact_words
    if any(_count(part) > limit for sentence in sentences for part in clauses(sentence, language)):
        return [sentences]
    groups: list[list[str]] = []
    rest: list[str] | None = None
    current: list[str] | None = None
    for sentence in sentences:
        for part in clauses(sentence, language):
            alone = stands_alone(part, language)
            if alone and own_fact(part, language):
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
