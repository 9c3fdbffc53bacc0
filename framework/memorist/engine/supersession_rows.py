"""How the lexicons' rows become what the supersession rule matches: rows told around a gap
("move … to"), passive changes, rows with an object pronoun placed inside them ("pushed it to
Friday"), and the frames that name an attribute by a shape of words (``role_frame``,
``age_frame``). :mod:`.supersession_lexicon` gathers them per language.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..language import SPACELESS, lexicon
from ..language.lexicon import Lexicon as LanguageLexicon
from ..language.scripts import script_of

__all__ = ["GAP", "Frame", "Gapped", "frame", "gapped", "passives", "spaceless", "with_objects"]

#: A row told around a gap: (its words before the gap, its words after it).
Gapped = tuple[tuple[str, ...], tuple[str, ...]]
#: Where a gapped row's gap stands: "move … to".
GAP = "…"


@dataclass(frozen=True)
class Frame:
    """A shape of words that names an attribute without one of its words (see the lexicon's
    ``role_frame`` and ``age_frame``)."""

    attribute: str
    copulas: frozenset[str]
    articles: frozenset[str] = frozenset()
    prepositions: frozenset[str] = frozenset()
    most_words: int = 0
    before: frozenset[str] = frozenset()
    #: Words right after the number that name the attribute: German "42 geworden".
    after: frozenset[str] = frozenset()
    most_digits: int = 0
    units: tuple[tuple[str, ...], ...] = ()
    #: A role told without an article (French "Je suis comptable dans une banque", Spanish
    #: "Soy contable en un banco"): the Romance languages name a profession so.
    bare: bool = False
    #: Endings of a word that is no role after the copula but a compound past's participle
    #: ("Je suis allée chez le médecin").
    not_endings: tuple[str, ...] = ()
    #: Words one of which follows the preposition, when given (Spanish "en un banco", not
    #: "feliz en Madrid").
    objects: frozenset[str] = frozenset()
    #: Words that may stand between the copula and the role, saying when it holds ("is now an
    #: associate attorney at ...", "soy ahora contable en ..."): no part of the role.
    adverbs: frozenset[str] = frozenset()


def gapped(lexes: list[LanguageLexicon], name: str) -> tuple[Gapped, ...]:
    """The rows of list ``name`` written around a gap ("move … to"), split at it."""
    out = []
    for lex in lexes:
        for row in lex.phrases(name):
            head, _, tail = row.replace("...", GAP).partition(GAP)
            if head.split() and tail.split():
                out.append((tuple(head.split()), tuple(tail.split())))
    return tuple(dict.fromkeys(out))


def passives(lexes: list[LanguageLexicon]) -> tuple[Gapped, ...]:
    """The rows of ``passive_changes``: a gapped row split at its gap, a contiguous one
    with an empty tail."""
    out = []
    for lex in lexes:
        for row in lex.phrases("passive_changes"):
            head, _, tail = row.replace("...", GAP).partition(GAP)
            if head.split():
                out.append((tuple(head.split()), tuple(tail.split())))
    return tuple(dict.fromkeys(out))


def with_objects(lex: LanguageLexicon, name: str) -> list[str]:
    """The rows of list ``name``, and each row of several words with one of the language's
    ``object_pronouns`` after its first word: a verb and its particle take a pronoun object
    between them ("pushed it to Friday", "moved it up", "gave it up"), and a noun object
    would make a row of any sentence. Languages that put the pronoun before the verb
    ("lo han adelantado al viernes", "je l'ai déplacé au lundi") match their rows as they are."""
    rows = list(lex.phrases(name))
    objects = sorted(lex.words("object_pronouns"))
    placed = []
    for row in rows:
        first, *rest = row.split()
        if rest and not spaceless(row):
            placed += [" ".join([first, pronoun, *rest]) for pronoun in objects]
    return rows + placed


def spaceless(text: str) -> bool:
    """Whether ``text`` holds a letter of a script written without spaces between words."""
    return any(script_of(char) in SPACELESS for char in text)


def frame(language: str, name: str) -> Frame | None:
    """The attribute frame ``name`` of ``language`` (None when it has none)."""
    lex = lexicon(language)
    if not lex.get(name):
        return None
    return Frame(
        str(lex.get(name, "attribute")),
        lex.words(name, "copulas"),
        lex.words(name, "articles"),
        lex.words(name, "prepositions"),
        int(lex.get(name, "most_words") or 0),
        lex.words(name, "before"),
        lex.words(name, "after"),
        int(lex.get(name, "most_digits") or 0),
        tuple(tuple(p.split()) for p in lex.phrases(name, "units")),
        bool(lex.get(name, "bare")),
        tuple(lex.words(name, "not_endings")),
        lex.words(name, "objects"),
        lex.words(name, "adverbs"),
    )
