"""Rewriting a speaker's sentence so it stands alone, in readable English.

"I went to a support group yesterday" said by Caroline becomes "Caroline went
to a support group yesterday (7 May 2023)": the reader of a memory months later
knows who and when without the conversation around it. The name is used once;
later first-person pronouns become "they/their", so a long memory is about its
content rather than a repeated name (which would also dominate its embedding).

The subject changes person, so the verb is conjugated with it: "I love" ->
"Caroline loves", "I don't" -> "doesn't", "I have" -> "has", "I am" -> "is".
Without a name the subject is "the user" (or "the assistant"), written in
lower case mid-sentence: "Maria gave the user a book". "the user" rather than
the scope's ``user_id`` because ids are often opaque ("u_93f2") and because
questions ask about "the user"; search maps a ``user_id`` named in a query
onto it (see :mod:`memorist.engine.search`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memorist.plugin_api import DEFAULT, Form, Message, capitalized, language_of, lexicon, person_table, shift

from .verbs import conjugate

_APOS = "(?:'|’)"


@lru_cache(maxsize=1)
def _agreement() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The verb after the subject (past the lexicon's adverbs: "I really love"), and the
    words after which the subject keeps its verb ("Maria and I love", "Did I tell you",
    "Let me": a plural subject, an auxiliary or a causative)."""
    lex = lexicon()
    adverbs = "|".join(map(re.escape, lex.phrases("adverbs"))).replace(r"\ ", r"\s+")
    before = "|".join(map(re.escape, sorted(lex.words("no_agreement_before"))))
    return (
        re.compile(rf"((?:\s+(?:{adverbs})\b)*)\s+([A-Za-z]+(?:{_APOS}t)?)\b", re.I),
        re.compile(rf"\b(?:{before})\s+$", re.I),
    )


#: "my husband and I", "her and me": one of two joined people is named, not "they", which
#: would read as both ("the user's husband and they are going"). An "I" is joined only to
#: "my" and a word or two opening its sentence ("Yesterday my dad and I"); "My name is Ada
#: and I live in Lisbon" joins clauses and keeps "they".
_JOINERS = "|".join(map(re.escape, sorted(lexicon().words("people_joiners"))))
_POSSESSIVES = "|".join(map(re.escape, sorted(lexicon().words("self_possessives"))))
_JOINED_ME = re.compile(rf"\b(?:{_JOINERS})\s+$", re.I)
_JOINED_I = re.compile(
    rf"(?:^|[.!?;:]\s+)(?:[A-Z][\w'’-]*(?:\s+\([^)]*\))?,?\s+)?(?:{_POSSESSIVES})\s+[\w'’-]+(?:\s+[\w'’-]+)?\s+(?:{_JOINERS})\s+$",
    re.I,
)


def speaker_label(name: str | None, role: str) -> str:
    """Who a memory is about: the message's ``name``, else ``the user`` / ``the assistant``."""
    if name and name.strip():
        return name.strip()
    return str(lexicon().get("speakers", "assistant" if role == "assistant" else "user"))


def third_person(text: str, speaker: str, *, name_every_time: bool = False) -> str:
    """First-person pronouns replaced: the first by the speaker's name, later ones by they/their
    (every one by the name with ``name_every_time``: when the text names someone else too,
    "they" could mean either). The lexicon's ``person.first_to_third`` table says how.
    The table is English: text in another language is left as written (its "me" is not
    the English "me"), and the speaker prefix alone says who it is about."""
    if not shifts_person(text):
        return text
    verb_after, no_agreement_before = _agreement()
    named = False

    def choose(text: str, form: Form) -> tuple[str, int]:
        nonlocal named
        first, later = form.replacements
        before = text[: form.start]
        joined = (form.key == "i" and _JOINED_I.search(before)) or (form.key == "me" and _JOINED_ME.search(before))
        replacement = later if named and not name_every_time and not joined else first.format(s=speaker)
        end = form.end
        if (not named or name_every_time) and form.key == "i" and not no_agreement_before.search(before):
            verb = verb_after.match(text, end)
            if verb is not None and (conjugated := conjugate(verb.group(2))) is not None:
                replacement = f"{replacement}{verb.group(1)} {conjugated}"
                end = verb.end()
        named = True
        return replacement, end

    return shift(text, person_table("first_to_third"), choose)


