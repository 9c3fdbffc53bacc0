"""Third-person singular of an English verb, for the rewrite "I love" -> "Ana loves".

Only the present tense changes with the person, so a verb in the past ("went",
"moved"), a modal ("can", "will") or a word that is not a verb is left alone:
:func:`conjugate` answers None for it. A base form that is also a past form
("read", "put", "cut") is ambiguous without the rest of the sentence and left
alone too: "Ana read a book" is right in the past and only awkward otherwise.
"""

from __future__ import annotations

_IRREGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is", "don't": "doesn't", "don’t": "doesn't"}
_KEEP = frozenset(
    """can could will would shall should may might must ought used need's can't cannot couldn't won't wouldn't
    shouldn't mustn't didn't wasn't weren't isn't aren't hasn't hadn't am is are was were been being had did has
    does goes read put cut hit let quit set shut cost hurt spread bet burst cast thrust split and or but nor so
    then too a an the to of in on at for with by from as that this it if not no yes also personally myself""".split()
)
_PAST = frozenset(
    """went got made took saw met bought found began won lost ran wrote built left gave came became said told
    felt thought knew kept heard sat stood spent sent taught brought caught fought paid sold slept swam drove
    rode flew ate drank wore forgot understood chose spoke broke woke fell grew threw drew hid held led meant
    sang rang sank shook stole struck swore tore bit fed fled dug hung lit slid spun stuck stung swung wept
    wound laid lay sought dealt dreamt learnt burnt spelt knelt leapt bent lent sped""".split()
)
#: Present-tense verbs that end in "ed" like a past participle.
_ED_PRESENT = frozenset(
    "need feed bleed breed speed succeed proceed exceed seed weed heed shed shred wed embed".split()
)


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
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _KEEP or word in _PAST or not word.isalpha() or len(word) < 2:
        return None
    if (word.endswith("ed") and word not in _ED_PRESENT) or word.endswith("ing") or word.endswith("ly"):
        return None
    if word.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{word}es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return f"{word[:-1]}ies"
    return f"{word}s"
