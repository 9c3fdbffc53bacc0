"""Rewriting a speaker's sentence so it stands alone.

"I went to a support group yesterday" said by Caroline becomes "Caroline went
to a support group yesterday (7 May 2023)": the reader of a memory months later
knows who and when without the conversation around it. The name is used once;
later first-person pronouns become "they/their", so a long memory is about its
content rather than a repeated name (which would also dominate its embedding).
"""

from __future__ import annotations

import re

_APOS = "(?:'|’)"
#: (pattern, replacement at first mention, replacement afterwards)
_FORMS: list[tuple[re.Pattern[str], str, str]] = [
    (re.compile(rf"\bI{_APOS}m\b|\bI am\b"), "{name} is", "they are"),
    (re.compile(rf"\bI{_APOS}ve\b|\bI have\b"), "{name} has", "they have"),
    (re.compile(rf"\bI{_APOS}d\b"), "{name} would", "they would"),
    (re.compile(rf"\bI{_APOS}ll\b"), "{name} will", "they will"),
    (re.compile(r"\bI was\b"), "{name} was", "they were"),
    (re.compile(r"\bI\b"), "{name}", "they"),
    (re.compile(r"\b[Mm]y\b"), "{name}'s", "their"),
    (re.compile(r"\b[Mm]ine\b"), "{name}'s", "theirs"),
    (re.compile(r"\b[Mm]yself\b"), "{name}", "themselves"),
    (re.compile(r"(?<![\w'’])me\b"), "{name}", "them"),
]
_ANY_FIRST_PERSON = re.compile("|".join(f"(?:{p.pattern})" for p, _, _ in _FORMS))


def speaker_label(name: str | None, role: str) -> str:
    """Who a memory is about: the message's ``name``, else the role."""
    if name and name.strip():
        return name.strip()
    return "The assistant" if role == "assistant" else "The user"


def third_person(text: str, speaker: str) -> str:
    """First-person pronouns replaced: the first by the speaker's name, later ones by they/their."""
    named = False
    out: list[str] = []
    last = 0
    for match in _ANY_FIRST_PERSON.finditer(text):
        surface = match.group(0)
        for pattern, first, later in _FORMS:
            if pattern.fullmatch(surface):
                replacement = later if named else first.format(name=speaker)
                break
        else:  # pragma: no cover - the alternation only matches listed forms
            replacement = surface
        sentence_start = match.start() == 0 or text[max(0, match.start() - 2) : match.start()].strip() in {
            ".",
            "!",
            "?",
        }
        if named and sentence_start:
            replacement = replacement[:1].upper() + replacement[1:]
        named = True
        out.append(text[last : match.start()])
        out.append(replacement)
        last = match.end()
    out.append(text[last:])
    return "".join(out)


def mentions(text: str, speaker: str) -> bool:
    return re.search(rf"\b{re.escape(speaker)}\b", text) is not None


def standalone(text: str, speaker: str) -> str:
    """``text`` in the third person, prefixed with the speaker when it does not name them."""
    rewritten = third_person(text, speaker)
    if not mentions(rewritten, speaker):
        rewritten = f"{speaker}: {rewritten}"
    return rewritten