def shifts_person(text: str) -> bool:
    """Whether :func:`third_person` can rewrite ``text``: the lexicon's person table is the
    default language's, and text in another language keeps its words and gets a frame."""
    return language_of(text) == lexicon().code


def mentions(text: str, speaker: str) -> bool:
    return re.search(rf"\b{re.escape(speaker)}\b", text, re.I) is not None


def in_language(speaker: str, language: str) -> str | None:
    """``speaker`` as ``language`` names it: the default label for the user or the assistant
    ("the user") in that language's words (None when its lexicon has none); a name as it is."""
    for role in ("user", "assistant"):
        if speaker == lexicon(DEFAULT).get("speakers", role):
            found = lexicon(language).get("speakers", role)
            return str(found) if found else None
    return speaker


def framed(text: str, speaker: str, frame: str = "speaker_frame") -> str:
    """``text`` opened with who said it: the lexicon's ``frame`` ("The user: ...") of the
    text's language where that lexicon has one and its words for the speaker, else the
    default language's. (Only English has one today: with the default English embedder,
    "Der Nutzer: ..." for German facts lost answers to questions about "the user", see
    docs/language.md.)"""
    for language in dict.fromkeys((language_of(text), DEFAULT)):
        lex = lexicon(language)
        pattern = lex.get(frame) or lex.get("speaker_frame")
        label = in_language(speaker, language)
        if pattern and label:
            return str(pattern).format(speaker=capitalized(label), text=text)
    return text


def standalone(text: str, speaker: str, *, others: tuple[str, ...] = (), reply_to: str | None = None) -> str:
    """``text`` in the third person, prefixed with the speaker when it does not name them.
    ``others``: who else the text may name ("the assistant" once its "you" is written out); when
    it does, the speaker is named every time rather than "they". ``reply_to``: the question the
    text answers ('The user asked "..."'), which it then opens with ("... The assistant
    replied: ..." when it names no one). The frame is the text's language's (see :func:`framed`)."""
    crowded = any(mentions(text, other) for other in others)
    rewritten = third_person(text, speaker, name_every_time=crowded)
    if not mentions(rewritten, speaker):
        rewritten = framed(rewritten, speaker, "reply_frame" if reply_to else "speaker_frame")
    return f"{reply_to} {rewritten}" if reply_to else rewritten


def own_words(chunk: str, message: Message, reply_to: str | None) -> str | None:
    """The words a memory's vector is made from, where they differ from its text: the user's
    own (``chunk`` before :func:`standalone` shifts it to the third person and frames it).

    Why: every memory of a user's scope is about "the user", so the label carries nothing a
    search could tell memories apart by, while the third-person rewrite moves the vector away
    from how the user (and an agent's next turn) words things: "I'm vegetarian." sits closer
    to "Can you suggest a dinner recipe?" than "The user is vegetarian." does. Only for an
    unnamed user's message: a named speaker (one of two people in a conversation) or the
    assistant is information the vector keeps, and a reply ("27") means little without the
    question its text opens with. Only in a language the person shift covers
    (:func:`shifts_person`): elsewhere the text is the user's words behind a frame ("The
    user: Ich bin Vegetarierin."), and with the default English embedder that frame is
    what a question about "the user" finds (without it the multilingual benchmark's
    default run lost 2 of 90 same-language and 2 cross-language cases).
    """
    if message.role != "user" or (message.name and message.name.strip()) or reply_to:
        return None
    if not shifts_person(chunk):
        return None
    words = chunk.strip()
    return words or None
