"""Whether two facts agree by their words, not by the embedder.

The supersession rule (:mod:`.supersession_rule`) links some facts by their cosine alone.
Under an embedder that does not know a language, any two short statements in it score
alike, so there the rule counts such a cosine only as far as it is above the language's
chance level (:mod:`.chance_cosine`), unless a word of the two facts backs the link: this
module says when one does.
"""

from __future__ import annotations

from dataclasses import replace

from .keywords import terms
from .supersession_reading import Reading

__all__ = ["STEM_LETTERS", "agree_beyond_units", "named_apart", "words_agree"]


def words_agree(new: Reading, old: Reading) -> bool:
    """Whether the two facts agree by a word of theirs, not by the embedder: the same attribute
    read by its words ("woon in" / "verhuisd naar": residence), a shared topic word or one word
    in two forms, a name, an "X is V" shape, an owner, or the unit of a value (two clock times,
    two sums of euros). Where none does, the pair's cosine counts only as far as it is above its
    language's chance level: under an embedder that does not know the language any two short
    statements score alike ("Ik heb een kat." / "Ik ben verhuisd naar Groningen." 0.62)."""
    return bool(
        new.attributes & old.attributes
        or _same_stem(_words(new), _words(old))
        or new.names & old.names
        or new.shapes & old.shapes
        or new.owners & old.owners
        or {unit for unit, _ in new.quantities} & {unit for unit, _ in old.quantities}
    )


def agree_beyond_units(new: Reading, old: Reading) -> bool:
    """Whether two facts holding quantities agree by a word other than their units: "reais",
    "kg" are what two values of one unit share by definition, read as topic words too."""
    units = {unit for unit, _ in new.quantities | old.quantities}

    def bare(reading: Reading) -> Reading:
        return replace(reading, quantities=frozenset(), topic=reading.topic - units)

    return words_agree(bare(new), bare(old))


def named_apart(new: Reading, old: Reading, named: bool) -> bool:
    """Whether two facts that agree by no word each name what they are about by words, an
    attribute (``named``: the newer's, or its whole fact's for a clause) or a taste: then the
    words have checked the pair and found two things ("учится": school, "работаю": employer;
    "seviyorum": a taste), and no cosine links them. Two tastes are one kind of thing, read
    by meaning."""
    if new.preference and old.preference:
        return False
    return (named or new.preference) and bool(old.attributes or old.preference)


def _words(reading: Reading) -> frozenset[str]:
    """A fact's topic terms and its names' terms: a noun opening a statement reads as a name
    ("The user: Middagen med mina föräldrar ...") and is the topic term "middagen" of another."""
    return reading.topic | {term for name in reading.names for term in terms(name)}


#: Fewest letters two topic terms share at their start to be forms of one word.
STEM_LETTERS = 6


def _same_stem(new: frozenset[str], old: frozenset[str]) -> bool:
    """Whether the two facts share a term, or a term of one opens a term of the other, of at least
    :data:`STEM_LETTERS` letters: one word in two forms ("boulanger" / "boulangerie",
    "Lehrer" / "Lehrerin"), which the terms' light stemming leaves apart."""
    return bool(new & old) or any(
        len(short) >= STEM_LETTERS and long.startswith(short)
        for a in new
        for b in old
        for short, long in ((a, b) if len(a) <= len(b) else (b, a),)
    )
