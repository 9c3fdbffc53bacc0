"""Rewriting a speaker's sentence so it stands alone.

"I went to a support group yesterday" said by Caroline becomes "Caroline went
to a support group yesterday (7 May 2023)": the reader of a memory months later
knows who and when without the conversation around it.
"""

from __future__ import annotations

import re

_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bI(?:'|’)m\b|\bI am\b"), "{name} is"),
    (re.compile(r"\bI(?:'|’)ve\b"), "{name} has"),
    (re.compile(r"\bI(?:'|’)d\b"), "{name} would"),
    (re.compile(r"\bI(?:'|’)ll\b"), "{name} will"),
    (re.compile(r"\bI\b"), "{name}"),
    (re.compile(r"\b[Mm]y\b"), "{name}'s"),
    (re.compile(r"\b[Mm]ine\b"), "{name}'s"),
    (re.compile(r"\b[Mm]yself\b"), "{name}"),
    (re.compile(r"(?<![\w'’])me\b"), "{name}"),
]
_HAS_NAME_CACHE: dict[str, re.Pattern[str]] = {}


def speaker_label(name: str | None, role: str) -> str:
    """Who a memory is about: the message's ``name``, else the role."""
    if name and name.strip():
        return name.strip()
    return "The assistant" if role == "assistant" else "The user"


def third_person(sentence: str, speaker: str) -> str:
    """Replace first-person pronouns with the speaker's name."""
    for pattern, template in _FORMS:
        sentence = pattern.sub(template.format(name=speaker), sentence)
    return sentence


def mentions(text: str, speaker: str) -> bool:
    pattern = _HAS_NAME_CACHE.get(speaker)
    if pattern is None:
        pattern = _HAS_NAME_CACHE.setdefault(speaker, re.compile(rf"\b{re.escape(speaker)}\b"))
    return bool(pattern.search(text))


def standalone(text: str, speaker: str) -> str:
    """``text`` in the third person, prefixed with the speaker when it does not name them."""
    rewritten = third_person(text, speaker)
    if not mentions(rewritten, speaker):
        rewritten = f"{speaker}: {rewritten}"
    return rewritten
