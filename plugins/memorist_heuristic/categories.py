"""Categories by keyword rules, and exclusions by pattern.

Without a language model, a memory is tagged with every category whose
keywords it contains. Custom categories (``{name: description}``) are matched
by the words of their name and description. Exclusion instructions are split
into phrases; a sentence containing every content word of a phrase is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from memorist.plugin_api import lexicon

#: Each default category and its keywords (the lexicon's ``categories``).
DEFAULT_CATEGORIES: dict[str, tuple[str, ...]] = {
    name: lexicon().phrases("categories", name) for name in lexicon().get("categories") or {}
}
_WORD = re.compile(r"[a-z0-9]+")
_SPLIT = re.compile(
    r"[,;\n]+|" + "|".join(rf"\b{re.escape(w)}\b" for w in sorted(lexicon().words("description_joiners"))), re.I
)
_FILLER = lexicon().words("description_fillers")


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def _keywords_of(name: str, description: str) -> tuple[str, ...]:
    words = _WORD.findall(f"{name.replace('_', ' ')} {description}".lower())
    return tuple(dict.fromkeys(w for w in words if len(w) >= 4 and w not in _FILLER))


def categorize(text: str, custom: Mapping[str, str] | None = None) -> list[str]:
    """Category names whose keywords occur in ``text`` (custom ones replace the defaults)."""
    lowered = text.lower()
    words = set(_WORD.findall(lowered))
    stems = {_stem(w) for w in words}
    found: list[str] = []
    if custom:
        for name, description in custom.items():
            if any(_stem(k) in stems for k in _keywords_of(name, description or "")):
                found.append(name)
        return found
    for name, keywords in DEFAULT_CATEGORIES.items():
        if any((k in lowered) if " " in k else (k in words) for k in keywords):
            found.append(name)
    return found or ["misc"]


def exclusion_patterns(excludes: str | None) -> list[frozenset[str]]:
    """Each exclusion phrase as the set of its content words."""
    if not excludes:
        return []
    patterns = []
    for phrase in _SPLIT.split(excludes):
        words = frozenset(w for w in _WORD.findall(phrase.lower()) if w not in _FILLER and len(w) > 2)
        if words:
            patterns.append(words)
    return patterns


def excluded(sentence: str, patterns: list[frozenset[str]]) -> bool:
    if not patterns:
        return False
    stems = {_stem(w) for w in _WORD.findall(sentence.lower())}
    return any(all(_stem(w) in stems for w in p) for p in patterns)
