"""A query in the voice memories are written in: about "the user", not "I".

Memories are written about their subject in the third person ("The user works at
Google."); a question arrives as whoever asks it: an agent passing on the user's own
question ("What do I do for work?"), a support tool by the user's id ("What does alice
like?"). Embedded as written it lands far from its answer (MiniLM: 0.16 for "What do I do
for work?" against 0.63 for "What does the user do for work?", both against "The user
works at Google."). A language model that writes memories in that voice offers the
question in it too (``LanguageModel.query_forms``); these are the forms for the voice of
the lexicon's ``speakers``, read from its ``person.query_*`` tables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .lexicon import DEFAULT, lexicon
from .person import Form, PersonTable, shift, table


def subject_alias(query: str, user_ids: Sequence[str], user: str = "the user") -> str | None:
    """The query with the searched ``user_id`` written as ``user``, when the query names it.

    Extraction writes an unnamed speaker as "the user" (ids are often opaque), so
    "What does alice like?" in alice's memories means "What does the user like?".
    None when the query does not name the id (nothing to add).
    """
    for pattern in subject_patterns(user_ids):
        if pattern.search(query):
            return pattern.sub(lambda m: f"{user}'s" if m.group(0)[-2:] in ("'s", "’s") else user, query)
    return None


def subject_patterns(user_ids: Sequence[str]) -> list[re.Pattern[str]]:
    """The searched ids as a query writes them: whole words, possessive too, any case."""
    return [
        re.compile(rf"(?<![\w-]){re.escape(user_id)}(?:'s|’s)?(?![\w-])", re.I)
        for user_id in user_ids
        if len(user_id) >= 2
    ]


@lru_cache(maxsize=16)
def _numbering(language: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A capital "I" ending a name is its roman numeral ("World War I", "King Charles I"):
    after a numbering word, or after two capitalized words that are not a sentence's or a
    date's opening (``not_names``, months, weekdays)."""
    lex = lexicon(language)
    numbering = "|".join(re.escape(w.capitalize()) for w in sorted(lex.words("numbering_words")))
    openers = {w.capitalize() for w in lex.words("not_names") | lex.words("months") | lex.words("weekdays")}
    not_a_name = "(?:" + "|".join(map(re.escape, sorted(openers))) + r")\b"
    return (
        re.compile(rf"\b(?:{numbering})\s+$") if numbering else re.compile(r"(?!)"),
        re.compile(rf"(?<![\w'’])(?!{not_a_name})[A-Z][\w'’-]*\s+(?!{not_a_name})[A-Z][\w'’-]*\s+$"),
    )


def is_a_numeral(before: str, language: str = DEFAULT) -> bool:
    """Whether a capital "I" after ``before`` is the roman numeral ending a name, which a
    speaker's "I" never is."""
    numbering, name_of_two = _numbering(language)
    return numbering.search(before) is not None or name_of_two.search(before) is not None


def third_person_alias(query: str, language: str = DEFAULT) -> str | None:
    """``query`` as the memories would say it, where it speaks in the first or second
    person; None when it does not.

    "What do I do for work?" -> "What does the user do for work?", "Where is my passport?"
    -> "Where is the user's passport?", "What did you recommend?" -> "What did the
    assistant recommend?". A verb after a bare "I" keeps its form ("things I love" ->
    "things the user love"), which the embedding does not mind. Only for a search pinned to
    a user: in an agent's memories "I" may be the agent.
    """
    lex = lexicon(language)
    user, assistant = lex.get("speakers", "user"), lex.get("speakers", "assistant")
    if not user:
        return None
    reported, given = lex.words("reported_verbs"), lex.words("given_nouns")

    def first(text: str, form: Form) -> tuple[str, int] | None:
        if form.surface == "I" and is_a_numeral(text[: form.start], language):
            return None
        return form.replacements[0].format(s=user), form.end

    def second(text: str, form: Form) -> tuple[str, int] | None:
        if form.key in ("you", "your"):
            following = re.match(r"\s+([\w'’]+)", text[form.end :])
            word = following.group(1).casefold() if following else ""
            if word not in (reported if form.key == "you" else given):
                return None  # a request ("Can you remind me...?") is not what the assistant did
        return form.replacements[0].format(s=assistant), form.end

    aliased = shift(query, table("query_first_to_third", language), first)
    aliased = shift(aliased, table("query_second_to_third", language), second)
    return aliased if aliased != query else None


@lru_cache(maxsize=16)
def _third_to_first(language: str) -> PersonTable:
    """``person.query_third_to_first`` with its ``{s}`` written as the language's user label."""
    lex = lexicon(language)
    user = str(lex.get("speakers", "user") or "")
    rows = lex.rows("person", "query_third_to_first") if user else []
    return PersonTable([[row[0].replace("{s}", user), *row[1:]] for row in rows])


def first_person_alias(query: str, language: str = DEFAULT) -> str | None:
    """``query`` as the user would ask it, where it speaks of "the user"; None when it does not.

    "What can't the user eat?" -> "What can't I eat?", "Where does the user's brother
    live?" -> "Where does my brother live?": the voice of memories whose vectors hold the
    user's own words (``ExtractedFact.words``).
    """
    aliased = shift(query, _third_to_first(language), lambda text, form: (form.replacements[0], form.end))
    return aliased if aliased != query else None


def query_forms(query: str, user_ids: Sequence[str], language: str = DEFAULT, *, own_words: bool = False) -> list[str]:
    """The forms of ``query`` to search beside it, for memories written about "the user"
    (``speakers.user`` of ``language``'s lexicon): the searched id written as the user, and
    then the query in the voice the memories' vectors hold: the third person ("What do I
    eat?" -> "What does the user eat?"), or with ``own_words`` (vectors made from the user's
    own words) the first ("What does the user eat?" -> "What do I eat?"). Empty for a search
    not pinned to a user, or a query already in that voice."""
    if not user_ids:
        return []
    user = str(lexicon(language).get("speakers", "user") or "the user")
    aliased = subject_alias(query, user_ids, user)
    if own_words:
        aliased = first_person_alias(aliased or query, language) or aliased
    else:
        aliased = third_person_alias(aliased or query, language) or aliased
    return [aliased] if aliased else []
