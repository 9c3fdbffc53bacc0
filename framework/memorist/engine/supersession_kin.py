"""Who a relative word names: each language's relatives with the speaker's "my" written onto
them, and the other words a language names one relative with ("syrran" / "syster", "mamma" /
"madre", "Mama" / "Mutter"), so that two facts about one person read as about one person
whichever word told each. :mod:`.supersession_lexicon` loads them into its lists.
"""

from __future__ import annotations

from ..language.lexicon import Lexicon as LanguageLexicon


def relatives(lexes: list[LanguageLexicon]) -> frozenset[str]:
    """Each language's ``relatives`` and, where the language writes the speaker's "my" as an
    ending of the noun (its ``possessive_suffixes``: Indonesian "kakakku", my elder sibling),
    each relative with it: a phone-typed "kakakku udah pindah" opens with the relative, as
    "Mi hermana se mudó" does, though no capital marks it."""
    out: set[str] = set()
    for lex in lexes:
        named = lex.words("relatives") | {
            form for head in lex.get("relative_forms") or {} for form in lex.words("relative_forms", head)
        }
        out |= named
        out |= {relative + suffix for relative in named for suffix in lex.words("possessive_suffixes")}
    return frozenset(out)


def partners(lexes: list[LanguageLexicon]) -> frozenset[str]:
    """Each language's ``partner_words`` and, as for :func:`relatives`, each with the speaker's
    "my" written onto it ("istriku", my wife): the partner of "istriku juga baru naik gaji" is
    the subject, as "my wife" makes her."""
    out: set[str] = set()
    for lex in lexes:
        named = lex.words("partner_words")
        out |= named | {partner + suffix for partner in named for suffix in lex.words("possessive_suffixes")}
    return frozenset(out)


def kin(lexes: list[LanguageLexicon]) -> dict[str, str]:
    """Each form of a relative (``relative_forms``: the head word, then the other ways the
    language names that relative: a familiar word, a definite form, a diminutive) -> the head."""
    out: dict[str, str] = {}
    # The statement's own language before the default's: German "Mama" is "Mutter" there.
    for lex in reversed(lexes):
        for head in lex.get("relative_forms") or {}:
            for form in lex.words("relative_forms", head):
                out.setdefault(form, str(head).casefold())
        # "kakakku" (my elder sibling) is "kakak" with the speaker's ending.
        for stem in lex.words("relatives") | lex.words("partner_words"):
            for suffix in lex.words("possessive_suffixes"):
                out.setdefault(stem + suffix, out.get(stem, stem))
    return out
