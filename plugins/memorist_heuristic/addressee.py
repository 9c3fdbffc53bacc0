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

from memorist.plugin_api import Message

from .rewrite import at_sentence_start, capitalized
from .verbs import conjugate

_APOS = "['’]"
#: (form, replacement) for every "you" of a message; "{l}" is the listener. In this order at
#: each place: an inverted auxiliary agrees with its new subject ("are you" -> "is the user").
_EVERY_FORM: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bare you\b", re.I), "is {l}"),
    (re.compile(rf"\byou are\b|\byou{_APOS}re\b", re.I), "{l} is"),
    (re.compile(r"\bwere you\b", re.I), "was {l}"),
    (re.compile(r"\byou were\b", re.I), "{l} was"),
    (re.compile(r"\bhave you\b", re.I), "has {l}"),
    (re.compile(rf"\byou have\b|\byou{_APOS}ve\b", re.I), "{l} has"),
    (re.compile(r"\bdo you\b", re.I), "does {l}"),
    (re.compile(rf"\byou don{_APOS}t\b|\byou do not\b", re.I), "{l} doesn't"),
    (re.compile(rf"\byou{_APOS}d\b", re.I), "{l} would"),
    (re.compile(rf"\byou{_APOS}ll\b", re.I), "{l} will"),
    (re.compile(r"\byours\b|\byour\b", re.I), "{l}'s"),
    (re.compile(r"\byourself\b", re.I), "{l}"),
    (re.compile(r"(?<!thank )\byou\b", re.I), "{l}"),
]
_ANY_FORM = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _EVERY_FORM), re.I)
#: A bare "you" at a sentence or clause start, or after a verb that opens a clause ("I hope
#: you enjoy it"), is a subject, so the verb after it agrees with the listener ("If you like
#: it" -> "If the user likes it"); elsewhere it is an object ("remind you to") and the next
#: word is left alone.
_SUBJECT_BEFORE = re.compile(
    r"(?:^|[.!?,;:]\s*|\b(?:and|but|or|so|because|if|when|that|since|while|then|hope|think|believe|guess|bet|sure|"
    r"glad|suppose|expect|trust|imagine)\s+)$",
    re.I,
)
_NEXT_WORD = re.compile(rf"(\s+)([A-Za-z]+(?:{_APOS}t)?)\b")
#: What a user reports the assistant did: the only "you" of a user's message that is rewritten.
_REPORTED = re.compile(
    r"\byou((?:\s+(?:really|also|just|once|already|even|kindly))?\s+(?:told|said|recommended|suggested|"
    r"mentioned|gave|showed|reminded|sent|promised|explained|booked|found|helped|asked|wrote|picked|chose|"
    r"planned|shared|taught|offered|warned|advised|proposed|noted|added|saved|set)\b)",
    re.I,
)
_ADVICE = re.compile(
    r"\byour(\s+(?:advice|suggestions?|recommendations?|ideas?|tips?|help|reminders?|list|plan|answer|"
    r"summary|notes?|instructions|explanation)\b)",
    re.I,
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
    """``text`` with "you" written as ``listener``."""
    if not listener.every:
        text = _REPORTED.sub(lambda m: _placed(text, m.start(), listener.label) + m.group(1), text)
        return _ADVICE.sub(lambda m: _placed(text, m.start(), f"{listener.label}'s") + m.group(1), text)
    out: list[str] = []
    last = position = 0
    while match := _ANY_FORM.search(text, position):
        surface, end = match.group(0), match.end()
        template = next(r for p, r in _EVERY_FORM if p.fullmatch(surface))
        replacement = template.format(l=listener.label)
        if surface.lower() == "you" and _SUBJECT_BEFORE.search(text[: match.start()]):
            verb = _NEXT_WORD.match(text, end)
            if verb is not None and (conjugated := conjugate(verb.group(2))) is not None:
                replacement = f"{replacement}{verb.group(1)}{conjugated}"
                end = verb.end()
        out += [text[last : match.start()], _placed(text, match.start(), replacement)]
        last = position = end
    out.append(text[last:])
    return "".join(out)


def _placed(text: str, position: int, replacement: str) -> str:
    """``replacement`` capitalized where it starts a sentence of ``text``."""
    return capitalized(replacement) if at_sentence_start(text, position) else replacement
