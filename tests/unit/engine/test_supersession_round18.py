"""The eighteenth round's mechanisms (each positive case failed on the code before):

- what a partner *is* ("Ma femme est prof de maths", "My wife is a nurse") is the partner's
  own fact, not the speaker's relationship: only who the partner is ("the user's husband is
  David") is; so the partner's later change replaces it and leaves the speaker's own job;
- an English family word or partner typed without its "my" at a message's opening, before an
  attribute or change word ("sister moved to Bergen", "wife left the firm"), is that person's
  fact, as another language's bare relative already was; another person acting on the
  speaker's own thing ("landlord raised the rent") is not;
- in a statement told in another language, the default language's first person is no speaker:
  Swedish "hon bor i Göteborg" ("i": in) names the daughter, not the speaker;
- a relative after words that qualify it ("the user's best friend Owen", "older sister") is the
  one the possessive names;
- a relative owning a thing inside a run of a script written without spaces ("我妈的手机号",
  my mom's phone number; "母の誕生日") owns it: the mother's number replaces none of the
  speaker's.
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


@pytest.mark.parametrize(
    ("fact", "subject"),
    [
        ("The user: Min dotter har flyttat till Göteborg, hon bor i en studentkorridor.", {"dotter"}),
        ("The user's best friend Owen lives in Cardiff.", {"friend", "owen"}),
        ("The user's older sister moved to Leeds.", {"sister"}),
    ],
)
def test_who_a_fact_is_about(fact: str, subject: set[str]) -> None:
    assert read(fact).subjects == subject


@pytest.mark.parametrize(
    ("fact", "owner"),
    [("The user: 我妈的手机号是139 8765 4321", "妈妈"), ("The user: 母の誕生日は5月3日です。", "母")],
)
def test_a_relative_owns_a_thing_inside_a_run(fact: str, owner: str) -> None:
    assert read(fact).owners == {owner}


def test_the_speakers_own_thing_inside_a_run() -> None:
    assert read("The user: 我的手机号是138 1234 5678。").owners == frozenset()


@pytest.mark.parametrize(
    "adds",
    [
        ["Jag bor i Umeå.", "Min dotter har flyttat till Göteborg för att plugga, hon bor i en studentkorridor."],
        ["I live in Bristol.", "My best friend Owen lives in Cardiff."],
        ["我的手机号是138 1234 5678。", "我妈的手机号是139 8765 4321，有急事可以联系她。"],
    ],
)
def test_someone_elses_fact_leaves_the_speakers_current(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"r18b-{adds[1][:8]}", adds, every_add_stored=True) == [0, 1]


@pytest.mark.parametrize(
    "adds",
    [
        [
            "Tom teaches history at a high school.",
            "Quick update since last time: Tom and I split up in September, we're still friends though."
            " Work has been hectic and I finally started pottery classes on Thursdays.",
        ],
        [
            "Lena arbeitet als Ärztin in der Charité.",
            "Kurzes Update: Lena und ich haben uns im Sommer getrennt, es war friedlich. Sonst viel Arbeit"
            " und ich gehe jetzt zweimal die Woche schwimmen.",
        ],
    ],
)
def test_a_change_of_another_attribute_leaves_a_fact_naming_the_same_person(engine: Any, adds: list[str]) -> None:
    """Two facts naming two attributes by words are two facts, though the change names the
    older's person or place."""
    assert current_adds(engine, f"r18-apart-{adds[0][:8]}", adds, every_add_stored=True) == [0, 1]


def test_a_change_that_moved_the_older_things_still_replaces_it(engine: Any) -> None:
    adds = [
        "We're having my daughter Mia's birthday party at the park on Saturday.",
        "Ugh, thunderstorms all weekend so we moved Mia's party indoors to the trampoline place, same day.",
    ]
    assert current_adds(engine, "r18-party", adds, every_add_stored=True) == [1]


@pytest.mark.parametrize(
    "adds",
    [
        ["Μένω στην Αθήνα.", "Ο γιος μου μετακόμισε στη Θεσσαλονίκη."],
        ["Saya tinggal di Jakarta.", "Adik saya pindah ke Bandung."],
        ["Ζυγίζω 78 κιλά.", "Ο γιος μου ζυγίζει 30 κιλά."],
    ],
)
def test_a_relative_with_my_after_it_is_the_subject(engine: Any, adds: list[str]) -> None:
    """Greek and Indonesian put "my" after the relative ("Ο γιος μου", my son; "Adik saya"): the
    relative's move or weight leaves the speaker's own current."""
    assert current_adds(engine, f"r18-after-{adds[1][:8]}", adds, every_add_stored=True) == [0, 1]


def test_a_partner_named_after_my_stays_the_speakers_relationship(engine: Any) -> None:
    adds = ["Bạn gái tôi tên là Lan.", "Tôi và Lan chia tay rồi."]
    assert current_adds(engine, "r18-vi-partner", adds, every_add_stored=True) == [1]


@pytest.mark.parametrize(
    "adds",
    [
        ["Pago R$ 1.800 de aluguel.", "Mudou o dono do prédio e o aluguel aumentou, agora pago R$ 2.000."],
        ["Mi alquiler es de 900 euros.", "Cambió el dueño y el alquiler subió, ahora pago 1.000 euros."],
    ],
)
def test_a_value_a_joined_clause_says_changed_is_replaced(engine: Any, adds: list[str]) -> None:
    """ "X and the rent went up" joins two clauses, not two values held side by side."""
    assert current_adds(engine, f"r18-clause-{adds[0][:8]}", adds, every_add_stored=True) == [1]


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["I weigh 82 kg.", "Another good week, I'm at 80 kg now."], [1]),
        (["Peso 82 kg.", "Otra semana más, ahora peso 80 kg."], [1]),
        (["Ich wiege 82 kg.", "Noch eine gute Woche, jetzt wiege ich 80 kg."], [1]),
        (["I have a dog.", "I got another dog last week."], [0, 1]),
    ],
)
def test_an_additive_word_before_a_period_counts_time(engine: Any, adds: list[str], current: list[int]) -> None:
    """ "Another good week" (``period_words``) tells time passing, not one more thing."""
    assert current_adds(engine, f"r18-period-{adds[1][:10]}", adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    "adds",
    [
        [
            "I work as a nurse at the children's hospital.",
            [
                {"role": "assistant", "content": "Is your sister still at the bank?"},
                {"role": "user", "content": "no, she works at a school now, teaching maths."},
            ],
        ],
        [
            "Trabajo como enfermera en un hospital.",
            [
                {"role": "assistant", "content": "¿Y tu hermana sigue en el banco?"},
                {"role": "user", "content": "No, ella ahora trabaja en una escuela."},
            ],
        ],
    ],
)
def test_a_reply_about_a_third_person_leaves_the_speakers_fact(engine: Any, adds: list[Any]) -> None:
    """A user's reply that opens with "she" ("ella", "вона"; ``third_person``) is about her,
    clause by clause, not about the user."""
    assert current_adds(engine, f"r18-reply-{adds[0][:8]}", adds, every_add_stored=True) == [0, 1]
