"""The tenth round's mechanisms, each in several languages, each positive case failing on the
ninth round's code.

- an additive word after a definite article refers back to the value already told ("the
  other one got hacked", "el otro", "die andere"), so a new value told beside it replaces;
  "another" or "a second" still adds;
- what the assistant says of a person of its listener's ("Understood, your manager is now
  ...", or as the extractor rewrites it, "The assistant: The user's manager is now ...") has
  that person as its subject, as the user's "My manager is ..." has;
- a change opener ("ab sofort", "d'ora in poi", "с этого момента") inside a long memory says
  the clause's attribute changed.
"""

from __future__ import annotations

import pytest
from memorist.engine.supersession_rule import supersedes
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds, record, replaces


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        (
            "The user: new #: 312 555 0147",
            "The user: new # again lol, 312 555 0163. the other one got spammed to death",
            True,
        ),
        ("The user: My number is 312 555 0147.", "The user: New number: 312 555 0163, the other one got hacked.", True),
        ("The user: Mi número es 612 345 678.", "The user: Número nuevo: 699 111 222, el otro me lo robaron.", True),
        (
            "The user: Meine Nummer ist 0151 2345678.",
            "The user: Neue Nummer: 0160 9876543, die andere ist gesperrt.",
            True,
        ),
        ("The user: O meu número é 912 345 678.", "The user: Número novo: 936 111 222, o outro foi roubado.", True),
        # An addition stays one: no definite article before the additive word.
        ("The user: My number is 312 555 0147.", "The user: I got a second number, 312 555 0163.", False),
        ("The user: My number is 312 555 0147.", "The user: I have another number too, 312 555 0163.", False),
    ],
)
def test_an_additive_word_after_a_definite_article_refers_back(older: str, newer: str, expected: bool) -> None:
    assert replaces(older, newer) is expected


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        ("The user's manager is Tom Alvarez.", "The assistant: The user's manager is now Grace Lin.", True),
        ("The user: My manager is Tom Alvarez.", "The assistant: Understood, your manager is now Grace Lin.", True),
        ("The user: Mi jefe es Tomás.", "The assistant: Entendido, tu jefe ahora es Grace Lin.", True),
        ("The user: Mon chef est Tom.", "The assistant: D'accord, ton chef est désormais Grace Lin.", True),
        ("The user: Мой начальник — Том.", "The assistant: Понял, твой начальник теперь Грейс Лин.", True),
        # Another person of the user's, or another role, is another fact.
        ("The user's sister lives in Leeds.", "The assistant: Got it, your brother is moving to Bath.", False),
        ("The user's manager is Tom Alvarez.", "The assistant: Got it, your dentist is now Dr. Moreno.", False),
    ],
)
def test_the_assistants_word_on_the_listeners_person_replaces(older: str, newer: str, expected: bool) -> None:
    assert supersedes(record(newer, 6, "assistant"), record(older, 2, "user")) is expected


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        (
            "The user: Meine Adresse ist Lindenstraße 12, 10969 Berlin.",
            "The user: Kurzes Update: Der Umzug ist geschafft, die Kisten sind fast alle ausgepackt, und ab "
            "sofort lautet meine Adresse Schillerweg 4, 80797 München. Die Katze hat sich auch schon eingelebt.",
            True,
        ),
        (
            "The user: Мой адрес: улица Ленина 5, Казань.",
            "The user: Коротко о новостях: переезд закончен, коробки почти разобраны, и с этого момента мой "
            "адрес — улица Пушкина 10, Самара. Кот тоже уже освоился.",
            True,
        ),
        # A change opener on another thing leaves the address.
        (
            "The user: Meine Adresse ist Lindenstraße 12, 10969 Berlin.",
            "The user: Kurzes Update: die Kisten sind fast alle ausgepackt, und ab sofort arbeite ich mehr im "
            "Garten, und die Katze hat sich auch schon eingelebt und frisst gut.",
            False,
        ),
    ],
)
def test_a_change_opener_in_a_long_memory_changes_its_clause(older: str, newer: str, expected: bool) -> None:
    assert replaces(older, newer) is expected


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["New number: 415 555 0101", "New number again, 415 555 0199. The other one kept getting spam calls."], [1]),
        (
            [
                "My manager is Priya Shah.",
                [
                    {"role": "user", "content": "Priya moved teams, so I report to Daniel Ortiz now."},
                    {"role": "assistant", "content": "Understood, your manager is now Daniel Ortiz."},
                ],
            ],
            [1],
        ),
        (
            [
                "Мой адрес: улица Ленина 5, Казань.",
                "Коротко о новостях: переезд закончен, коробки почти разобраны, и с этого момента мой адрес — "
                "улица Пушкина 10, Самара. Кот тоже уже освоился.",
            ],
            [1],
        ),
    ],
)
def test_latest_only_lists_the_current_version(engine: Engine, adds: list[object], current: list[int]) -> None:
    assert current_adds(engine, f"r{abs(hash(repr(adds)))}", adds) == current


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        # A relative before a possessive particle owns what follows: the wedding is the fact's
        # thing, and the user's fragment about it changes its date.
        ("The user: मेरी बहन की शादी 14 फरवरी को है।", "The user: शादी की तारीख बदल गई है, अब 21 फरवरी को है।", True),
        # The sister's wedding is not the speaker's marriage.
        ("The user: मैं शादीशुदा हूँ।", "The user: मेरी बहन की शादी 21 फरवरी को है।", False),
        ("The user: मेरी पत्नी का नाम सीमा है।", "The user: मेरी बहन की शादी 21 फरवरी को है।", False),
        ("The user: मेरी बहन की शादी 14 फरवरी को है।", "The user: मेरे दोस्त की पार्टी 21 फरवरी को है।", False),
    ],
)
def test_a_possessive_particle_makes_the_relative_an_owner(older: str, newer: str, expected: bool) -> None:
    assert replaces(older, newer) is expected
