"""The twelfth round's mechanisms, each at the stage that missed holdout13's cases, each in
several languages, each positive case failing on the eleventh round's code.

- a capitalized word opening a sentence that the rest of the sentence's language lists as a
  common word ("Då", "Dann", "Entonces") is no name, so the assistant's "Då har ni 3 katter
  nu." is about its listener; a name there stays one ("The user: Mia turned 5"); the
  listener's plural ("ni", "ihr", "ustedes", "voi", "jullie") names the user's household;
- a change told in the passive or with the changed thing as its subject ("offsite got moved
  to denver", "festen flyttas till söndag", "Die Feier wurde … verschoben") makes that thing
  the one changed, as a change frame's object does; in a compounding language a compound's
  head and a word without its definite ending name the same thing.
"""

from __future__ import annotations

import pytest
from memorist.engine.supersession_reading import read
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds, replaces


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: Vi har 2 katter.", "The assistant: Då har ni 3 katter nu."),
        ("The user: Wir haben zwei Katzen.", "The assistant: Dann habt ihr jetzt drei Katzen."),
        ("The user: Tenemos dos perros.", "The assistant: Entonces ustedes tienen tres perros ahora."),
        ("The user: Abbiamo due gatti.", "The assistant: Quindi voi avete tre gatti adesso."),
        ("The user: Wij hebben twee katten.", "The assistant: Dus jullie hebben nu drie katten."),
    ],
)
def test_an_assistant_sentence_opening_with_an_adverb_is_about_the_listeners_household(older: str, newer: str) -> None:
    assert replaces(older, newer)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The user: Mia turned 5 today.", "mia"),
        ("The user: Eli turned 8 today.", "eli"),
        ("The user: Jonas wohnt jetzt in Köln.", "jonas"),
        ("The user: Anna vive ora a Roma.", "anna"),
    ],
)
def test_a_name_opening_the_statement_stays_a_name_and_a_subject(text: str, name: str) -> None:
    reading = read(text)
    assert name in reading.names
    assert name in reading.subjects


@pytest.mark.parametrize(
    "text",
    [
        "The assistant: Då har ni 3 katter nu.",
        "The assistant: Dann habt ihr jetzt drei Katzen.",
        "The user: Jetzt wohne ich in Köln.",
        "The user: I moved. Now I live in Porto.",
    ],
)
def test_a_common_word_opening_a_sentence_is_no_name(text: str) -> None:
    opening = {"då", "dann", "jetzt", "now"}
    assert not read(text).names & opening


def test_another_households_count_is_not_the_listeners() -> None:
    # The listener's plural makes the household the subject; the neighbours' cats are theirs.
    assert not replaces("The user: Vi har 2 katter.", "The assistant: Då har grannarna 3 katter.")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's team offsite is in austin in may", "The user: offsite got moved to denver, still in may"),
        ("The user: min födelsedagsfest är på lördag kl 19", "The user: ändring: festen flyttas till söndag kl 17"),
        (
            "The user: Meine Geburtstagsfeier ist am Samstag um 19 Uhr.",
            "The user: Die Feier wurde auf Sonntag verschoben.",
        ),
        ("The user: La cena con mis padres es el sábado.", "The user: La cena fue movida al domingo."),
        ("The user: Ons tuinfeest is op zaterdag.", "The user: Het feest is verplaatst naar zondag."),
    ],
)
def test_a_passive_change_replaces_the_fact_about_its_subject(older: str, newer: str) -> None:
    assert replaces(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: I have a cat.", "The user: The meeting got moved to Friday."),
        ("The user: Min födelsedagsfest är på lördag.", "The user: Mötet flyttas till måndag."),
        ("The user: Meine Geburtstagsfeier ist am Samstag.", "The user: Das Meeting wurde auf Montag verschoben."),
        # "Tag" is too short a head: a Samstag is no Geburtstag.
        ("The user: Mein Geburtstag ist im Mai.", "The user: Der Tag wurde verschoben."),
    ],
)
def test_a_passive_change_of_another_thing_replaces_nothing(older: str, newer: str) -> None:
    assert not replaces(older, newer)


def test_a_passive_change_replaces_the_plan_across_adds(engine: Engine) -> None:
    shown = current_adds(
        engine, "stages-offsite", ["my team offsite is in austin in may", "offsite got moved to denver, still in may"]
    )
    assert shown == [1]


def test_the_assistants_count_for_the_household_replaces_the_users_across_adds(engine: Engine) -> None:
    shown = current_adds(
        engine,
        "stages-cats",
        [
            "Vi har 2 katter.",
            [
                {"role": "user", "content": "vi tog hand om en hittekatt till"},
                {"role": "assistant", "content": "Vad fint! Då har ni 3 katter nu."},
            ],
        ],
    )
    assert 0 not in shown


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "The user speaks French fluently.",
            "Nice, so alongside the user's French the user is now studying Japanese. "
            "The assistant will suggest some beginner resources.",
        ),
        ("The user: Parlo francese.", "The user: Oltre al francese, ora studio il giapponese."),
        ("The user: Falo francês.", "The user: Além do francês, agora estou estudando japonês."),
        ("The user: Я говорю по-французски.", "The user: Помимо французского, теперь учу японский."),
        ("The user: Jag talar franska.", "The user: Förutom franska pluggar jag nu japanska."),
    ],
)
def test_a_value_named_as_kept_beside_a_new_one_stays_current(older: str, newer: str) -> None:
    assert not replaces(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: Parlo francese.", "The user: Ora parlo solo giapponese, niente più francese."),
        ("The user: Jag bor i Lund.", "The user: Nu bor jag i Malmö."),
    ],
)
def test_a_change_without_a_keeping_word_still_replaces(older: str, newer: str) -> None:
    assert replaces(older, newer)
