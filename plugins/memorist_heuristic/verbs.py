"""Third-person singular of an English verb, for the rewrite "I love" -> "Ana loves".

Only the present tense changes with the person, so a verb in the past ("went",
"moved"), a modal ("can", "will") or a word that is not a verb is left alone:
:func:`conjugate` answers None for it. A base form that is also a past form
("read", "put", "cut") is ambiguous without the rest of the sentence and left
alone too: "Ana read a book" is right in the past and only awkward otherwise.
"""

from __future__ import annotations

from functools import lru_cache

from memorist.plugin_api import fold, lexicon


@lru_cache(maxsize=1)
def _lists() -> tuple[dict[str, str], frozenset[str], frozenset[str]]:
    """From the lexicon's ``verbs``: irregular forms; words left as they are (modals, verbs
    whose base is also their past, words that are no verb); present verbs ending in "ed"."""
    lex = lexicon()
    irregular = {fold(k): str(v) for k, v in lex.mapping("verbs", "irregular").items()}
    keep = lex.words("verbs", "keep") | lex.words("verbs", "past")
    return irregular, keep, lex.words("verbs", "ed_present")


def conjugate(verb: str) -> str | None:
    """``verb`` for a third-person singular subject, or None when it must stay as it is.

    The case of the original is kept: "PLAY" -> "PLAYS", "Love" -> "Loves".
    """
    form = _third_person(verb.lower())
    if form is None or verb.islower():
        return form
    if verb.isupper() and len(verb) > 1:
        return form.upper()
    return form[:1].upper() + form[1:] if verb[:1].isupper() else form


def _third_person(word: str) -> str | None:
    irregular, keep, ed_present = _lists()
    word = fold(word)
    if word in irregular:
        return irregular[word]
    if word in keep or not word.isalpha() or len(word) < 2:
        return None
    if (word.endswith("ed") and word not in ed_present) or word.endswith("ing") or word.endswith("ly"):
        return None
    if word.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{word}es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return f"{word[:-1]}ies"
    return f"{word}s"
