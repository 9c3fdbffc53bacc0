"""The language layer's morphology: a definite ending and a compound's head."""

from __future__ import annotations

from memorist.language.common_words import common_words, opens_with_common_word
from memorist.language.morphology import compounding, forms, names_head


def test_a_definite_ending_is_stripped_in_swedish_and_danish() -> None:
    assert "fest" in forms("festen", "sv")
    assert "fest" in forms("festen", "da")
    assert "katt" in forms("katten", "sv")
    # Four letters stay at least: "bilen" (the car) is kept whole, never cut to "bile".
    assert forms("bilen", "sv") == frozenset({"bilen"})
    assert forms("garden", "en") == frozenset({"garden"})


def test_a_compounds_head_names_the_compound() -> None:
    assert compounding("de") and compounding("sv") and compounding("nl") and not compounding("en")
    assert names_head("fest", "fodelsedagsfest")
    assert names_head("feier", "geburtstagsfeier")
    assert not names_head("tag", "samstag")
    assert not names_head("fest", "festival")


def test_an_opening_word_is_common_in_the_language_of_the_rest_of_its_sentence() -> None:
    assert "då" in common_words("sv")
    assert opens_with_common_word("Då", "har ni 3 katter nu.")
    assert opens_with_common_word("Jetzt", "wohne ich in Köln")
    assert not opens_with_common_word("Mia", "turned 5 today")
    assert not opens_with_common_word("Lukas", "wohnt jetzt in Köln")
