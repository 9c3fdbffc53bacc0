"""Who "you" is in a message, written out so that a memory stands alone.

An assistant speaks to the user: "I will remind you to pack your charger" is
stored as "The assistant will remind the user to pack the user's charger", not
with a "you" that means nobody once the conversation is gone. Every "you" of an
assistant's message is its listener: the user, or the name the user's message
gave.

A user speaks to the assistant, but also says "you" of anyone ("you never
know", "you can't beat fresh bread"). So only the forms that report what the
assistant did are rewritten there: "You told me to try yoga" -> "The assistant
told the user to try yoga", "your advice" -> "the assistant's advice".

Between named people (each message with its ``name``, as in LoCoMo) "you" is
left alone: which of the others it means is not known from one message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memorist.plugin_api import Form, Message, at_sentence_start, capitalized, lexicon, person_table, shift

from .verbs import conjugate

_NEXT_WORD = re.compile(r"(\s+)([A-Za-z]+(?:['’]t)?)\b")


@lru_cache(maxsize=1)
def _rules() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """From the lexicon: where a bare "you" is a subject (at a sentence or clause start, or
    after a verb that opens a clause: "I hope you enjoy it"), so the verb after it agrees
    with the listener ("If you like it" -> "If the user likes it"; elsewhere it is an
    object, "remind you to"); and what a user reports the assistant did ("you told me",
    "your advice"), the only "you" of a user's message that is rewritten."""
    lex = lexicon()
    before = "|".join(sorted(lex.words("subject_before")))
    verbs = "|".join(sorted(lex.words("reported_verbs")))
    adverbs = "|".join(sorted(lex.words("reported_adverbs")))
    nouns = "|".join(sorted(lex.words("given_nouns")))
    return (
        re.compile(rf"(?:^|[.!?,;:]\s*|\b(?:{before})\s+)$", re.I),
        re.compile(rf"\byou((?:\s+(?:{adverbs}))?\s+(?:{verbs})\b)", re.I),
        re.compile(rf"\byour(\s+(?:{nouns})\b)", re.I),
    )


@dataclass(frozen=True)
class Addressee:
    """Who a message's "you" means, and whether every "you" of it means them."""

    label: str
    #: False for a user's message: only what it reports the assistant did is rewritten.
    every: bool


def addressee(messages: list[Message], index: int) -> Addressee | None:
    """The listener of ``messages[index]``, or None when its "you" is left as said.

    An assistant's listener is the named user of the nearest user message before it
    (else after it), or "the user"; an unnamed user's is "the assistant".
    """
    message = messages[index]
    if message.role == "assistant":
        users = [m for m in messages[:index][::-1] + messages[index + 1 :] if m.role == "user"]
        name = users[0].name.strip() if users and users[0].name and users[0].name.strip() else None
        return Addressee(name or "the user", every=True)
    if message.role == "user" and not (message.name and message.name.strip()):
        return Addressee("the assistant", every=False)
    return None


def addressed(text: str, listener: Addressee) -> str:
    """``text`` with "you" written as ``listener`` (the lexicon's ``person.second_to_third``)."""
    subject_before, reported, advice = _rules()
    if not listener.every:
        text = reported.sub(lambda m: _placed(text, m.start(), listener.label) + m.group(1), text)
        return advice.sub(lambda m: _placed(text, m.start(), f"{listener.label}'s") + m.group(1), text)

    def choose(text: str, form: Form) -> tuple[str, int] | None:
        if form.key == "you" and text[: form.start].casefold().endswith("thank "):
            return None
        replacement, end = form.replacements[0].format(s=listener.label), form.end
        if form.key == "you" and subject_before.search(text[: form.start]):
            verb = _NEXT_WORD.match(text, end)
            if verb is not None and (conjugated := conjugate(verb.group(2))) is not None:
                replacement, end = f"{replacement}{verb.group(1)}{conjugated}", verb.end()
        return replacement, end

    return shift(text, person_table("second_to_third"), choose)


def _placed(text: str, position: int, replacement: str) -> str:
    """``replacement`` capitalized where it starts a sentence of ``text``."""
    return capitalized(replacement) if at_sentence_start(text, position) else replacement
