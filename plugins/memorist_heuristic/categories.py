"""Categories by keyword rules, and exclusions by pattern.

Without a language model, a memory is tagged with every category whose
keywords it contains. Custom categories (``{name: description}``) are matched
by the words of their name and description. Exclusion instructions are split
into phrases; a sentence containing every content word of a phrase is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

DEFAULT_CATEGORIES: dict[str, tuple[str, ...]] = {
    "family": (
        "family",
        "mom",
        "mother",
        "dad",
        "father",
        "sister",
        "brother",
        "son",
        "daughter",
        "kids",
        "kid",
        "children",
        "child",
        "husband",
        "wife",
        "parents",
        "grandma",
        "grandpa",
        "cousin",
        "aunt",
        "uncle",
        "baby",
        "adopt",
    ),
    "relationships": (
        "friend",
        "friends",
        "partner",
        "boyfriend",
        "girlfriend",
        "dating",
        "married",
        "wedding",
        "single",
        "relationship",
        "breakup",
    ),
    "professional_details": (
        "job",
        "work",
        "career",
        "office",
        "boss",
        "colleague",
        "company",
        "startup",
        "business",
        "promotion",
        "interview",
        "salary",
        "project",
        "client",
        "hired",
        "manager",
    ),
    "education": (
        "school",
        "college",
        "university",
        "class",
        "course",
        "degree",
        "study",
        "studying",
        "exam",
        "teacher",
        "student",
        "graduate",
        "education",
        "edu",
    ),
    "health": (
        "health",
        "doctor",
        "hospital",
        "sick",
        "ill",
        "injury",
        "injured",
        "therapy",
        "medicine",
        "diet",
        "workout",
        "gym",
        "yoga",
        "run",
        "running",
        "sleep",
        "mental",
    ),
    "sports": (
        "sport",
        "sports",
        "football",
        "soccer",
        "basketball",
        "tennis",
        "marathon",
        "race",
        "game",
        "team",
        "match",
        "swim",
        "swimming",
        "hiking",
        "climbing",
        "cycling",
    ),
    "travel": (
        "travel",
        "trip",
        "vacation",
        "holiday",
        "flight",
        "visit",
        "visited",
        "abroad",
        "beach",
        "camping",
        "road trip",
        "hotel",
        "country",
        "city",
        "tour",
    ),
    "food": (
        "food",
        "cook",
        "cooking",
        "recipe",
        "restaurant",
        "dinner",
        "lunch",
        "breakfast",
        "bake",
        "baking",
        "eat",
        "eating",
        "coffee",
        "vegan",
        "vegetarian",
        "pizza",
        "cake",
    ),
    "music": (
        "music",
        "song",
        "songs",
        "band",
        "concert",
        "guitar",
        "piano",
        "violin",
        "sing",
        "singing",
        "album",
        "playlist",
    ),
    "hobbies": (
        "hobby",
        "paint",
        "painting",
        "draw",
        "drawing",
        "read",
        "reading",
        "book",
        "books",
        "garden",
        "gardening",
        "photography",
        "pottery",
        "knitting",
        "craft",
        "art",
    ),
    "entertainment": (
        "movie",
        "movies",
        "film",
        "show",
        "series",
        "tv",
        "netflix",
        "theater",
        "podcast",
        "video game",
        "festival",
    ),
    "technology": (
        "computer",
        "software",
        "app",
        "phone",
        "laptop",
        "code",
        "coding",
        "ai",
        "programming",
        "tech",
        "website",
        "gadget",
    ),
    "pets": ("dog", "dogs", "cat", "cats", "pet", "pets", "puppy", "kitten"),
    "milestones": (
        "birthday",
        "anniversary",
        "graduated",
        "graduation",
        "moved",
        "new house",
        "engaged",
        "born",
        "retired",
        "first time",
        "milestone",
    ),
    "user_preferences": (
        "love",
        "loves",
        "like",
        "likes",
        "prefer",
        "prefers",
        "favorite",
        "favourite",
        "enjoy",
        "enjoys",
        "hate",
        "hates",
        "dislike",
    ),
}
_WORD = re.compile(r"[a-z0-9]+")
_SPLIT = re.compile(r"[,;\n]+|\band\b|\bor\b", re.I)
_FILLER = frozenset("a an the of to about any anything everything all things stuff my their".split())


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
