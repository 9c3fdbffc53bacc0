"""Who "you" is (an assistant's "you" is the user, a user's reported "you" the assistant), and
what an assistant's reply answers."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memorist.plugin.contracts import ProviderContext
from memorist.python.engine import Engine
from memorist.records import ExtractionRequest, Message
from memorist_heuristic.extractor import HeuristicExtractor

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def extract(tmp_path: Path, *messages: Message) -> list[str]:
    extractor = HeuristicExtractor(HeuristicExtractor.Options(), ProviderContext(tmp_path))
    return [f.text for f in extractor.extract(ExtractionRequest(messages=list(messages), observed_at=MONDAY))]


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        (
            "I will remind you to pack your charger.",
            "The assistant will remind the user to pack the user's charger.",
        ),
        ("You are going to love Rome.", "The assistant: The user is going to love Rome."),
        ("If you like pasta, try Roscioli.", "The assistant: If the user likes pasta, try Roscioli."),
        ("You have a 5k race on Sunday.", "The assistant: The user has a 5k race on Sunday."),
        (
            "I recommend The Overstory. You might also enjoy Braiding Sweetgrass.",
            "The assistant recommends The Overstory. The user might also enjoy Braiding Sweetgrass.",
        ),
        ("I booked a table for you at Nopi.", "The assistant booked a table for the user at Nopi."),
        ("I hope you enjoy my pick.", "The assistant hopes the user enjoys the assistant's pick."),
    ],
)
def test_an_assistants_you_is_the_user(tmp_path: Path, said: str, memory: str) -> None:
    assert extract(tmp_path, Message(role="assistant", content=said)) == [memory]


def test_an_assistants_you_is_the_name_the_user_gave(tmp_path: Path) -> None:
    facts = extract(
        tmp_path,
        Message(role="user", content="I'm off to Rome on May 3rd.", name="Max"),
        Message(role="assistant", content="I will remind you to pack your charger."),
    )
    assert facts[-1] == "The assistant will remind Max to pack Max's charger."


@pytest.mark.parametrize(
    ("said", "memory"),
    [
        # Named every time once the assistant is in the sentence too: "they" could be either.
        ("You told me to try yoga, and I started.", "The assistant told the user to try yoga, and the user started."),
        (
            "Your advice about stretching helped my knee.",
            "The assistant's advice about stretching helped the user's knee.",
        ),
        # A generic "you" stays as it was said.
        ("You never know with knees, I stretch daily.", "You never know with knees, the user stretches daily."),
        (
            "You can't beat fresh bread, I bake it on Sundays.",
            "You can't beat fresh bread, the user bakes it on Sundays.",
        ),
    ],
)
def test_a_users_you_is_the_assistant_only_where_it_reports_what_the_assistant_did(
    tmp_path: Path, said: str, memory: str
) -> None:
    assert extract(tmp_path, Message(role="user", content=said)) == [memory]


def test_between_named_people_you_stays_as_said(tmp_path: Path) -> None:
    said = "You told me about your pottery class, I signed up too."
    assert extract(tmp_path, Message(role="user", content=said, name="Caroline")) == [
        "You told Caroline about your pottery class, they signed up too."
    ]


@pytest.mark.parametrize("said", ["You're welcome!", "You are very welcome.", "Anytime!"])
def test_a_reply_to_thanks_is_not_a_memory(tmp_path: Path, said: str) -> None:
    assert extract(tmp_path, Message(role="assistant", content=said)) == []


def test_a_reply_opens_with_the_question_it_answers(tmp_path: Path) -> None:
    facts = extract(
        tmp_path,
        Message(role="user", content="Can you recommend a novel about trees?"),
        Message(role="assistant", content="I recommend The Overstory."),
    )
    assert facts == ['The user asked "Can you recommend a novel about trees?" The assistant recommends The Overstory.']
    facts = extract(
        tmp_path,
        Message(role="user", content="What should I cook tonight? I have leeks and potatoes."),
        Message(role="assistant", content="Leek and potato soup would be perfect."),
    )
    assert facts == [
        "The user has leeks and potatoes.",
        'The user asked "What should I cook tonight?" The assistant replied: Leek and potato soup would be perfect.',
    ]


def test_a_users_reply_opens_with_the_assistants_question(tmp_path: Path) -> None:
    facts = extract(
        tmp_path,
        Message(role="assistant", content="I can help with that. Do you have a budget in mind?"),
        Message(role="user", content="Around 20 lakh rupees."),
    )
    assert facts == [
        "The assistant can help with that.",
        'The assistant asked "Do you have a budget in mind?" The user replied: Around 20 lakh rupees.',
    ]


@pytest.mark.parametrize(
    "before",
    [
        Message(role="user", content="I have leeks and potatoes."),  # no question
        Message(role="assistant", content="Do you have leeks?"),  # the reply's own party
        Message(role="user", content="Can you " + "really, " * 30 + "tell me what goes with leeks?"),  # too long
    ],
)
def test_a_reply_opens_with_no_question_but_the_other_partys_just_before(tmp_path: Path, before: Message) -> None:
    facts = extract(tmp_path, before, Message(role="assistant", content="Leek and potato soup would be perfect."))
    assert facts[-1] == "The assistant: Leek and potato soup would be perfect."


def test_what_the_assistant_said_is_found_when_asked_about_you(tmp_path: Path) -> None:
    """ "What did you recommend?" asks about the assistant; the memory says "The assistant
    recommends...". The default embedder: what a first user sees."""
    mem = Engine.from_config({"data_dir": str(tmp_path)})
    try:
        mem.add(
            [
                {"role": "user", "content": "Can you recommend a novel about trees?"},
                {"role": "assistant", "content": "I recommend The Overstory by Richard Powers."},
            ],
            user_id="max",
        )
        for fact in ("I read a novel every month.", "My favourite tree is the oak.", "I work at a bookshop."):
            mem.add(fact, user_id="max")
        asked = mem.search("Which book did you recommend to me?", user_id="max")
        reference = mem.search("Which book did the assistant recommend to the user?", user_id="max")
        assert "Overstory" in asked[0].record.text, [h.record.text for h in asked]
        assert asked[0].score >= 0.6 * reference[0].score, (asked[0].score, reference[0].score)
    finally:
        mem.close()
