"""The eighteenth round's mechanisms (each positive case failed on the code before):

- what a partner *is* ("Ma femme est prof de maths", "My wife is a nurse") is the partner's
  own fact, not the speaker's relationship: only who the partner is ("the user's husband is
  David") is; so the partner's later change replaces it and leaves the speaker's own job;
- an English family word or partner typed without its "my" at a message's opening, before an
  attribute or change word ("sister moved to Bergen", "wife left the firm"), is that person's
  fact, as another language's bare relative already was; another person acting on the
  speaker's own thing ("landlord raised the rent") is not.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read

from tests.supersession_pairs import current_adds


@pytest.mark.parametrize(
    ("fact", "subject"),
    [
        ("The user: Ma femme est prof de maths au lycée.", "femme"),
        ("The user's wife is a nurse.", "wife"),
        ("The user: sister moved to Bergen last week", "sister"),
        ("The user: wife left the firm, she's a judge now!! so proud", "wife"),
        ("The user: mom changed her number, it's 555-0101", "mother"),
    ],
)
def test_the_partners_or_relatives_own_fact(fact: str, subject: str) -> None:
    assert read(fact).subjects == {subject}


@pytest.mark.parametrize(
    "fact",
    [
        "The user's husband is David.",
        "The user: Mi novio es Juan.",
        "The user's partner is called Sam.",
        "The user: landlord raised the rent, it's $2,000 a month now",
        "The user: Team dinner got moved to Friday.",
    ],
)
def test_the_speakers_own_fact(fact: str) -> None:
    assert "user" in read(fact).subjects


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (
            [
                "J'ai un chien, un beagle.",
                "Ma femme est prof de maths au lycée.",
                "ma femme a changé de boulot, elle est directrice d'école maintenant",
            ],
            [0, 2],
        ),
        (["I'm a teacher.", "My wife is a nurse.", "My wife became a pharmacist last month."], [0, 2]),
        (["I live in Oslo.", "my sister lives in Oslo too", "sister moved to Bergen last week"], [0, 2]),
        (["My rent is $1,850 a month.", "landlord raised the rent, it's $2,000 a month now"], [1]),
        (["Mi marido es médico.", "Trabajo como profesora."], [0, 1]),
    ],
)
def test_across_adds(engine: Any, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"r18-{adds[1][:10]}", adds, every_add_stored=True) == current
