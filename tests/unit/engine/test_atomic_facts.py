"""One memory per fact: the heuristic splits a message that states several facts, and the
source message stays in each memory's history (plugins/memorist_heuristic/atomic.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist_heuristic.atomic import clauses, fact_groups

from tests.conftest import fast_settings
from tests.plugins import hashing


@pytest.mark.parametrize(
    ("sentences", "groups"),
    [
        (["I like tea.", "My phone number is 555-1234."], [["I like tea."], ["My phone number is 555-1234."]]),
        # A sentence that leans on the one before stays with it.
        (["I adopted a cat.", "She is three."], [["I adopted a cat.", "She is three."]]),
        (["We adopted a cat named Miso; she is three."], [["We adopted a cat named Miso; she is three."]]),
        # Facts no later message replaces stay one memory, as a conversation's context.
        (["It was great.", "I went home."], [["It was great.", "I went home."]]),
        (
            ["I live in Lisbon.", "It has great food.", "I like tea."],
            [["I live in Lisbon.", "It has great food."], ["I like tea."]],
        ),
    ],
)
def test_sentences_group_by_fact(sentences: list[str], groups: list[list[str]]) -> None:
    assert fact_groups(sentences) == groups


@pytest.mark.parametrize(
    ("sentence", "parts"),
    [
        (
            "I moved to Porto last year and I work at Spotify as a designer.",
            ["I moved to Porto last year.", "I work at Spotify as a designer."],
        ),
        # A compound subject is one fact; so is a clause too short to stand alone.
        ("My husband and I celebrated our anniversary.", ["My husband and I celebrated our anniversary."]),
        ("I'm a nurse and I love it.", ["I'm a nurse and I love it."]),
        # Only a clause about the speaker is split off.
        ("I went to the park with Anna and she loved it.", ["I went to the park with Anna and she loved it."]),
        ("I play tennis on Sundays and I read a lot.", ["I play tennis on Sundays and I read a lot."]),
    ],
)
def test_clauses_about_the_speaker_are_split(sentence: str, parts: list[str]) -> None:
    assert clauses(sentence) == parts


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield mem
    mem.close()


def test_two_facts_of_one_message_are_two_memories_with_their_source(memory: Engine) -> None:
    message = "I like tea. My phone number is 555-1234."
    stored = memory.add(message, user_id="ana", timestamp="2026-03-02")
    assert sorted(r.text for r in stored) == ["The user likes tea.", "The user's phone number is 555-1234."]
    for record in stored:
        assert memory.history(record.id)[0]["input"] == message
    # A later change supersedes the fact it changes, not the tea.
    memory.add("I changed my number, it's 555-9876 now.", user_id="ana", timestamp="2026-03-06")
    current = sorted(r.text for r in memory.list(user_id="ana", latest_only=True).records)
    assert current == ["The user changed their number, it's 555-9876 now.", "The user likes tea."]


def test_the_option_keeps_one_memory_per_message(tmp_path: Path) -> None:
    settings = fast_settings(
        tmp_path, language_model={"provider": "heuristic", "options": {"one_fact_per_memory": False}}
    )
    mem = Engine.from_config(settings, plugins=load_plugins({}, extra=[hashing]))
    try:
        assert len(mem.add("I like tea. My phone number is 555-1234.", user_id="ana")) == 1
    finally:
        mem.close()


def test_the_language_model_prompt_asks_for_one_memory_per_fact() -> None:
    from datetime import UTC, datetime

    from memorist.records import ExtractionRequest, Message
    from memorist_openai.prompts import DEFAULT_CATEGORIES, extraction_messages

    request = ExtractionRequest(
        messages=[Message(role="user", content="I like tea. My phone number is 555-1234.")],
        observed_at=datetime(2026, 3, 2, tzinfo=UTC),
    )
    system = extraction_messages(request, DEFAULT_CATEGORIES)[0].content
    assert "One memory per fact" in system and "naming its subject" in system


@pytest.mark.parametrize(
    ("sentences", "groups"),
    [
        # The speaker's pronoun or possessive opens a fact of its own, in any lexicon's language.
        (["Ich wohne in Köln.", "Ich habe einen Hund."], [["Ich wohne in Köln."], ["Ich habe einen Hund."]]),
        (["Ik woon in Utrecht.", "Ik heb een fiets."], [["Ik woon in Utrecht."], ["Ik heb een fiets."]]),
        (["Jag bor i Malmö.", "Jag har en katt."], [["Jag bor i Malmö."], ["Jag har en katt."]]),
        (["Tôi sống ở Hà Nội.", "Tôi có một con chó."], [["Tôi sống ở Hà Nội."], ["Tôi có một con chó."]]),
        (["Saya tinggal di Jakarta.", "Saya punya kucing."], [["Saya tinggal di Jakarta."], ["Saya punya kucing."]]),
        (["אני גר בתל אביב.", "יש לי כלב."], [["אני גר בתל אביב."], ["יש לי כלב."]]),
        # A run of a script without spaces opens with the speaker ("我", "私は").
        (["我住在北京。", "我有一只狗。"], [["我住在北京。"], ["我有一只狗。"]]),
        # Where the pronoun is dropped, the language's first-person verb forms open the fact.
        (["Mieszkam w Krakowie.", "Mam psa."], [["Mieszkam w Krakowie."], ["Mam psa."]]),
        (["Bydlím v Brně.", "Mám psa."], [["Bydlím v Brně."], ["Mám psa."]]),
        (["Μένω στην Αθήνα.", "Έχω ένα σκύλο."], [["Μένω στην Αθήνα."], ["Έχω ένα σκύλο."]]),
        (["Живу в Києві.", "Маю кота."], [["Живу в Києві."], ["Маю кота."]]),
        # ... and a first-person word past a function word ("у меня": I have).
        (["Я живу в Москве.", "У меня есть собака."], [["Я живу в Москве."], ["У меня есть собака."]]),
        # A sentence about something else leans on the fact before it.
        (["Ich wohne in Köln.", "Es hat einen schönen Dom."], [["Ich wohne in Köln.", "Es hat einen schönen Dom."]]),
        # A narrative stays one memory.
        (
            [
                "Gestern waren wir mit meiner Schwester und ihren Kindern im Kino, und danach sind wir "
                "noch lange durch die Altstadt spaziert, weil das Wetter so schön war.",
                "Ich wohne in Köln.",
            ],
            [
                [
                    "Gestern waren wir mit meiner Schwester und ihren Kindern im Kino, und danach sind wir "
                    "noch lange durch die Altstadt spaziert, weil das Wetter so schön war.",
                    "Ich wohne in Köln.",
                ]
            ],
        ),
    ],
)
def test_facts_group_in_every_language(sentences: list[str], groups: list[list[str]]) -> None:
    assert fact_groups(sentences) == groups


@pytest.mark.parametrize(
    ("sentence", "parts"),
    [
        # An elided opener ("j'") counts as a word: the left clause is long enough to stand alone.
        (
            "J'habite à Lyon et je travaille chez Renault.",
            ["J'habite à Lyon.", "Je travaille chez Renault."],
        ),
        # A compound subject is not cut.
        ("Mi marido y yo vivimos en Sevilla.", ["Mi marido y yo vivimos en Sevilla."]),
        ("Mon mari et moi habitons à Nantes.", ["Mon mari et moi habitons à Nantes."]),
    ],
)
def test_clauses_are_cut_in_other_languages(sentence: str, parts: list[str]) -> None:
    assert clauses(sentence) == parts


@pytest.mark.parametrize(
    ("message", "change", "kept"),
    [
        (
            "Ich wohne in Köln. Ich habe einen Hund.",
            "Wir sind nach Düsseldorf gezogen.",
            "The user: Ich habe einen Hund.",
        ),
        (
            "Mieszkam w Krakowie. Mam psa.",
            "Przeprowadziłem się do Gdańska.",
            "The user: Mam psa.",
        ),
    ],
)
def test_a_move_replaces_the_home_and_keeps_the_dog(memory: Engine, message: str, change: str, kept: str) -> None:
    stored = memory.add(message, user_id="ana", timestamp="2026-03-02")
    assert len(stored) == 2
    for record in stored:  # each keeps the message it came from, in the "The user: ..." frame
        assert record.text.startswith("The user: ")
        assert memory.history(record.id)[0]["input"] == message
    memory.add(change, user_id="ana", timestamp="2026-03-06")
    current = sorted(r.text for r in memory.list(user_id="ana", latest_only=True).records)
    assert current == sorted([f"The user: {change}", kept])
