"""Who a fact's later sentence is about, and whose thing a possessive chain names.

A chatty message keeps its small talk with the fact ("So the landlord raised it. As of March my
rent is $1,600."): the subject reader reads every later clause and sentence from the first word
naming the speaker, so the fact is the user's though the memory opens with the landlord; a
possessive chain there names its relative ("... my sister's rent ..."), and a relative's thing
changes none of the user's own (:mod:`memorist.engine.supersession_subjects`,
:mod:`memorist.engine.supersession_rule`). Each positive case failed on the code before.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read

from tests.supersession_pairs import current_adds, replaces


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("So the landlord raised it. As of March the user's rent is $1,600.", "user"),
        ("The landlord called. Since June the user pays $950 in rent.", "user"),
        ("Busy week at work. The user's sister moved to Bergen.", "sister"),
        ("Long day! On Monday the user's brother started at a new school.", "brother"),
    ],
)
def test_a_later_sentence_names_who_the_fact_is_about(text: str, subject: str) -> None:
    assert subject in read(text).subjects


def test_a_possessive_chain_in_a_later_sentence_names_the_relative_not_the_user() -> None:
    subjects = read("So the landlord raised it. As of March the user's sister's rent is $1,600.").subjects
    assert "sister" in subjects
    assert "user" not in subjects


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's rent is $1,450 a month.", "The user's sister's rent is $1,600 now."),
        ("The user's phone number is 555-1234.", "The user's brother's phone number is 555-9876 now."),
        ("The user's commute is 40 minutes.", "The user's mother's commute is down to 25 minutes now."),
    ],
)
def test_a_relatives_thing_changes_none_of_the_users_own(older: str, newer: str) -> None:
    assert not replaces(older, newer, similarity=0.8)


def test_a_relatives_own_thing_still_changes() -> None:
    assert replaces("The user's sister's rent is $1,200 a month.", "The user's sister's rent went up to $1,300.", 0.9)


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (
            [
                "I have a dog.",
                "My rent is $1,450 a month.",
                "So the landlord raised it. As of March my rent is $1,600.",
            ],
            [0, 2],
        ),
        (
            [
                "I play chess.",
                "My rent is $1,450 a month.",
                "So the landlord raised it. As of March my sister's rent is $1,600.",
            ],
            [0, 1, 2],
        ),
        (["My rent is $1,450 a month.", "My sister's rent is $1,600 now."], [0, 1]),
        (
            [
                "Meine Miete beträgt 900 Euro im Monat.",
                "Der Vermieter hat sie erhöht. Ab Juli beträgt meine Miete 980 Euro.",
            ],
            [1],
        ),
        (
            ["Mijn huur is 900 euro per maand.", "De verhuurder heeft hem verhoogd. Vanaf juli is mijn huur 950 euro."],
            [1],
        ),
    ],
    ids=["en-context", "en-relative-in-context", "en-relative", "de-context", "nl-context"],
)
def test_through_the_engine(engine: Any, adds: list[str], current: list[int], request: pytest.FixtureRequest) -> None:
    assert current_adds(engine, request.node.callspec.id, adds, every_add_stored=True) == current
