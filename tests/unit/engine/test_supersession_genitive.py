"""A relative's thing named by a genitive after it ("El alquiler de mi hermana", "Die Miete
meiner Schwester", "the rent of my sister") is the relative's: it replaces none of the
speaker's own ("Mi alquiler es de 800 euros."), though it opens with the same attribute word
as "My rent ..." would. The positive cases of the first two lists read the speaker's rent as
replaced on the code before (the thing's attribute word made the fact the speaker's).

The owner is read from each language's rows: ``genitive_prepositions`` ("de", "of", "van",
"של") join any thing to its owner; ``genitive_possessives`` ("meiner", "моей", "mojej")
do it by case, with no preposition.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read

from tests.supersession_pairs import current_adds, replaces

A_RELATIVES_THING = [
    ("The user: Mi alquiler es de 800 euros.", "The user: El alquiler de mi hermana sube a 900 euros."),
    ("The user: Meine Miete beträgt 900 Euro.", "The user: Die Miete meiner Schwester ist auf 1000 Euro gestiegen."),
    ("The user: Mon loyer est de 700 euros.", "The user: Le loyer de ma sœur est passé à 850 euros."),
    ("The user: Il mio affitto è di 600 euro.", "The user: L'affitto di mia sorella è salito a 750 euro."),
    ("The user: O meu aluguel é 1500 reais.", "The user: O aluguel da minha irmã subiu para 1800 reais."),
    ("The user: Mijn huur is 1100 euro.", "The user: De huur van mijn zus is gestegen naar 1300 euro."),
    ("The user: Моя аренда 40000 рублей.", "The user: Аренда моей сестры выросла до 50000 рублей."),
    ("The user: Mój czynsz to 2000 zł.", "The user: Czynsz mojej siostry wzrósł do 2500 zł."),
    ("The user's rent is $1,200.", "The rent of the user's sister went up to $1,500."),
    ("The user: Moje telefonní číslo je 777 123 456.", "The user: Číslo mé sestry je 777 999 888."),
    ("The user: Trabajo en Google.", "The user: El trabajo de mi novio es en Amazon."),
]


@pytest.mark.parametrize(("older", "newer"), A_RELATIVES_THING)
def test_a_relatives_thing_replaces_none_of_the_speakers_own(older: str, newer: str) -> None:
    assert not replaces(older, newer)


def test_the_genitive_names_the_owner() -> None:
    assert read("The user: El alquiler de mi hermana sube a 900 euros.").owners == {"hermana"}
    assert read("The user: Аренда моей сестры выросла до 50000 рублей.").owners == {"сестра"}
    assert read("The user: Die Miete meiner Schwester ist gestiegen.").owners == {"schwester"}


THE_SPEAKERS_OWN = [
    # A verb before a relative in another case: the speaker's own fact.
    "The user: Ich wohne jetzt bei meiner Schwester in Bonn.",
    "The user: Odwiedzam moją siostrę w każdą niedzielę.",
    "The user: Ahora vivo en la casa de mi hermana en Toledo.",
    # The extractor's own voice: its subject, not a thing, opens the fact.
    "The user moved out of their parents' place and now lives in Manchester.",
    "The user: Mi alquiler sube a 900 euros.",
]


@pytest.mark.parametrize("fact", THE_SPEAKERS_OWN)
def test_no_genitive_owner_where_the_speaker_opens_the_fact(fact: str) -> None:
    assert read(fact).owners == frozenset()


THE_SAME_THING_CHANGED = [
    ["El alquiler de mi hermana es de 800 euros.", "El alquiler de mi hermana sube a 900 euros."],
    ["Die Miete meiner Schwester beträgt 900 Euro.", "Die Miete meiner Schwester ist auf 1000 Euro gestiegen."],
    ["Mi alquiler es de 800 euros.", "Mi alquiler sube a 900 euros."],
    # A relative's wedding moved later with no owner named is still the one moved.
    ["La boda de mi prima es el 12 de junio.", "Tengo un gato.", "Al final la boda será el 19 de junio."],
]


@pytest.mark.parametrize("adds", THE_SAME_THING_CHANGED)
def test_the_same_owners_thing_changed_replaces_it(engine: Any, adds: list[str]) -> None:
    current = current_adds(engine, f"same-{adds[0][:12]}", adds, every_add_stored=True)
    assert current == list(range(1, len(adds)))


@pytest.mark.parametrize(
    "adds",
    [
        ["Mi alquiler es de 800 euros.", "El alquiler de mi hermana sube a 900 euros."],
        ["Mój czynsz to 2000 zł.", "Czynsz mojej siostry wzrósł do 2500 zł."],
        ["My rent is $1,200.", "The rent of my sister went up to $1,500."],
    ],
)
def test_a_relatives_rent_leaves_the_speakers_current_across_adds(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"other-{adds[0][:12]}", adds, every_add_stored=True) == [0, 1]
