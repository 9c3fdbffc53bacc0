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

from .verbs import conjugate

_APOS = "(?:'|’)"
#: (pattern, replacement at first mention, replacement afterwards)
_FORMS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(rf"\b[Ii]{_APOS}m\b|\b[Ii] am\b"), "{name} is", "they are"),
    (re.compile(rf"\b[Ii] haven{_APOS}t\b|\b[Ii] have not\b"), "{name} hasn't", "they haven't"),
    (re.compile(rf"\b[Ii]{_APOS}ve\b|\b[Ii] have\b"), "{name} has", "they have"),
    (re.compile(rf"\b[Ii]{_APOS}d\b"), "{name} would", "they would"),
    (re.compile(rf"\b[Ii]{_APOS}ll\b"), "{name} will", "they will"),
    (re.compile(rf"\b[Ii] wasn{_APOS}t\b|\b[Ii] was not\b"), "{name} wasn't", "they weren't"),
    (re.compile(r"\b[Ii] was\b"), "{name} was", "they were"),
    (re.compile(r"\bI\b|(?<![\w.])i(?![\w.)’'])"), "{name}", "they"),
    (re.compile(r"\b[Mm]y\b"), "{name}'s", "their"),
    (re.compile(r"\b[Mm]ine\b"), "{name}'s", "theirs"),
    (re.compile(r"\b[Mm]yself\b"), "{name}", "themselves"),
    (re.compile(r"(?<![\w'’])me\b"), "{name}", "them"),
]
_ANY_FIRST_PERSON = re.compile("|".join(f"(?:{p.pattern})" for p, _, _ in _FORMS))
_BARE_I = re.compile(r"\bI\b|(?<![\w.])i(?![\w.)’'])")
#: Adverbs that may stand between the subject and its verb ("I really love", "I no longer eat").
_ADVERB = (
    r"(?:really|also|never|always|usually|often|sometimes|still|just|only|even|totally|absolutely|"
    r"definitely|actually|mostly|rarely|seldom|generally|normally|typically|now|currently|honestly|"
    r"truly|sort of|kind of|no longer|hardly|barely|mainly|secretly|occasionally|frequently|regularly|"
    r"already|constantly|strongly|simply|personally|basically|literally|kinda|sorta)"
)
_VERB_AFTER = re.compile(rf"((?:\s+{_ADVERB}\b)*)\s+([A-Za-z]+(?:{_APOS}t)?)\b", re.I)
#: "Maria and I love", "you or I know": a plural subject keeps its verb; so does one after an
#: auxiliary or a causative ("Did I tell you", "Should I go", "Let me", "made I ...").
_NO_AGREEMENT_BEFORE = re.compile(
    r"\b(?:and|or|nor|did|do|does|can|could|will|would|should|shall|may|might|must|have|has|had|am|was|were|"
    r"is|are|let|make|made|help|helped|see|saw|watch|watched|hear|heard)\s+$",
    re.I,
)
_SENTENCE_END = re.compile(r"(?:^|[.!?]\s*|\n\s*|[\"“(]\s*)$")
#: "my husband and I", "her and me": one of two joined people is named, not "they", which
#: would read as both ("the user's husband and they are going"). An "I" is joined only to
#: "my" and a word or two opening its sentence ("Yesterday my dad and I"); "My name is Ada
#: and I live in Lisbon" joins clauses and keeps "they".
_JOINED_ME = re.compile(r"\b(?:and|or|nor)\s+$", re.I)
_JOINED_I = re.compile(
    r"(?:^|[.!?;:]\s+)(?:[A-Z][\w'’-]*(?:\s+\([^)]*\))?,?\s+)?(?:my|our)\s+[\w'’-]+(?:\s+[\w'’-]+)?\s+(?:and|or)\s+$",
    re.I,
)
_BARE_ME = re.compile(r"(?<![\w'’])me\b")


def speaker_label(name: str | None, role: str) -> str:
    """Who a memory is about: the message's ``name``, else ``the user`` / ``the assistant``."""
    if name and name.strip():
        return name.strip()
    return "the assistant" if role == "assistant" else "the user"


_ABBREVIATION_BEFORE = re.compile(r"\b(?:i\.e|e\.g|etc|vs|approx|incl)\.\s*$", re.I)


def at_sentence_start(text: str, position: int) -> bool:
    before = text[max(0, position - 8) : position]
    return _SENTENCE_END.search(before[-3:]) is not None and not _ABBREVIATION_BEFORE.search(before)


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def third_person(text: str, speaker: str, *, name_every_time: bool = False) -> str:
    """First-person pronouns replaced: the first by the speaker's name, later ones by they/their
    (every one by the name with ``name_every_time``: when the text names someone else too,
    "they" could mean either)."""
    named = False
    out: list[str] = []
    last = 0
    position = 0
    while match := _ANY_FIRST_PERSON.search(text, position):
        surface = match.group(0)
        end = match.end()
        for pattern, first, later in _FORMS:
            if pattern.fullmatch(surface):
                before = text[: match.start()]
                joined = (_BARE_I.fullmatch(surface) and _JOINED_I.search(before)) or (
                    _BARE_ME.fullmatch(surface) and _JOINED_ME.search(before)
                )
                replacement = later if named and not name_every_time and not joined else first.format(name=speaker)
                break
        else:  # pragma: no cover - the alternation only matches listed forms
            replacement = surface
        if (
            (not named or name_every_time)
            and _BARE_I.fullmatch(surface)
            and not _NO_AGREEMENT_BEFORE.search(text[: match.start()])
        ):
            verb = _VERB_AFTER.match(text, end)
            if verb is not None and (conjugated := conjugate(verb.group(2))) is not None:
                replacement = f"{replacement}{verb.group(1)} {conjugated}"
                end = verb.end()
        if at_sentence_start(text, match.start()):
            replacement = capitalized(replacement)
        named = True
        out.append(text[last : match.start()])
        out.append(replacement)
        last = position = end
    out.append(text[last:])
    return "".join(out)


def mentions(text: str, speaker: str) -> bool:
    return re.search(rf"\b{re.escape(speaker)}\b", text, re.I) is not None


def standalone(text: str, speaker: str, *, others: tuple[str, ...] = (), reply_to: str | None = None) -> str:
    """``text`` in the third person, prefixed with the speaker when it does not name them.
    ``others``: who else the text may name ("the assistant" once its "you" is written out); when
    it does, the speaker is named every time rather than "they". ``reply_to``: the question the
    text answers ('The user asked "..."'), which it then opens with ("... The assistant
    replied: ..." when it names no one)."""
    crowded = any(mentions(text, other) for other in others)
    rewritten = third_person(text, speaker, name_every_time=crowded)
    if not mentions(rewritten, speaker):
        rewritten = f"{capitalized(speaker)}{' replied' if reply_to else ''}: {rewritten}"
    return f"{reply_to} {rewritten}" if reply_to else rewritten
