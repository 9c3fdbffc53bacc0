"""Synthetic memories and queries from a small vocabulary, and row ids that map back to row numbers."""

from __future__ import annotations

import numpy as np

NAMES = (
    "Melanie",
    "Caroline",
    "Jon",
    "Gina",
    "Nate",
    "Joanna",
    "Audrey",
    "Andrew",
    "James",
    "John",
    "Maria",
    "Tim",
    "Deborah",
    "Jolene",
    "Evan",
    "Sam",
    "Calvin",
    "Dave",
    "Priya",
    "Omar",
)
VERBS = (
    "painted",
    "visited",
    "cooked",
    "repaired",
    "bought",
    "sold",
    "borrowed",
    "photographed",
    "planted",
    "cleaned",
    "built",
    "found",
    "lost",
    "sketched",
    "watched",
    "adopted",
    "rented",
    "carried",
    "packed",
    "ordered",
)
ADJECTIVES = (
    "red",
    "old",
    "tiny",
    "heavy",
    "wooden",
    "bright",
    "quiet",
    "rusty",
    "golden",
    "fragile",
    "huge",
    "vintage",
    "modern",
    "colorful",
    "broken",
    "shiny",
    "soft",
    "ancient",
    "strange",
    "favorite",
)
NOUNS = (
    "bicycle",
    "guitar",
    "kayak",
    "painting",
    "garden",
    "recipe",
    "camera",
    "puppy",
    "violin",
    "lantern",
    "telescope",
    "quilt",
    "canoe",
    "novel",
    "sculpture",
    "tent",
    "piano",
    "scarf",
    "mural",
    "pottery",
    "marathon",
    "concert",
    "museum",
    "festival",
    "workshop",
    "bakery",
    "library",
    "harbor",
    "mountain",
    "beach",
)
PLACES = (
    "Paris",
    "Boston",
    "Denver",
    "Lisbon",
    "Tokyo",
    "Seattle",
    "Austin",
    "Madrid",
    "Oslo",
    "Chicago",
    "the park",
    "the lake",
    "the studio",
    "the market",
    "the school",
    "the office",
    "the cabin",
    "the city",
    "the village",
    "the island",
)
WHEN = (
    "last week",
    "yesterday",
    "last summer",
    "on Sunday",
    "in May",
    "this morning",
    "last year",
    "two days ago",
    "in the spring",
    "at the weekend",
)


def vocabulary() -> list[str]:
    """Every word or phrase a synthetic text is built from; each gets one embedding."""
    return [*NAMES, *VERBS, *ADJECTIVES, *NOUNS, *PLACES, *WHEN]


def make_queries(count: int, seed: int) -> list[str]:
    """Questions in the vocabulary: their words hit many memories' postings and vectors."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        name, verb, adj, noun, place = (str(rng.choice(x)) for x in (NAMES, VERBS, ADJECTIVES, NOUNS, PLACES))
        shapes = (
            f"What did {name} do with the {adj} {noun} in {place}?",
            f"Who {verb} a {noun} in {place}?",
            f"When did {name} {verb.rstrip('ed')} the {adj} {noun}?",
            f"Tell me about the {adj} {noun} {name} {verb}.",
        )
        out.append(shapes[i % len(shapes)])
    return out


def batch_texts(rng: np.random.Generator, count: int) -> tuple[list[str], np.ndarray]:
    """``count`` texts and, per text, the vocabulary indexes of its five slots."""
    sizes = (len(NAMES), len(VERBS), len(ADJECTIVES), len(NOUNS), len(PLACES), len(WHEN))
    picks = np.stack([rng.integers(0, n, count) for n in sizes], axis=1)
    offsets = np.cumsum((0, *sizes[:-1]))
    texts = [
        f"{NAMES[a]} {VERBS[b]} a {ADJECTIVES[c]} {NOUNS[d]} in {PLACES[e]} {WHEN[f]}."
        for a, b, c, d, e, f in picks.tolist()
    ]
    return texts, picks + offsets


def record_id(index: int) -> str:
    """A UUID-shaped id that maps back to the row number (ground truth is kept as row numbers)."""
    return f"00000000-0000-4000-8000-{index:012d}"
