"""The twenty-second round's mechanisms (each positive case failed on the code before):

- what the assistant says it notes, and names no one in, is its listener's fact: "Tomo nota
  de que ahora trabajas en Telefónica" tells the user's job, though the language says "you" by
  the verb's ending alone;
"""

from __future__ import annotations

import pytest
from memorist.engine.supersession_reading import read_reported
from memorist.engine.supersession_rule import supersedes

from tests.supersession_pairs import record


def _told(older: str, newer: str) -> bool:
    def by(text: str) -> str:
        return "assistant" if text.startswith("The assistant") else "user"

    return supersedes(record(newer, 6, by(newer)), record(older, 2, by(older)))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: Trabajo en Indra como analista.", "The assistant: Tomo nota de que ahora trabajas en Telefónica."),
        ("The user: Lavoro alla Fiat come ingegnere.", "The assistant: Prendo nota che ora lavori da Fincantieri."),
        ("The user: Pracuję w PKO jako kasjerka.", "The assistant: Zanotowałem, że teraz pracujesz w Orlenie."),
        ("The user: Работаю в Сбербанке.", "The assistant: Запомню, что теперь работаешь в Яндексе."),
    ],
)
def test_what_the_assistant_notes_of_no_one_is_the_users_fact(older: str, newer: str) -> None:
    assert _told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # The note names the sister: her move, not the user's.
        ("The user: Mieszkam w Gdańsku.", "The assistant: Zanotowałem, że twoja siostra mieszka teraz w Poznaniu."),
        # A note of another thing than the older fact's.
        ("The user: Trabajo en Indra como analista.", "The assistant: Tomo nota de que ahora tienes un gato."),
    ],
)
def test_a_note_of_another_person_or_thing_replaces_nothing(older: str, newer: str) -> None:
    assert not _told(older, newer)


@pytest.mark.parametrize(
    ("text", "subjects"),
    [
        ("The assistant: Σημείωσα ότι τώρα οδηγείς Toyota Yaris hybrid.", {"user"}),
        # No reporting frame: the assistant's own words stay its own.
        ("The assistant: Τώρα οδηγώ Toyota.", {"assistant"}),
    ],
)
def test_a_noted_fact_reads_as_the_listeners(text: str, subjects: set[str]) -> None:
    assert read_reported(text)[1].subjects == subjects
