"""Where two spellings name one thing: a noun with its article written as its ending
("festen", the party: "fest"), a compound whose last part is the thing it names
("födelsedagsfest", a birthday party, is a "fest"; "Geburtstagsfeier" a "Feier"), and a name
in another case ("Petr" / "s Petrem", "Elif" / "Elif'le", "Chorvatsko" / "do Chorvatska").

Rules, not a dictionary: a language's lexicon lists its `definite_suffixes` and marks it
`compounding`; a word's last part counts as its head when at least :data:`MIN_HEAD` letters
long, so a short ending ("tag", "en") never makes two words one. A language that declines
its names lists their `case_endings`, and a name is read without the longest that ends it.
"""

from __future__ import annotations

from functools import lru_cache

from .lexicon import languages, lexicon
from .scripts import script_of

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


#: The fewest letters a name keeps without its case ending: "Kuba" / "Kubę" are "kub", while
#: "Ola" keeps its "a" ("Ol" is no name).
MIN_NAME_STEM = 3


@lru_cache(maxsize=64)
def _case_endings(code: str) -> tuple[str, ...]:
    """The case endings of language ``code``'s names, and every language's endings written
    after an apostrophe ("Elif'le"): a mark no name of another language ends with, so they
    hold where a short statement's language is misread ("Elif'le geçen ay evlendik." reads
    as French)."""
    marked = {e for c in languages() for e in lexicon(c).words("case_endings") if e.startswith("'")}
    return tuple(sorted(set(lexicon(code).words("case_endings")) | marked, key=len, reverse=True))


@lru_cache(maxsize=65_536)
def name_stem(name: str, code: str) -> str:
    """``name`` (lower case) without the case ending language ``code`` gives it, so that two
    cases of one name read as one: "petrem" and "petr" -> "petr", "chorvatska" and
    "chorvatsko" -> "chorvatsk", "elif'le" -> "elif". A language without `case_endings`
    (English, German, ...) keeps its names whole. Two names that differ only in an ending
    are read as one ("Jan" / "Jana"), as a case of one name is spelled so."""
    word = name.casefold().replace("\u2019", "'")
    ending = next((e for e in _case_endings(code) if word.endswith(e)), None)
    if ending is None or len(word) - len(ending) < MIN_NAME_STEM:
        return word
    return word[: -len(ending)]


@lru_cache(maxsize=16)
def _proclitics(script: str) -> frozenset[str]:
    """The proclitics of the languages written in ``script`` (their lexicons' ``proclitics``)."""
    return frozenset(
        p for code in languages() if script in lexicon(code).scripts for p in lexicon(code).words("proclitics")
    )


def bears_proclitic(word: str, bare: str) -> bool:
    """Whether ``word`` is ``bare`` with a proclitic of its script written on ("החבר" is
    "חבר" with the article, "والبيت" is "بيت" with "and the"). ``bare`` keeps two letters at
    least, so a proclitic is never read off a word's own first letter alone."""
    if len(bare) < 2 or len(word) <= len(bare) or not word.endswith(bare):
        return False
    script = script_of(bare[0])
    return script is not None and word[: len(word) - len(bare)] in _proclitics(script)
