"""Who speaks in a stored fact, as the supersession rule reads it: the extractor's voice for
the user and the assistant ("the user", "the assistant"), the label that opens a statement in
its speaker's words ("The user: Vivo en Sevilla."), and the language of that statement.

:mod:`.supersession_subjects` reads whom a fact is about from these; :mod:`.supersession_owners`
whose thing it names.
"""

from __future__ import annotations

import re

from ..language import DEFAULT, lexicon
from ..language.common_words import listed_language

#: The subject of a fact in the extractor's own voice for the speaker: the last word of the
#: lexicon's label for the user ("the user" -> "user").
SELF = str(lexicon(DEFAULT).get("speakers", "user") or "user").split()[-1].casefold()
#: The assistant in the extractor's voice ("the assistant" -> "assistant"): whose listener is the user.
ASSISTANT = str(lexicon(DEFAULT).get("speakers", "assistant") or "assistant").split()[-1].casefold()
#: The subject of a reply about a third person ("no, she works at a school now"): a pronoun
#: whose person the older fact it is read against names (:func:`resolved`).
THIRD = "\N{HORIZONTAL ELLIPSIS}third"


#: The extractor's label of who said a statement ("The user: Vivo en Sevilla.", "Caroline:
#: ..."): a name of a few words, not a preamble. The statement after it is the fact's first
#: clause, and its language is the statement's, not the label's.
SPEAKER_LABEL = re.compile(r"^\s*[^\s:]+(?:\s+[^\s:]+){0,2}:\s*")


def statement_language(text: str) -> str:
    """The language ``text``'s statement is in (past the extractor's label). Its function
    words are no topic (the default's stop words :func:`terms` already drops)."""
    # A short statement's detector answer may be a language whose lexicon lists none of its
    # words ("Ablam Ankara'da oturuyor." reads as English): the lexicons' votes decide there.
    return listed_language(SPEAKER_LABEL.sub("", text, count=1))


def voiced(label: str) -> bool:
    """Whether ``label`` is the extractor's label for the user or the assistant ("The user:")."""
    named = label.strip(": \t").split()
    return bool(named) and named[-1].casefold() in (SELF, ASSISTANT)
