"""The twenty-first round's mechanisms (each positive case failed on the code before):

- what the assistant says of a person of the user's world (a relative, a partner, someone the
  user named) restates what the user told of them: it replaces the user's older fact of that
  person, as the user's own words would, and never the user's own fact;
- a word saying the change ("now", "ahora") or a date a state starts from ("As of March")
  before a possessive or a relative is no subject: "Now my mum lives with us" is about the
  mother, "As of March my sister's rent is $1,600" tells the sister's rent.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read
from memorist.engine.supersession_rule import supersedes

from tests.supersession_pairs import current_adds, record


def _told(older: str, newer: str, older_by: str = "user", newer_by: str = "assistant") -> bool:
    return supersedes(record(newer, 6, newer_by), record(older, 2, older_by))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: Mi madre vive sola en Zaragoza.", "The assistant: Ahora tu madre vive con vosotros en Valencia."),
        (
            "The user: Mon fils Lucas est en CM2 à l'école Jules-Ferry.",
            "The assistant: Lucas est maintenant en sixième au collège Victor-Hugo.",
        ),
        ("The user's son Tom is in year 5 at Oak School.", "The assistant: So Tom is now in year 6 at Elm Academy."),
    ],
)
def test_the_assistants_word_on_the_users_relative_replaces_the_users(older: str, newer: str) -> None:
    assert _told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # Another person than the older fact's.
        ("The user: Mi hermano vive en Teruel.", "The assistant: Ahora tu madre vive con vosotros en Valencia."),
        # The user's own fact: a relative's move is not the user's.
        ("The user lives in Leeds.", "The assistant: So Tom now lives in York."),
    ],
)
def test_the_assistants_word_on_one_person_leaves_another(older: str, newer: str) -> None:
    assert not _told(older, newer)


def test_the_assistants_own_fact_stays_apart() -> None:
    assert not _told("The user lives in Leeds.", "The assistant: I now live in the cloud.")


@pytest.mark.parametrize(
    ("fact", "subjects"),
    [
        ("The user: Ahora mi madre vive con nosotros en Valencia.", {"madre"}),
        ("The user: Now my mum lives with us in Leeds.", {"mother"}),
        ("The assistant: Ahora tu madre vive con vosotros en Valencia.", {"madre"}),
        # Nothing after the word names a person: the speaker's own fact.
        ("The user: Now lives in Porto.", {"user"}),
    ],
)
def test_a_change_word_before_a_possessive_is_no_subject(fact: str, subjects: set[str]) -> None:
    assert read(fact).subjects == subjects


def test_an_assistants_restatement_replaces_through_the_engine(engine: Any) -> None:
    adds = [
        "Mi madre vive sola en Zaragoza.",
        "Mi hermano vive en Teruel.",
        [
            {"role": "user", "content": "Al final mi madre se ha venido a vivir con nosotros, ya no podía estar sola."},
            {"role": "assistant", "content": "Entiendo. Ahora tu madre vive con vosotros en Valencia."},
        ],
    ]
    assert current_adds(engine, "r21-madre", adds, every_add_stored=True) == [1, 2]


@pytest.mark.parametrize(
    ("fact", "owners"),
    [
        ("The user: As of March my sister's rent is $1,600.", {"sister"}),
        ("As of March the user's sister's rent is $1,600.", {"sister"}),
        ("The user: As of March my rent is $1,600.", set()),
    ],
)
def test_a_date_a_state_starts_from_opens_no_possessive_chain(fact: str, owners: set[str]) -> None:
    assert read(fact).owners == owners


def test_a_dated_relatives_value_leaves_the_speakers(engine: Any) -> None:
    adds = ["My rent is $1,450 a month.", "As of March my sister's rent is $1,600."]
    assert current_adds(engine, "r21-dated-sister", adds, every_add_stored=True) == [0, 1]
