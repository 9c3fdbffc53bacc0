"""Language identification's close calls (measured, not wired into ``language_of``):
langid's n-gram model reads the short lines whose function words
do not tell close neighbours apart, and the lexicons decide alone without it.

The figures over a labelled tune/held-out split are in ``benchmarks/language_id.py``.
"""

from __future__ import annotations

import sys

import pytest
from memorist import language
from memorist.language import lexicon_language_of, ngram_detector
from memorist.language.ngram_detector import combined_language_of as language_of

# Each line reads as another language by the lexicons alone (main before langid was wired).
CLOSE_CALLS = [
    ("Bilen skal have nye dæk.", "da"),
    ("Jeg er allergisk over for jordnødder.", "da"),
    ("Jag väger 80 kilo.", "sv"),
    ("On jest moim szefem.", "pl"),
    ("Wizyta u dentysty jest we wtorek.", "pl"),
    ("Rapatnya hari Jumat jam sepuluh.", "id"),
    ("Me lo ricordi domani?", "it"),
    ("On a déménagé à Lyon.", "fr"),
    ("İki çocuğum var.", "tr"),
]

# Short English lines, which an n-gram model alone reads as other languages
# (lingua: "I'm vegetarian." Indonesian), and lines the lexicons already tell.
KEPT = [
    ("I'm vegetarian.", "en"),
    ("I'm allergic to peanuts", "en"),
    ("Dinner with Anna at eight.", "en"),
    ("My friend Ada lives in Jakarta.", "en"),
    ("Remember that I'm vegetarian.", "en"),
    ("Vi har en hund.", "sv"),
    ("Mijn zus heeft een kat.", "nl"),
    ("Доброго дня!", "ru"),
    ("Ça va.", "fr"),
    ("Don't quit!", "en"),
    ("Sounds delicious!", "en"),
]


@pytest.mark.parametrize(("text", "code"), CLOSE_CALLS)
def test_a_close_call_is_read_in_its_language(text: str, code: str) -> None:
    assert ngram_detector.available()
    assert lexicon_language_of(text) != code  # the words alone miss it
    assert language_of(text) == code


@pytest.mark.parametrize(("text", "code"), KEPT)
def test_short_lines_keep_the_language_their_words_tell(text: str, code: str) -> None:
    assert language_of(text) == code


def test_without_langid_the_lexicons_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langid", None)  # import langid raises ImportError
    ngram_detector.available.cache_clear()
    language_of.cache_clear()
    try:
        assert not ngram_detector.available()
        for text, _ in CLOSE_CALLS + KEPT:
            assert language_of(text) == lexicon_language_of(text)
        assert language_of("Bilen skal have nye dæk.") == "en"  # as before langid was wired
    finally:
        monkeypatch.undo()
        ngram_detector.available.cache_clear()
        language_of.cache_clear()
    assert language_of("Bilen skal have nye dæk.") == "da"


def test_a_line_too_short_for_its_ngrams_is_left_to_the_lexicons() -> None:
    short = "No sé."
    assert sum(c.isalpha() for c in short) < ngram_detector.MINIMUM_LETTERS
    assert ngram_detector.ngram_language(short, language.languages(), ("es", "fr")) is None
