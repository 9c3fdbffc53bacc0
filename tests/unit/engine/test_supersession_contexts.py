"""The eighth round's mechanisms, each in several languages.

- a value told in a context (work, office: ``slot_qualifiers`` ``context``) beside one told
  without a qualifier is a second value, both current; a device or kind ("cell", "mobile",
  ``kind``) is the unqualified value's slot, and a stated change of state still replaces;
- a change phrase of a verb and its particle matches with a pronoun object between them
  ("pushed it to Friday", "pushed it back");
- a Japanese stop verb is read by its stem after the object ("コーヒーをやめて", "をやめた");
- a fragment that opens with a joiner of addition and holds an additive word ("and some
  Portuguese too", "y también portugués") is stored, and adds to the older fact.

Pairs are read with the rule alone (:func:`tests.supersession_pairs.replaces`); the door
(``Engine.list`` with ``latest_only``) runs the real engine with the default embedder.
"""

from __future__ import annotations

import pytest
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds, replaces


@pytest.mark.parametrize(
    ("older", "newer", "expected"),
    [
        # A context's value beside an unqualified one: both current, either order.
        ("The user's phone number is 617-555-0142.", "The user's office line is 617-555-0199.", False),
        ("The user's office number is 020 7946 0001.", "The user's number is 07700 900123.", False),
        ("The user's email is ana.lopez@gmail.com.", "The user's work email is ana.lopez@acme.com.", False),
        ("The user: Mi número es 600 123 456.", "The user: Mi teléfono del trabajo es 910 555 123.", False),
        (
            "The user: Meine Nummer ist 0176 1234567.",
            "The user: Dienstlich bin ich unter 030 9876543 erreichbar.",
            False,
        ),
        ("The user: Mon numéro est le 06 12 34 56 78.", "The user: Ma ligne du bureau est le 01 44 55 66 77.", False),
        ("The user: Il mio numero è 333 1234567.", "The user: Il numero dell'ufficio è 02 5551234.", False),
        ("The user: Мой номер 8 916 123 45 67.", "The user: Мой рабочий номер 8 495 765 43 21.", False),
        ("The user: 我的电话号码是13812345678。", "The user: 我的公司电话是01087654321。", False),
        # A device or kind is the unqualified value's slot; a change of state still replaces.
        ("The user's phone number is 555-123-4567.", "The user's cell is 555-987-6543.", True),
        ("The user: Mi número es 600 123 456.", "The user: Mi móvil es 677 889 900.", True),
        (
            "The user's phone number is 617-555-0142.",
            "The user switched to the office line, 617-555-0199, instead.",
            True,
        ),
        # A pronoun object between a verb and its particle.
        (
            "The user: vet appointment for the cat on tuesday 9am",
            "The user: vet called, pushed it to wednesday 4pm",
            True,
        ),
        ("The user's book club meets on Monday.", "The user: the book club host pushed it back to Sunday.", True),
        ("The user plays chess on Saturdays.", "The user: chess was taking too long, the user gave it up.", True),
        # A Japanese stop verb in any conjugation, on the older fact's object.
        ("The user: 紅茶が好きです。", "The user: 最近は紅茶をやめて、緑茶ばかり飲んでいます。", True),
        ("The user: 毎晩タバコを吸います。", "The user: 先月タバコをやめた。", True),
        ("The user: コーヒーが好きです。", "The user: タバコをやめて、ジムに通い始めました。", False),
    ],
)
def test_the_rule_reads_the_rounds_kinds(older: str, newer: str, expected: bool) -> None:
    assert replaces(older, newer) is expected


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        # A fragment that adds to the fact before is stored, and keeps it current.
        (["I play the piano.", "And the guitar too."], [0, 1]),
        (["Hablo inglés.", "Y también francés."], [0, 1]),
        (["Ich spreche Englisch.", "Und Französisch auch."], [0, 1]),
        (["Je joue au tennis.", "Et au golf aussi."], [0, 1]),
        # A work line beside the number: both current; a new cell number replaces it.
        (["My phone number is 415-555-0123.", "My work line is 415-555-0188, for office hours."], [0, 1]),
        (["My phone number is 415-555-0123.", "New cell number: 415-555-0177."], [1]),
        # A rescheduling with a pronoun object; a habit stopped in Japanese.
        (["Haircut on Thursday at 5pm.", "The salon called and pushed it to Saturday at 11am."], [1]),
        (["紅茶が好きです。", "最近は紅茶をやめて、コーヒーばかり飲んでいます。"], [1]),
    ],
)
def test_latest_only_lists_the_current_version(engine: Engine, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"x{abs(hash(tuple(adds)))}", adds) == current
