"""The forms of a query that search matches besides the query itself.

The query in the voice of the memories ("What do I do for work?" searched as "What does
the user do for work?") is the language model's to offer (``LanguageModel.query_forms``,
see :mod:`memorist.language.voice`): the engine knows no pronoun. What is left here holds
in any language: a search pinned to a user leaves that user's id out of its keywords
(:func:`without_subject`), and entities common to the whole scope are left out of the
keyword query too (:func:`focus_query`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..language import words
from ..language.voice import subject_patterns
from ..records import EntityMention
from .entities import EntityMatch

#: Entities below this weight are too common in the scope to search by (see focus_query).
COMMON_ENTITY_WEIGHT = 0.35


def _enough(text: str) -> bool:
    """Whether ``text`` still has two words of three letters or more to search by."""
    return sum(len(w) >= 3 for w in words(text)) >= 2


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
    focused = " ".join(focused.split())
    return focused if _enough(focused) else query


def without_subject(query: str, user_ids: Sequence[str]) -> str:
    """``query`` without the searched ``user_id`` it names, for the keyword retriever (the
    memories say "the user", rarely the id); unchanged if too little would be left."""
    out = query
    for pattern in subject_patterns(user_ids):
        out = pattern.sub(" ", out)
    out = " ".join(out.split())
    return out if _enough(out) else query
