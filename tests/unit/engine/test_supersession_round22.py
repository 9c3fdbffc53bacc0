"""The twenty-second round's mechanisms (each positive case failed on the code before):

- what the assistant says it notes, and names no one in, is its listener's fact: "Tomo nota
  de que ahora trabajas en Telefónica" tells the user's job, though the language says "you" by
  the verb's ending alone; a bookkeeping opener counts where any sentence of the turn opens
  ("Поздравляю! Записал: ..."); what the assistant says of "the user's" attribute past its own
  subject is the user's fact ("The assistant will use £44,500 as the user's salary");
- a capitalized word opening a statement is read as a name ("Eli turned 8") only until the
  other fact holds it in lowercase: "Οδηγώ ένα Fiat Panda" opens with a verb, and "τώρα
  οδηγείς Toyota" shows it;
- Japanese, Chinese and Thai list their partner words; a run opening with one names the
  partner as owner or subject ("夫の給料は", "夫が大阪に");
- a relative typed without "my" is the subject when an attribute or change word follows within
  a few words, past the verb ("mom got a new phone, 617-555-0172 now");
- a recap the assistant opens with "so" ("Dus jullie wonen nu in Amersfoort", "Quindi adesso
  pesi 78 kg") wraps the one fact that follows, as a bookkeeping opener does; a recap of two
  things ("So it's Spanish on Duolingo and now Japanese") tells the older beside the newer;
- a later clause a third person opens is that person's: "She wants the user as maid of
  honour" names the user as an object, and tells nothing of the user's own state;
- a state told with the date it ended or ends ("until 2019", "fino al 2019", "2019年まで") is a
  stint: the value held since stays current.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read
from memorist.engine.supersession_reports import opening_as_word, read_reported

from tests.supersession_pairs import current_adds, replaces_as_told


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
    assert replaces_as_told(older, newer)


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
    assert not replaces_as_told(older, newer)


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


def test_a_clause_a_third_person_opens_is_not_the_speakers() -> None:
    engaged = "Hannah and Tom got engaged last weekend! She wants the user as maid of honour."
    assert read(engaged).subjects == {"hannah"}
    assert not replaces_as_told("The user is single at the moment.", engaged)
    # "he and the user": the speaker joined to the third person is a subject still.
    assert "user" in read("Tom got a new job; he and the user moved to Bristol.").subjects


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: We live in Cardiff.", "The user: Drove past our old house in Swansea, where we lived until 2019."),
        ("The user: Vivo a Torino.", "The user: Ho vissuto a Roma fino al 2019, che bei tempi."),
        ("The user: 今は福岡に住んでいます。", "The user: 2019年まで大阪に住んでいました。"),
        ("The user: Ankara'da yaşıyorum.", "The user: 2019'a kadar İzmir'de yaşadım."),
        ("The user: Живу в Москве.", "The user: Жил в Казани до 2019 года."),
        ("The user lives in Leeds.", "The user is staying at Tom's in York until Friday."),
    ],
)
def test_a_state_told_with_its_end_leaves_the_current_one(older: str, newer: str) -> None:
    assert read(newer).past_stint
    assert not replaces_as_told(older, newer)


def test_a_state_that_ended_beside_a_new_one_still_changes() -> None:
    assert replaces_as_told("The user lives in Lisbon.", "The user lived in Lisbon until 2019 and now lives in Porto.")
    # A time of day is no end of a state.
    assert not read("The user works until 5 pm on Fridays.").past_stint


@pytest.mark.parametrize(
    ("text", "wrapped"),
    [
        ("The assistant: Поздравляю! Записал: вы теперь в Яндексе.", "The assistant: вы теперь в Яндексе."),
        ("The assistant: Congratulations! Noted: you're now at Spotify.", "The assistant: you're now at Spotify."),
        # Not at a sentence's opening: a word of the fact.
        ("The assistant: The change was noted by HR.", "The assistant: The change was noted by HR."),
    ],
)
def test_a_bookkeeping_opener_counts_where_a_sentence_opens(text: str, wrapped: str) -> None:
    assert read_reported(text)[0] == wrapped


def test_what_the_assistant_says_of_the_users_attribute_is_the_users_fact() -> None:
    assert replaces_as_told(
        "The user's salary is £38k before tax.", "The assistant will use £44,500 as the user's salary."
    )
    assert read_reported("The assistant will use £44,500 as the user's salary.")[1].subjects == {"user"}
    # The assistant's own thing stays its own.
    assert read_reported("The assistant will use a new budget template.")[1].subjects == {"assistant"}


def test_an_opening_word_the_other_fact_holds_in_lowercase_is_no_name() -> None:
    older, newer = (
        "The user: Οδηγώ ένα Fiat Panda του 2012.",
        "The assistant: Σημείωσα ότι τώρα οδηγείς Toyota Yaris hybrid.",
    )
    assert "οδηγώ" in read(older).subjects
    assert replaces_as_told(older, newer)
    word = opening_as_word(read("The user: Pracuję w banku."), read("The user: Teraz pracuję w szkole."))
    assert "pracuję" not in word.subjects and word.topic & read("The user: Teraz pracuję w szkole.").topic


def test_an_opening_name_stays_a_name() -> None:
    eli = opening_as_word(read("The user: Eli turned 8 today."), read("The user: Eli loves trains."))
    assert "eli" in eli.subjects
    assert not replaces_as_told("The user: Eli loves trains.", "The user: Eli turned 8 today.")


@pytest.mark.parametrize(
    ("fact", "subjects", "owners"),
    [
        ("The user: 夫の給料は手取り30万くらい。", {"user"}, {"夫"}),
        ("The user: 夫が大阪に転勤になりました。", {"夫"}, set()),
    ],
)
def test_a_partner_word_opening_a_run_names_the_partner(fact: str, subjects: set[str], owners: set[str]) -> None:
    reading = read(fact)
    assert (reading.subjects, reading.owners) == (subjects, owners)


@pytest.mark.parametrize(
    ("fact", "subjects"),
    [
        ("The user: mom got a new phone, 617-555-0172 now", {"mother"}),
        # A possessive is an owner; a couple is the speaker's too.
        ("The user: mom's cell 617-555-0143", {"user"}),
        ("The user: sister and I moved to Leeds", {"user"}),
    ],
)
def test_a_relative_typed_without_my_is_the_subject(fact: str, subjects: set[str]) -> None:
    assert read(fact).subjects == subjects


def test_a_relatives_new_number_replaces_the_relatives_through_the_engine(engine: Any) -> None:
    adds = ["mom's cell 617-555-0143", "my cell is 617-555-0199", "mom got a new phone, 617-555-0172 now"]
    assert current_adds(engine, "r22-mom", adds, every_add_stored=True) == [1, 2]


@pytest.mark.parametrize(
    ("text", "wrapped"),
    [
        ("The assistant: Oh leuk! Dus jullie wonen nu in Amersfoort.", "The assistant: jullie wonen nu in Amersfoort."),
        ("The assistant: Grande! Quindi adesso pesi 78 kg.", "The assistant: adesso pesi 78 kg."),
        # Two things: the older beside the newer.
        (
            "The assistant: So it's Spanish on Duolingo every day and now Japanese on Wednesdays.",
            "The assistant: So it's Spanish on Duolingo every day and now Japanese on Wednesdays.",
        ),
    ],
)
def test_a_recap_of_one_fact_wraps_it(text: str, wrapped: str) -> None:
    assert read_reported(text)[0] == wrapped


def test_a_recap_restating_a_change_replaces_the_older() -> None:
    assert replaces_as_told("The user: Woon in Utrecht.", "The assistant: Oh leuk! Dus jullie wonen nu in Amersfoort.")
    assert not replaces_as_told(
        "The user is learning Spanish on Duolingo.",
        "The assistant: So it's Spanish on Duolingo every day and now Japanese on Wednesdays.",
    )
