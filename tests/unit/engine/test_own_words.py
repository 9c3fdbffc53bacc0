"""A memory's vector made from the user's own words (issue 35, retrieval for agents' turns).

The heuristic extractor writes "The user is vegetarian." and offers the words the user said
("I'm vegetarian.", ``ExtractedFact.words``); the add pipeline embeds those, and queries about
"the user" are searched in the first person beside their own form. Text, keywords and history
keep the third-person statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from memorist import Engine as Memory
from memorist.language.voice import first_person_alias, query_forms
from memorist.plugin.contracts import ProviderContext
from memorist.plugin.manager import load_plugins
from memorist.records import ExtractionRequest, Message
from memorist_heuristic.extractor import HeuristicExtractor

from tests.conftest import fast_settings
from tests.plugins import hashing

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def facts(*messages: Message, own_words: bool = True) -> list[tuple[str, str | None]]:
    extractor = HeuristicExtractor(HeuristicExtractor.Options(own_words=own_words), ProviderContext(Path(".")))
    found = extractor.extract(ExtractionRequest(messages=list(messages), observed_at=MONDAY))
    return [(f.text, f.words) for f in found]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("I'm vegetarian.", [("The user is vegetarian.", "I'm vegetarian.")]),
        (
            "I don't eat meat, and my budget is $3000.",
            [
                ("The user doesn't eat meat.", "I don't eat meat."),
                ("The user's budget is $3000.", "My budget is $3000."),
            ],
        ),
        (
            "I moved to Lisbon yesterday.",
            [("The user moved to Lisbon yesterday (7 May 2023).", "I moved to Lisbon yesterday (7 May 2023).")],
        ),
    ],
)
def test_an_unnamed_users_fact_carries_their_own_words(said: str, expected: list[tuple[str, str]]) -> None:
    assert facts(Message(role="user", content=said)) == expected


@pytest.mark.parametrize(
    "said",
    [
        "Ich bin Vegetarierin und wohne in Berlin.",
        "Sou vegetariana e moro em Lisboa.",
        "Je suis allergique aux arachides.",
    ],
)
def test_a_language_the_person_shift_does_not_cover_keeps_its_framed_text(said: str) -> None:
    # Its text is already the user's words behind a frame; with the English embedder that frame
    # is what finds it for a question about "the user" (see rewrite.own_words).
    assert facts(Message(role="user", content=said)) == [(f"The user: {said}", None)]


def test_named_speakers_replies_and_the_assistant_keep_their_text() -> None:
    assert facts(Message(role="user", content="I'm vegetarian.", name="Caroline")) == [
        ("Caroline is vegetarian.", None)
    ]
    replied = facts(Message(role="assistant", content="How old are you?"), Message(role="user", content="27"))
    assert replied == [('The assistant asked "How old are you?" The user replied: 27', None)]
    told = facts(Message(role="assistant", content="I recommend Dune by Frank Herbert."))
    assert told == [("The assistant recommends Dune by Frank Herbert.", None)]
    assert facts(Message(role="user", content="I'm vegetarian."), own_words=False) == [
        ("The user is vegetarian.", None)
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What can't the user eat?", "What can't I eat?"),
        ("Where does the user's brother live?", "Where does my brother live?"),
        ("Is the user vegetarian?", "Am I vegetarian?"),
        ("Which band does the user like best?", "Which band do I like best?"),
        ("What do I eat?", None),
        ("Can you suggest a dinner recipe for tonight?", None),
    ],
)
def test_a_question_about_the_user_is_asked_in_the_first_person(query: str, expected: str | None) -> None:
    assert first_person_alias(query) == expected


def test_query_forms_follow_the_voice_of_the_vectors() -> None:
    assert query_forms("What does maya eat?", ["maya"], own_words=True) == ["What do I eat?"]
    assert query_forms("What do I eat?", ["maya"], own_words=True) == []  # already the user's voice
    assert query_forms("What do I eat?", ["maya"]) == ["What does the user eat?"]  # vectors of the text
    assert query_forms("What does the user eat?", [], own_words=True) == []  # not pinned to a user


def _engine(tmp_path: Path, **options: Any) -> Memory:
    settings = fast_settings(tmp_path, language_model={"provider": "heuristic", "options": options})
    return Memory.from_config(settings, plugins=load_plugins({}, extra=[hashing]))


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    mem = _engine(tmp_path / "on")
    yield mem
    mem.close()


def _semantic(memory: Memory, query: str, user: str = "maya") -> float:
    hits = memory.search(query, user_id=user, explain=True, threshold=0.0)
    assert hits and hits[0].details is not None
    return float(hits[0].details["semantic"])


def test_the_stored_vector_is_the_users_words_and_the_text_stays(memory: Memory, tmp_path: Path) -> None:
    stored = memory.add([{"role": "user", "content": "I'm vegetarian."}], user_id="maya")
    assert [r.text for r in stored] == ["The user is vegetarian."]
    # The user's own sentence is the memory's vector exactly (the hashing embedder: equal texts,
    # equal vectors); the keyword index still holds the text.
    assert _semantic(memory, "I'm vegetarian.") == pytest.approx(1.0, abs=1e-5)
    assert memory.search("vegetarian", user_id="maya", threshold=0.0)[0].record.text == "The user is vegetarian."
    off = _engine(tmp_path / "off", own_words=False)
    try:
        off.add([{"role": "user", "content": "I'm vegetarian."}], user_id="maya")
        assert _semantic(off, "I'm vegetarian.") < 0.99
        assert _semantic(off, "The user is vegetarian.") == pytest.approx(1.0, abs=1e-5)
    finally:
        off.close()


def test_a_batch_stores_the_same_vectors_and_merges_a_repeat(memory: Memory) -> None:
    requests = [
        memory.add_request([{"role": "user", "content": text}], user_id="maya")
        for text in ("My brother lives in Toronto.", "I work as a nurse.", "I work as a nurse.")
    ]
    outcomes = memory.add_many(requests)
    assert [len(o.stored) for o in outcomes] == [1, 1, 0]
    assert _semantic(memory, "I work as a nurse.") == pytest.approx(1.0, abs=1e-5)
    # One add after the batch restates a fact: the duplicate rule meets it in the same voice.
    assert memory.add([{"role": "user", "content": "My brother lives in Toronto."}], user_id="maya") == []
    assert memory.list(user_id="maya").total == 2


FACTS = ("I'm vegetarian.", "I work night shifts as a nurse.", "My brother lives in Toronto.", "I'm learning Italian.")


def _scores(tmp_path: Path, query: str, own_words: bool) -> list[tuple[str, float]]:
    """The top 3 for ``query`` with the default embedder (real MiniLM) and the default threshold."""
    memory = Memory.from_config(
        {"data_dir": str(tmp_path), "language_model": {"provider": "heuristic", "options": {"own_words": own_words}}}
    )
    try:
        for fact in FACTS:
            memory.add([{"role": "user", "content": fact}], user_id="maya")
        return [(h.record.text, h.score) for h in memory.search(query, user_id="maya", top_k=3)]
    finally:
        memory.close()


def test_an_agents_turn_finds_the_fact_it_needs_above_the_default_threshold(tmp_path: Path) -> None:
    query = "Can you suggest a dinner recipe for tonight?"
    on = _scores(tmp_path / "on", query, own_words=True)
    off = _scores(tmp_path / "off", query, own_words=False)
    # First, and "related" or better on the calibrated scale (raw 0.23: the turn shares no
    # word with any memory, its cosine is all there is), well above the default 0.1.
    assert on[0][0] == "The user is vegetarian." and on[0][1] >= 0.2
    assert on[0][1] > dict(off).get("The user is vegetarian.", 0.0) + 0.1
    # A question about "the user" still finds its answer first, on the "answers" side of the scale.
    for question, answer in (
        ("Is the user vegetarian?", "The user is vegetarian."),
        ("Where does the user's brother live?", "The user's brother lives in Toronto."),
    ):
        hits = _scores(tmp_path / f"q{len(question)}", question, own_words=True)
        assert hits[0][0] == answer and hits[0][1] >= 0.5


def test_a_paraphrase_in_the_users_words_is_merged_and_a_new_value_is_not(tmp_path: Path) -> None:
    """Vectors of the user's words sit further apart than the rewrites (no shared "The user"):
    the duplicate rule's threshold is lower for them (``duplicate_rule.OWN_WORDS_OFFSET``)."""
    memory = Memory.from_config({"data_dir": str(tmp_path)})
    try:
        first = memory.add([{"role": "user", "content": "I speak Spanish."}], user_id="maya")
        again = memory.add_outcome([{"role": "user", "content": "I can speak Spanish."}], user_id="maya")
        assert again.stored == [] and [m.memory_id for m in again.merged] == [first[0].id]
        moved = memory.add([{"role": "user", "content": "I speak Portuguese."}], user_id="maya")
        assert [r.text for r in moved] == ["The user speaks Portuguese."]
    finally:
        memory.close()
