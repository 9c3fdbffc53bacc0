"""The forms of a query that search embeds or matches besides the query itself.

Memories are written about their subject in the third person: the heuristic
extractor writes an unnamed speaker as "the user" ("The user works at
Google."), and extraction prompts do the same. Queries are written by whoever
asks: an agent passing on the user's own question asks in the first person
("What do I do for work?"), a support tool by the user's id ("What does alice
like?"). Either way the question is about "the user"; embedded as written it
lands far from the memory that answers it (MiniLM: 0.16 for "What do I do for
work?" against 0.63 for "What does the user do for work?", both against "The
user works at Google."). So a search pinned to a user embeds the query as the
memories would say it as well (see :func:`subject_alias` and
:func:`first_person_alias`), and leaves the id out of its keywords
(:func:`without_subject`). Entities common to the whole scope are left out of
the keyword query too (:func:`focus_query`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..records import EntityMention
from .entities import EntityMatch

#: Entities below this weight are too common in the scope to search by (see focus_query).
COMMON_ENTITY_WEIGHT = 0.35

_CONTENT = re.compile(r"[A-Za-z0-9]{3,}")


def focus_query(query: str, mentions: Sequence[EntityMention], matches: Sequence[EntityMatch]) -> str:
    """The query without entities so common in the scope that they carry no information.

    In one user's memories the user's own name (or a frequent companion's)
    appears almost everywhere; left in the query it pulls short memories that
    merely name them above the ones about what was asked. Like IDF for
    entities: names whose graph weight is below ``COMMON_ENTITY_WEIGHT`` are
    dropped, unless that would leave too little to search for.
    """
    common = [m.name.casefold() for m in matches if m.weight < COMMON_ENTITY_WEIGHT]
    if not common:
        return query
    focused = query
    for mention in mentions:
        surface = mention.text.casefold()
        if mention.kind == "proper_noun" and any(n == surface or n.startswith(surface) for n in common):
            focused = re.sub(rf"\b{re.escape(mention.text)}(?:'s|’s)?\b", " ", focused)
    focused = re.sub(r"\s+", " ", focused).strip()
    return focused if len(_CONTENT.findall(focused)) >= 2 else query


def subject_alias(query: str, user_ids: Sequence[str]) -> str | None:
    """The query with the searched ``user_id`` written as "the user", when the query names it.

    Extraction writes an unnamed speaker as "the user" (ids are often opaque), so
    "What does alice like?" in alice's memories means "What does the user like?".
    None when the query does not name the id (nothing to add).
    """
    for pattern in _subject_patterns(user_ids):
        if pattern.search(query):
            return pattern.sub(lambda m: "the user's" if m.group(0)[-2:] in ("'s", "’s") else "the user", query)
    return None


def without_subject(query: str, user_ids: Sequence[str]) -> str:
    """``query`` without the searched ``user_id`` it names, for the keyword retriever (the
    memories say "the user", rarely the id); unchanged if too little would be left."""
    out = query
    for pattern in _subject_patterns(user_ids):
        out = pattern.sub(" ", out)
    out = re.sub(r"\s+", " ", out).strip()
    return out if len(_CONTENT.findall(out)) >= 2 else query


def _subject_patterns(user_ids: Sequence[str]) -> list[re.Pattern[str]]:
    """The searched ids as a query writes them: whole words, possessive too, any case."""
    return [
        re.compile(rf"(?<![\w-]){re.escape(user_id)}(?:'s|’s)?(?![\w-])", re.I)
        for user_id in user_ids
        if len(user_id) >= 2
    ]


_APOSTROPHE = "['’]"
#: First-person forms and how they read about "the user", tried in this order at each place
#: (an inverted auxiliary agrees with its new subject: "do I" -> "does the user").
_FIRST_PERSON: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bam i\b", re.I), "is the user"),
    (re.compile(rf"\bi am\b|\bi{_APOSTROPHE}m\b", re.I), "the user is"),
    (re.compile(rf"\bdon{_APOSTROPHE}t i\b|\bdo not i\b", re.I), "doesn't the user"),
    (re.compile(r"\bdo i\b", re.I), "does the user"),
    (re.compile(rf"\bhaven{_APOSTROPHE}t i\b", re.I), "hasn't the user"),
    (re.compile(r"\bhave i\b", re.I), "has the user"),
    (re.compile(rf"\bi have\b|\bi{_APOSTROPHE}ve\b", re.I), "the user has"),
    (re.compile(rf"\bi{_APOSTROPHE}d\b", re.I), "the user would"),
    (re.compile(rf"\bi{_APOSTROPHE}ll\b", re.I), "the user will"),
    (re.compile(r"\bi\b(?![.’'])", re.I), "the user"),
    (re.compile(r"\bmy\b|\bmine\b", re.I), "the user's"),
    (re.compile(r"\bme\b|\bmyself\b", re.I), "the user"),
]
#: What the user asks the assistant did ("What did you recommend?", "your advice"): the
#: memories say "the assistant". A request ("Can you remind me...?") is not rewritten.
_SECOND_PERSON: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bdid you\b", re.I), "did the assistant"),
    (re.compile(r"\bhave you\b", re.I), "has the assistant"),
    (
        re.compile(
            r"\byou(?=\s+(?:told|said|recommended|suggested|mentioned|gave|showed|reminded|sent|promised|explained|"
            r"booked|found|advised|proposed|picked|chose|planned|shared|taught|offered|warned)\b)",
            re.I,
        ),
        "the assistant",
    ),
    (
        re.compile(
            r"\byour(?=\s+(?:advice|suggestions?|recommendations?|ideas?|tips?|reminders?|plan|answer|summary|notes?)\b)",
            re.I,
        ),
        "the assistant's",
    ),
]
_FORMS = _FIRST_PERSON + _SECOND_PERSON
_ANY_FORM = re.compile("|".join(f"(?:{pattern.pattern})" for pattern, _ in _FORMS), re.I)
#: Capitalized words that number what follows them with a roman numeral ("Type I diabetes").
_NUMBERING_WORD = re.compile(
    r"\b(?:Type|Phase|Part|Chapter|Volume|Vol|Act|Stage|Level|Class|Grade|Season|Episode|Book|Round|Article|"
    r"Section|Category|War|Division|League|Tier|Schedule)\s+$"
)
#: Capitalized words that open a sentence or a time rather than a name ("In March I moved").
_NOT_A_NAME = (
    r"(?:In|On|At|By|For|From|Since|After|Before|Until|When|While|Last|This|Next|Every|And|But|Or|So|If|Then|"
    r"Did|Do|Does|What|Where|Which|Who|How|Why|Can|Could|Should|Would|Will|Have|Has|Am|Was|Were|Is|Are|"
    r"January|February|March|April|May|June|July|August|September|October|November|December|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
)
#: Two capitalized words of a name just before the "I": "King Charles I", "Final Fantasy I".
_NAME_OF_TWO = re.compile(rf"(?<![\w'’])(?!{_NOT_A_NAME})[A-Z][\w'’-]*\s+(?!{_NOT_A_NAME})[A-Z][\w'’-]*\s+$")


def third_person_alias(query: str) -> str | None:
    """``query`` as the memories would say it, where it speaks in the first or second
    person; None when it does not.

    "What do I do for work?" -> "What does the user do for work?", "Where is my
    passport?" -> "Where is the user's passport?", "What did you recommend?" ->
    "What did the assistant recommend?". The statement forms ("I am", "I have")
    keep their place ("the user is"); a verb after a bare "I" keeps its form
    ("things I love" -> "things the user love"), which the embedding does not
    mind. Only for a search pinned to a user: in an agent's memories "I" may be
    the agent.
    """

    def third_person(match: re.Match[str]) -> str:
        surface = match.group(0)
        if surface == "I" and _is_a_numeral(match.string[: match.start()]):
            return surface
        for pattern, replacement in _FORMS:
            # Matched in place: a form's lookahead reads past its surface.
            here = pattern.match(match.string, match.start())
            if here is not None and here.end() == match.end():
                return (
                    replacement[:1].upper() + replacement[1:]
                    if surface[:1].isupper() and match.start() == 0
                    else replacement
                )
        return surface  # pragma: no cover - the alternation only matches listed forms

    aliased = _ANY_FORM.sub(third_person, query)
    return aliased if aliased != query else None


def _is_a_numeral(before: str) -> bool:
    """Whether a capital "I" after ``before`` is the roman numeral ending a name ("World War
    I", "King Charles I", "Type I"), which a speaker's "I" never is."""
    return _NUMBERING_WORD.search(before) is not None or _NAME_OF_TWO.search(before) is not None
