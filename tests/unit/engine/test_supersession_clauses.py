"""The seventh round's kinds of change, each a mechanism in several languages.

- one clause of a long message changes a fact though another clause says "too" or is about
  something else ("..., my number is 617-555-0177 now, and I still need to call the bank"),
  and a sentence about the speaker after one about something else is the speaker's ("The
  accident changed a lot. I can't cycle anymore, ..."); an attribute links only through a
  clause that names the older fact's subject ("Busy week: my sister moved to Bristol, I
  helped her carry the boxes" is no move of the speaker's);
- "too" before a word is a degree ("too heavy"), an addition only where it closes a clause;
- a novelty word before a relative's role ("my new boss is", "mi nuevo jefe es") changes
  that role;
- a relative named in apposition ("my daughter Nora") is the subject of a later fact about
  the name ("Nora turned 5");
- Japanese and Korean say a quantity moved after the number ("1杯に減らしました",
  "1잔으로 줄였어요");
- two values of a slot told with different qualifiers coexist (a work and a personal
  e-mail, a business and a private number);
- a favourite that became another ("è diventato", "se ha convertido en") has changed.

Pairs are read with the rule alone (:func:`tests.supersession_pairs.replaces`); the door
(``Engine.list`` with ``latest_only``) runs the real engine with the default embedder.
"""

from __future__ import annotations

import pytest
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds, replaces


@pytest.mark.parametrize(
    ("older", "newer", "similarity", "expected"),
    [
        # A relative named in apposition is the subject of a later fact about the name ...
        ("The user's daughter Nora is 4.", "The user: Nora turned 5 yesterday, we had a picnic.", None, True),
        ("The user: Mi hija Lucía tiene 6 años.", "The user: Lucía cumplió 7 años el sábado.", None, True),
        # ... and not of a fact about someone else.
        ("The user's daughter Nora is 4.", "The user: Leo turned 5 yesterday, we had a picnic.", None, False),
        # A novelty word before a relative's role changes that role.
        ("The user: Mon patron est Marc.", "The user: Mon nouveau patron est Julien.", None, True),
        ("The user's boss is Maria Gomez.", "The user's new boss is Tom Becker.", None, True),
        # "too" before a word is a degree; closing a clause, an addition.
        ("The user has a dog.", "The user got a cat too.", None, False),
        # Qualified values of one slot coexist; a stated change of state still replaces.
        ("The user's work email is a.kim@northwind.com.", "The user's personal email is annie@proton.me.", None, False),
        ("The user's email is a.kim@northwind.com.", "The user's email is annie@proton.me.", None, True),
        (
            "The user's home phone is 020 7946 0000.",
            "The user: We cancelled the landline, call the user's mobile 07700 900123 instead.",
            None,
            True,
        ),
        # A favourite that became another.
        ("The user: Minha banda favorita é o Queen.", "The user: Minha banda favorita virou o Coldplay.", 0.6, True),
        ("The user: Мой любимый фильм — Матрица.", "The user: Моим любимым фильмом стал Интерстеллар.", 0.6, True),
    ],
)
def test_the_rule_reads_the_rounds_kinds(older: str, newer: str, similarity: float | None, expected: bool) -> None:
    assert replaces(older, newer, similarity) is expected


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        # One clause of a long message changes the number or the weight; "too", "también",
        # "auch" and another clause's subject belong to other clauses.
        (
            [
                "My phone number is 617-555-0101.",
                "I lost my phone on the train and had to get a new SIM card too, my number is 617-555-0177 now, "
                "and I still need to call the bank about my card.",
            ],
            [1],
        ),
        (
            [
                "Mi número es 600 123 456.",
                "Perdí el móvil en el metro y tuve que cambiar la tarjeta también, ahora mi número es 600 987 654, "
                "y además tengo que llamar al banco por la tarjeta.",
            ],
            [1],
        ),
        (
            [
                "I weigh 80 kg.",
                "Quick update: after three months of swimming and no late snacks I'm down to 74 kg, my blood "
                "pressure improved too, and I sleep much better at night.",
            ],
            [1],
        ),
        (
            [
                "Ich wiege 90 Kilo.",
                "Nach einem Sommer mit viel Radfahren bin ich runter auf 85 Kilo, mein Blutdruck ist auch besser, "
                "und ich schlafe endlich wieder gut.",
            ],
            [1],
        ),
        # "too" saying a degree adds nothing: the taste changed.
        (
            [
                "My favorite coffee is a cappuccino.",
                "These days I only drink oat milk cortados, cappuccinos feel too heavy for me now.",
            ],
            [1],
        ),
        # A novelty word before a relative's role, in a clause after another.
        (["My boss is Maria Gomez.", "Maria retired, and my new boss is Tom Becker."], [1]),
        (["Mi jefe es Carlos.", "Mi nuevo jefe es Andrés."], [1]),
        (["Mein Chef ist Herr Braun.", "Mein neuer Chef ist Herr Yilmaz."], [1]),
        # A named relative's age.
        (["My daughter Nora is 4.", "Nora turned 5 yesterday, we had a picnic in the park!"], [1]),
        (["Mon fils Hugo a 9 ans.", "Hugo a eu 10 ans hier."], [1]),
        # The change verb after the number.
        (["毎晩ビールを2杯飲みます。", "健康のためにビールを1杯に減らしました。"], [1]),
        (["하루에 커피를 3잔 마셔요.", "건강 때문에 커피를 1잔으로 줄였어요."], [1]),
        # Two qualified values of one slot coexist.
        (["My work email is a.kim@northwind.com.", "For personal things, write to annie.kim@proton.me."], [0, 1]),
        (["Mi correo del trabajo es lkim@empresa.es.", "Mi correo personal es lucia.k@gmail.com."], [0, 1]),
        (["Meine geschäftliche Nummer ist 030 1234567.", "Privat bin ich unter 0176 9876543 erreichbar."], [0, 1]),
        # A favourite that became another.
        (["Il mio film preferito è Il Padrino.", "Il mio film preferito è diventato Interstellar."], [1]),
        (["Mi comida favorita es la paella.", "Mi comida favorita se ha convertido en el ramen."], [1]),
        # A habit stopped, told in the sentence after one about something else.
        (
            [
                "I cycle to work every day.",
                "The accident changed a lot. I can't cycle anymore, so now I take the bus to work instead.",
            ],
            [1],
        ),
        # A preamble's clause is its own subject's: the speaker's new job, a sister's move.
        (
            [
                "I work at Google.",
                "Long week: the project deadline moved again, my manager was out sick, and I started a new job "
                "at Spotify on Monday, so things are hectic.",
            ],
            [1],
        ),
        (
            [
                "I live in Leeds.",
                "Busy week: my sister moved to Bristol on Monday, I helped her carry all the boxes up three "
                "floors, and now my back hurts.",
            ],
            [0, 1],
        ),
        # Additive facts stay.
        (["I play tennis on Saturdays.", "The new gym opened downtown. I also swim on Sundays now."], [0, 1]),
        (["I have a dog.", "I got a cat too."], [0, 1]),
        (["Mi hija Lucía tiene 6 años.", "Mi hijo Pablo tiene 3 años."], [0, 1]),
    ],
)
def test_latest_only_lists_the_current_version(engine: Engine, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"c{abs(hash(tuple(adds)))}", adds) == current
