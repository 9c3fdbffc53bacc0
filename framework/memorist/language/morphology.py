"""Where two spellings name one thing: a noun with its article written as its ending
("festen", the party: "fest"), and a compound whose last part is the thing it names
("födelsedagsfest", a birthday party, is a "fest"; "Geburtstagsfeier" a "Feier").

Rules, not a dictionary: a language's lexicon lists its `definite_suffixes` and marks it
`compounding`; a word's last part counts as its head when at least :data:`MIN_HEAD` letters
long, so a short ending ("tag", "en") never makes two words one.
"""

from __future__ import annotations

from functools import lru_cache

from .lexicon import languages, lexicon

#: The fewest letters a compound's head or a word stripped of its article keeps: "fest",
#: "feier", "team"; never "tag" of "Samstag".
MIN_HEAD = 4


@lru_cache(maxsize=64)
def _suffixes(code: str) -> tuple[str, ...]:
    """The definite endings a word of ``code`` may carry: in a compounding language, those of
    every compounding language, since a short statement's language among them is unsure
    ("ändring: festen flyttas till söndag" reads as German)."""
    codes = [c for c in languages() if compounding(c)] if compounding(code) else [code]
    return tuple(sorted({s for c in codes for s in lexicon(c).words("definite_suffixes")}, key=len, reverse=True))


def compounding(code: str) -> bool:
    """Whether language ``code`` writes its compounds as one word (German, Dutch, Swedish, Danish)."""
    return bool(lexicon(code).get("compounding"))


def forms(word: str, code: str) -> frozenset[str]:
    """``word`` and, in a language that writes its article as an ending, ``word`` without
    it: "festen" -> {"festen", "fest"}."""
    out = {word}
    suffix = next((s for s in _suffixes(code) if word.endswith(s)), None)  # the longest that ends it
    if suffix is not None and len(word) - len(suffix) >= MIN_HEAD:
        out.add(word[: -len(suffix)])
    return frozenset(out)


def names_head(part: str, whole: str) -> bool:
    """Whether ``part`` is ``whole`` or the head (the last part) of the compound ``whole``:
    "fest" of "födelsedagsfest", "feier" of "geburtstagsfeier". Only for a compounding
    language's words; the caller knows the language."""
    return part == whole or (len(part) >= MIN_HEAD and len(whole) > len(part) and whole.endswith(part))
