"""Facts over time in other words and other languages: which newer fact replaces an older one.

The rule (:mod:`memorist.engine.supersession_rule`) reads every lexicon's supersession lists,
the two facts' cosine (which an add already holds from its duplicate check), the quantities
a fact holds, and who each clause is about. The end-to-end cases run the real engine
(LanceDB + SQLite in a temporary directory, the heuristic extractor, the hashing embedder):
the attribute words alone decide there, as they must for an embedder of any quality.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.engine.supersession_rule import CHANGE_SIMILARITY, QUANTITY_SIMILARITY, read
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine

from tests.conftest import fast_settings
from tests.plugins import hashing
from tests.supersession_pairs import replaces as _replaces

MONDAY = "2026-03-02T09:00:00Z"
FRIDAY = "2026-03-06T18:00:00Z"


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        # The heuristic keeps a statement it cannot shift in the speaker's words, after a label.
        ("The user: Vivo en Granada.", "The user: Ahora vivo en Cádiz.", True),
        ("The user: Trabajo en una farmacia.", "The user: Me contrataron en un hospital.", True),
        ("The user: Mi novia se llama Inés.", "The user: Estoy soltero desde marzo.", True),
        ("The user: Tengo un perro.", "The user: También tengo un gato.", False),
        ("The user: Mi hermana vive en Roma.", "The user: Vivo en Madrid.", False),
        # French: elided subjects ("j'habite") and "my <relative>" after the label.
        ("The user: J'habite à Rennes.", "The user: J'ai déménagé à Brest.", True),
        ("The user: J'ai 41 ans.", "The user: J'ai eu 42 ans.", True),
        ("The user: Ma sœur habite à Paris.", "The user: J'habite à Lille.", False),
        ("The user: J'aime le thé.", "The user: J'aime aussi le café.", False),
        # German.
        ("The user: Ich wohne in Hamburg.", "The user: Ich bin nach Köln umgezogen.", True),
        ("The user: Ich arbeite bei Siemens.", "The user: Ich arbeite jetzt bei Bosch.", True),
        ("The user: Ich spiele Tennis.", "The user: Ich spiele auch Schach.", False),
    ],
)
def test_the_rule_reads_each_languages_lists(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer) is replaces


def test_another_languages_short_words_do_not_frame_an_english_fact() -> None:
    # Spanish "son" is a copula, French "chat" a pet: an English fact reads neither as one.
    assert not _replaces("The user's son plays soccer.", "The user's son plays tennis.")
    assert read("The user's chat with Tom was about moving.").subjects == {"user"}


def test_function_words_of_the_statements_language_are_no_topic() -> None:
    # "en", "la", "je" are in nearly every Spanish or French fact: sharing one is no shared topic.
    assert not {"en", "un"} & read("The user: Vivo en un pueblo.").topic
    assert not {"je", "la"} & read("The user: Je travaille à la poste.").topic
    assert "pueblo" in read("The user: Vivo en un pueblo.").topic


def test_a_stated_change_close_in_meaning_supersedes_without_a_shared_word() -> None:
    older, newer = "The user is flying out on the 14th.", "The user's flight moved to the 16th."
    assert not read(newer).topic & read(older).topic  # "flight" / "flying": no word in common
    assert _replaces(older, newer, CHANGE_SIMILARITY + 0.2)
    assert not _replaces(older, newer, CHANGE_SIMILARITY - 0.2)
    assert not _replaces(older, newer)  # without the cosine, words alone decide
    # Close in meaning, but nothing says it changed: two facts.
    assert not _replaces("The user runs every morning.", "The user does yoga every morning.", 0.9)


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        ("The user sleeps about 7 hours a night.", "The user sleeps 6 hours a night.", True),
        ("The user pays 45 dollars a month for their gym.", "The user's gym costs 55 dollars a month.", True),
        ("The user: Our standup starts at 9:30.", "The user: Standup begins at 10:15.", True),
        ("The user: Mi alquiler es de 700 euros.", "The user: Pago 760 euros de alquiler.", True),
        # Events placed in time are two facts, however alike.
        ("The user ran 5 km on Saturday.", "The user ran 8 km on Sunday.", False),
        ("The user read 30 pages yesterday.", "The user read 50 pages today.", False),
        # Another unit, or the same value: nothing changed.
        ("The user weighs 80 kg.", "The user walks 8 km a day.", False),
        ("The user sleeps 7 hours a night.", "The user sleeps 7 hours a night, usually.", False),
    ],
)
def test_a_quantity_of_one_unit_with_another_value(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer, QUANTITY_SIMILARITY + 0.1) is replaces
    if replaces:  # the quantity decides: less close in meaning, two facts
        assert not _replaces(older, newer, QUANTITY_SIMILARITY - 0.1)


def test_a_later_clause_about_the_speaker_makes_the_fact_theirs() -> None:
    older = "The user's husband is David."
    assert _replaces(older, "David passed away in January; the user is a widow.")
    assert not _replaces(older, "David's sister is Ruth.")
    # A later clause's first word is no subject: "it" is nobody's.
    assert read("The user changed their number, it's 555-9876 now.").subjects == {"user"}


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield mem
    mem.close()


def _latest(memory: Engine, user: str) -> list[str]:
    return sorted(r.text for r in memory.list(user_id=user, latest_only=True).records)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Vivo en Granada.", "Ahora vivo en Cádiz."),
        ("J'habite à Rennes.", "J'ai déménagé à Brest."),
        ("Ich arbeite bei Siemens.", "Ich arbeite jetzt bei Bosch."),
    ],
)
def test_a_change_told_in_another_language_supersedes_across_adds(memory: Engine, first: str, second: str) -> None:
    old = memory.add(first, user_id="ana", timestamp=MONDAY)[0]
    new = memory.add(second, user_id="ana", timestamp=FRIDAY)[0]
    assert memory.list(user_id="ana").total == 2  # ADD-only: both kept
    assert [r.id for r in memory.list(user_id="ana", latest_only=True).records] == [new.id]
    assert memory.links([old.id])[old.id].superseded_by == new.id


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Tengo un perro.", "También tengo un gato."),
        ("Ma sœur habite à Paris.", "J'habite à Lille."),
        ("Ich spiele Tennis.", "Ich spiele auch Schach."),
    ],
)
def test_an_additive_fact_in_another_language_supersedes_nothing(memory: Engine, first: str, second: str) -> None:
    memory.add(first, user_id="ana", timestamp=MONDAY)
    memory.add(second, user_id="ana", timestamp=FRIDAY)
    assert memory.list(user_id="ana", latest_only=True).total == 2
