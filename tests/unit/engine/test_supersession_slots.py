"""Slots a newer fact replaces without sharing the older one's words.

A relationship's state ("split up", "tied the knot", "ci siamo lasciati"), a taste
("favourite", "obsessed with", "préfère"), a change naming only its new value ("switched to
a Pixel"), an attribute changed in other words ("went vegan now" after "eats a lot of meat"):
the words are the lexicons' rows, the rule (:mod:`memorist.engine.supersession_rule`) the
mechanism. The cosine is given where the rule reads it (an add has it from its duplicate
check); the end-to-end cases run the real engine with the hashing embedder, where the words
alone must decide.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.engine.supersession_rule import (
    ATTRIBUTE_CHANGE_SIMILARITY,
    BARE_CHANGE_SIMILARITY,
    PREFERENCE_SIMILARITY,
)
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
        ("The user is in a relationship with Mia.", "Mia and the user split up last month.", True),
        ("The user's fiancé is Omar.", "Omar and the user tied the knot in May.", True),
        # The older holds no relationship word: the person named links the two.
        ("The user has been with Sara since college.", "Sara and the user broke up.", True),
        ("The user: Ich bin mit Lena zusammen.", "The user: Lena und ich haben Schluss gemacht.", True),
        ("The user: Mi novia se llama Eva.", "The user: Eva y yo rompimos.", True),
        ("The user: Il mio ragazzo è Luca.", "The user: Luca e io ci siamo lasciati.", True),
        # The same person, no state: two facts.
        ("The user is dating Chris.", "Chris and the user went to Rome in June.", False),
        ("The user's husband is David.", "David's sister is Ruth.", False),
        # A state, but of another person than the older fact names.
        ("The user's colleague Ben lives in Leeds.", "Anna and the user broke up.", False),
        # A relationship word about the subject itself links nothing it said before.
        ("Maya wants to work in mental health.", "Maya is ready to adopt, even as a single parent.", False),
        ("Leo: Let's take a dance class!", "Leo: It's like having a partner to dance with!", False),
    ],
)
def test_a_relationship_state_replaces_the_older_one(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer) is replaces


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's favorite cuisine is Thai.", "The user is obsessed with Mexican food these days."),
        ("The user: J'adore le thé vert.", "The user: Maintenant je préfère le café."),
        ("The user: Me encanta el rock.", "The user: Ahora prefiero el jazz."),
    ],
)
def test_two_tastes_told_as_a_change_are_one_preference(older: str, newer: str) -> None:
    assert _replaces(older, newer, PREFERENCE_SIMILARITY + 0.05)
    assert not _replaces(older, newer, PREFERENCE_SIMILARITY - 0.1)  # two tastes of other things


def test_a_long_memory_is_no_slot_a_taste_replaces() -> None:
    # A memory blending several statements names a taste among other things: a cosine says
    # nothing of which one a new taste changes.
    older = (
        "It is a big deal for Nate, it has been a wild ride. Sending positive vibes and hoping "
        "someone likes the script enough to film it, that would be awesome!"
    )
    assert not _replaces(older, "Nate's new favorite snack is this creamy cheese.", 0.6)
    assert _replaces("Nate likes salty crisps.", "Nate's new favorite snack is this creamy cheese.", 0.6)


def test_two_tastes_without_a_change_stay_apart() -> None:
    assert not _replaces("The user likes tea.", "The user likes coffee.", 0.7)
    assert not _replaces("The user's favorite season is autumn.", "The user loves the beach in summer.", 0.47)
    assert not _replaces("The user loves horror movies.", "The user also enjoys documentaries now.", 0.9)


def test_a_change_naming_only_its_new_value_replaces_the_nearest_fact() -> None:
    older, newer = "The user uses an iPhone.", "The user switched to a Pixel."
    assert _replaces(older, newer, BARE_CHANGE_SIMILARITY + 0.05)
    assert not _replaces(older, newer, BARE_CHANGE_SIMILARITY - 0.1)
    # A change with words of its own needs the shared word or the higher bar.
    assert not _replaces("The user runs every morning.", "The user started a new podcast now.", 0.45)


def test_a_habit_begun_replaces_a_close_one_only() -> None:
    older, newer = "The user prefers window seats on trains.", "The user has started booking aisle seats."
    assert _replaces(older, newer, 0.65)
    assert not _replaces(older, newer, 0.45)  # far in meaning: one more habit
    assert not _replaces("The user plays the guitar.", "The user has started learning the piano too.", 0.9)
    assert _replaces("The user: Ich laufe jeden Morgen.", "The user: Ich habe mit Schwimmen angefangen.", 0.65)


def test_a_change_naming_what_it_drops_replaces_the_fact_that_named_it() -> None:
    assert _replaces("The user's Skype is jon.b.", "Reach the user on Zoom, they no longer use Skype.")
    assert not _replaces("The user's Skype is jon.b.", "The user no longer uses Slack.")
    assert _replaces("The user is flying to Tokyo on the 14th.", "The user's flight to Tokyo moved to the 16th.")


def test_an_attribute_changed_in_other_words_replaces_a_close_fact() -> None:
    older, newer = "The user eats a lot of meat.", "The user went vegan now."
    assert _replaces(older, newer, ATTRIBUTE_CHANGE_SIMILARITY + 0.05)
    assert not _replaces(older, newer, ATTRIBUTE_CHANGE_SIMILARITY - 0.1)
    assert not _replaces("The user bought a new laptop.", "The user got a new phone case.", 0.35)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield mem
    mem.close()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I've been with Sara since college.", "Sara and I broke up."),
        ("Abito a Milano.", "Mi sono trasferito a Torino."),
        ("Mi novia se llama Eva.", "Eva y yo rompimos."),
    ],
)
def test_a_state_change_supersedes_across_adds(memory: Engine, first: str, second: str) -> None:
    old = memory.add(first, user_id="ana", timestamp=MONDAY)[0]
    new = memory.add(second, user_id="ana", timestamp=FRIDAY)[0]
    assert [r.id for r in memory.list(user_id="ana", latest_only=True).records] == [new.id]
    assert memory.links([old.id])[old.id].superseded_by == new.id


def test_an_italian_fact_of_two_words_is_stored_and_an_added_one_keeps_it(memory: Engine) -> None:
    # Italian drops the pronoun: "Ho" (I have) is the speaker, not filler.
    memory.add("Ho un fratello.", user_id="gio", timestamp=MONDAY)
    memory.add("Ho anche una sorella.", user_id="gio", timestamp=FRIDAY)
    assert memory.list(user_id="gio", latest_only=True).total == 2


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        # A date a state starts from is no event: the new value replaces the old.
        ("The user: Our standup is at 9:30.", "The user: Standup starts at 10:00 from next week.", True),
        ("The user's rent is 900 euros a month.", "The user's rent is 950 euros a month starting in May.", True),
        ("The user: Das Training ist um 18:00.", "The user: Ab März ist das Training um 19:00.", True),
        # The extractor's resolution in parentheses repeats a date; it places nothing new.
        (
            "The user: Our standup is at 9:30.",
            "The user: Standup starts at 10:00 from next week (the week of 12 January 2026).",
            True,
        ),
        # Placed in time: two events, however alike.
        ("The user ran 5 km on Saturday.", "The user ran 8 km on Sunday.", False),
        ("The user ran 5 km last week (the week of 5 January 2026).", "The user ran 8 km this week.", False),
    ],
)
def test_a_date_that_opens_a_state_is_no_event(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer, 0.8) is replaces
