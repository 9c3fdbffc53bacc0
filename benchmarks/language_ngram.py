"""Character n-gram language identification by ``langid``, for the lexicons' close calls
(measured by ``benchmarks/language_id.py``; not part of the service).

The lexicons tell a language by its function words and letters, which is cheap and right
whenever a text has a few of them. A short chat line among close neighbours often has none
that only one language uses: "Bilen skal have nye dæk." is Danish, "On jest moim szefem."
Polish, "İki çocuğum var." Turkish. langid.py (Lui & Baldwin) weighs the
byte n-grams of a text against a naive Bayes model trained on 97 languages; the model ships
inside the package (nothing is downloaded) and is restricted here to the languages sharing
the text's script.

Its answer counts only when its normalized probability reaches :data:`MINIMUM_PROBABILITY`
and the text has :data:`MINIMUM_LETTERS`: an English line without a listed word ("Sounds
delicious!", read as Spanish at 0.99) keeps the lexicons' reading, English by default.
lingua-language-detector was measured beside it (``benchmarks/language_id.py``): its
low-accuracy mode is as accurate on its own but reads short English lines as other
languages with full confidence ("I'm vegetarian." Indonesian at 0.97), and its
high-accuracy mode costs ~600 MB per process.

The model is loaded lazily, once per process (~60 MB, ~0.3 s). Without
the package installed, :func:`ngram_language` answers None and the lexicons decide alone.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

#: How far a lexicon's evidence must lead the runner-up's (in function words) for the
#: lexicons to decide alone; a closer call goes to the n-gram model when installed.
CLEAR_LEAD = 1.0

#: How far a language's evidence may trail the best's and still be the n-gram model's answer.
OPEN_BAND = 0.5

#: The normalized probability langid's answer needs to override the lexicons' reading.
MINIMUM_PROBABILITY = 0.9999

#: The letters a text needs before its n-grams are read at all: a line of a word or two
#: ("No sé.", "Ça va.") holds too few for any n-gram model to be sure of.
MINIMUM_LETTERS = 8


@lru_cache(maxsize=1)
def available() -> bool:
    """Whether langid is installed (the ``languages`` extra)."""
    try:
        import langid  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def _model() -> Any:
    from langid.langid import LanguageIdentifier, model

    return LanguageIdentifier.from_modelstring(model, norm_probs=True)


@lru_cache(maxsize=8)
def _identifier(candidates: tuple[str, ...]) -> Any:
    """A copy of the model restricted to ``candidates`` (restricting mutates the model)."""
    import copy

    identifier = copy.copy(_model())
    known = [code for code in candidates if code in identifier.nb_classes]
    if len(known) < 2:
        return None
    identifier.set_languages(known)
    return identifier


def ngram_language(text: str, candidates: tuple[str, ...], open_to: tuple[str, ...]) -> str | None:
    """The language of ``open_to`` langid reads ``text`` in, weighed against all of
    ``candidates`` (the script's languages, ISO 639-1); None when the package is absent,
    the text is shorter than :data:`MINIMUM_LETTERS`, or langid gives that language less
    than :data:`MINIMUM_PROBABILITY` (a language outside ``open_to`` taking the mass leaves
    the lexicons' reading)."""
    if not available() or sum(char.isalpha() for char in text) < MINIMUM_LETTERS:
        return None
    identifier = _identifier(candidates)
    if identifier is None:
        return None
    for code, probability in identifier.rank(text):
        if code in open_to:
            return code if probability >= MINIMUM_PROBABILITY else None
    return None


@lru_cache(maxsize=8192)
def combined_language_of(text: str) -> str:
    """The lexicons' reading (:func:`memorist.language.language_of`), with langid
    deciding the close calls: no language leads the runner-up by :data:`CLEAR_LEAD`, and
    langid chooses among the languages trailing the best by less than :data:`OPEN_BAND`.
    Not wired into ``language_of``: see docs/benchmarks.md."""
    # the lexicons' evidence as language_of weighs it (private: this reader is measured, not shipped)
    from memorist.language import _evidence_scores, _lexicon_choice

    reading = _evidence_scores(text)
    if isinstance(reading, str):
        return reading
    candidates, score, default = reading
    chosen = _lexicon_choice(score, default, lettered=not text.isascii())
    runner_up = max((v for code, v in score.items() if code != chosen), default=0.0)
    if score[chosen] - runner_up >= CLEAR_LEAD:
        return chosen
    best = max(score.values())
    open_to = tuple(code for code in candidates if best - score[code] < OPEN_BAND)
    if len(open_to) < 2:
        return chosen
    return ngram_language(text, candidates, open_to) or chosen
