"""A name's initials end no sentence: a single capital letter closed by a full stop, before
another initial or a capitalized word that is no lexicon's function word or sentence opener,
in every script with case."""

from __future__ import annotations

import pytest
from memorist.language import CAPITALS_OPEN_AFTER, at_sentence_start, sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("J.K. Rowling wrote it. I loved it.", ["J.K. Rowling wrote it.", "I loved it."]),
        ("I met J. R. R. Tolkien's grandson. He was kind.", ["I met J. R. R. Tolkien's grandson.", "He was kind."]),
        ("Ich habe J.K. Rowling gelesen. Es war gut.", ["Ich habe J.K. Rowling gelesen.", "Es war gut."]),
        ("Я читал А. С. Пушкина. Мне понравилось.", ["Я читал А. С. Пушкина.", "Мне понравилось."]),
        ("Leí a J. R. R. Tolkien. Me encantó.", ["Leí a J. R. R. Tolkien.", "Me encantó."]),
        (
            "Ο Γ. Παπαδόπουλος είναι φίλος μου. Μένει στην Αθήνα.",
            ["Ο Γ. Παπαδόπουλος είναι φίλος μου.", "Μένει στην Αθήνα."],
        ),
    ],
)
def test_initials_stay_with_their_name(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "apt." is an abbreviation; "Then" a function word: the letter ended the sentence.
        ("I live in Apt. B. Then I moved.", ["I live in Apt. B.", "Then I moved."]),
        ("It's vitamin D. Take it daily.", ["It's vitamin D.", "Take it daily."]),
        ("My grade was an A. The teacher was happy.", ["My grade was an A.", "The teacher was happy."]),
        ("Ich nehme Vitamin D. Das hilft mir.", ["Ich nehme Vitamin D.", "Das hilft mir."]),
        # A word of several letters is no initial, however short.
        ("I work at IBM. Anna works there too.", ["I work at IBM.", "Anna works there too."]),
    ],
)
def test_a_letter_ending_a_sentence_before_a_common_word_still_ends_it(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_the_name_after_initials_opens_no_sentence() -> None:
    # So the versions of a fact read "Tolkien" as a value, as they read "Rowling".
    text = "I met J. R. R. Tolkien's grandson."
    assert not at_sentence_start(text, text.index("Tolkien"), CAPITALS_OPEN_AFTER)
    assert not at_sentence_start("Я читал А. С. Пушкина.", len("Я читал А. С. "), CAPITALS_OPEN_AFTER)
    text = "I live in Apt. B. Then I moved."
    assert at_sentence_start(text, text.index("Then"), CAPITALS_OPEN_AFTER)
