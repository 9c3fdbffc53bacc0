"""The twenty-first round's mechanisms (each positive case failed on the code before):

- what the assistant says of a person of the user's world (a relative, a partner, someone the
  user named) restates what the user told of them: it replaces the user's older fact of that
  person, as the user's own words would, and never the user's own fact;
- a word saying the change ("now", "ahora") or a date a state starts from ("As of March")
  before a possessive or a relative is no subject: "Now my mum lives with us" is about the
  mother, "As of March my sister's rent is $1,600" tells the sister's rent;
- a hyphenated relative ("mother-in-law", "belle-mère") is the one a possessive names;
- two values of one unit that agree by no other word are one quantity's versions only by a
  cosine read on the English scale: a bonus in reais is no new salary.
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


@pytest.mark.parametrize(
    ("older", "newer", "linked"),
    [
        ("The user lives in Leeds.", "The user's mother-in-law moved to York.", False),
        ("The user's mother-in-law lives in Leeds.", "The user's mother-in-law moved to York.", True),
        ("The user: J'habite à Lyon.", "The user: Ma belle-mère a déménagé à Nice.", False),
    ],
)
def test_a_hyphenated_relative_is_the_one_the_possessive_names(older: str, newer: str, linked: bool) -> None:
    assert _told(older, newer, "user", "user") is linked


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["Meu salário é de 4.500 reais.", "Esse mês ganhei um bônus de 2.000 reais."], [0, 1]),
        (["Meu aluguel é de 1.500 reais.", "O aluguel agora é de 1.700 reais."], [1]),
        (["Mein Gehalt beträgt 3.200 Euro.", "Ich verdiene jetzt 3.500 Euro."], [1]),
    ],
    ids=["pt-bonus", "pt-rent", "de-salary"],
)
def test_a_value_of_one_unit_replaces_only_its_quantity(
    engine: Any, adds: list[str], current: list[int], request: pytest.FixtureRequest
) -> None:
    assert current_adds(engine, f"r21-{request.node.callspec.id}", adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    "adds",
    [
        # A friend or a sibling named the way people type ("buddy", "bro") is that person.
        ["i work at stripe as a backend eng", "my buddy leo just left stripe for openai lol"],
        ["my sis jen lives in leeds", "bro mark lives in leeds too"],
        # A past job recalled ("var engang": once) leaves the current one.
        ["arbejder hos novo nordisk", "var engang hos mærsk, fedt sted"],
    ],
    ids=["en-buddy", "en-bro", "da-engang"],
)
def test_a_typed_relative_or_a_past_stint_replaces_nothing(
    engine: Any, adds: list[str], request: pytest.FixtureRequest
) -> None:
    assert current_adds(engine, f"r21-{request.node.callspec.id}", adds, every_add_stored=True) == [0, 1]
