"""A reply in the next add answers the question the conversation's last add ended on.

Clients add each exchange as it happens: the assistant's "Do you have any dietary
restrictions?" ends one add, the user's "Vegetarian." opens the next. Alone it is
filler; as the answer it is the user's diet.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from memorist import Engine as Memory
from memorist.db.schema import open_questions
from memorist.plugin.manager import load_plugins
from memorist.records import DEFAULT_ORG, DEFAULT_PROJECT, Scope, utcnow
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN
from sqlalchemy import func, select, text, update

from tests.conftest import fast_settings
from tests.plugins import hashing

ASKING = [
    {"role": "user", "content": "Can you help me plan meals for the week?"},
    {"role": "assistant", "content": "Sure! Do you have any dietary restrictions?"},
]
ANSWER = 'The assistant asked "Do you have any dietary restrictions?" The user replied: Vegetarian.'


def engine(data_dir: Path) -> Memory:
    return Memory.from_config(fast_settings(data_dir), plugins=load_plugins({}, extra=[hashing]))


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    mem = engine(tmp_path)
    yield mem
    mem.close()


def reply(memory: Memory, text: str, user: str = "dee") -> list[str]:
    return [r.text for r in memory.add([{"role": "user", "content": text}], user_id=user)]


def is_open(memory: Memory, user: str = "dee") -> bool:
    assert memory.adder.questions is not None
    return memory.adder.questions.open(Scope(org_id=DEFAULT_ORG, project_id=DEFAULT_PROJECT, user_id=user)) is not None


def open_rows(memory: Memory) -> int:
    with memory.db.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(open_questions)).scalar_one())


def test_a_reply_in_the_next_add_answers_the_question_the_last_one_ended_on(tmp_path: Path) -> None:
    memory = engine(tmp_path)
    memory.add(ASKING, user_id="dee")
    memory.close()
    other = engine(tmp_path)  # another worker or node: the question is in the database
    try:
        assert reply(other, "Vegetarian.") == [ANSWER]
        assert reply(other, "ok") == []  # answered: "ok" answers nothing now
        assert reply(other, "27", user="someone-else") == []  # another user's conversation asked nothing
    finally:
        other.close()


def test_a_reply_with_no_subject_of_its_own_opens_with_the_question(memory: Memory) -> None:
    memory.add(ASKING, user_id="dee")
    assert reply(memory, "Vegetarian, and no nuts please.") == [
        'The assistant asked "Do you have any dietary restrictions?" The user replied: Vegetarian, and no nuts please.'
    ]
    memory.add(ASKING, user_id="dee")
    # a statement that stands alone is not read as the answer (and closes the question)
    assert reply(memory, "I started a new job at the library.") == ["The user started a new job at the library."]
    assert not is_open(memory)


def test_a_question_closes_once_something_else_is_stored_or_an_hour_passes(memory: Memory) -> None:
    memory.add(ASKING, user_id="dee")
    assert is_open(memory)
    assert reply(memory, "I'm training for a marathon.") == ["The user is training for a marathon."]
    assert not is_open(memory)
    assert reply(memory, "Vegetarian.") == []  # about the marathon now, not the diet
    memory.add(ASKING, user_id="dee")
    assert reply(memory, "Haha") == []  # stores nothing: the question is still open...
    assert is_open(memory)
    with memory.db.begin() as conn:  # ...until an hour has passed
        conn.execute(update(open_questions).values(asked_at=utcnow() - timedelta(minutes=61)))
    assert not is_open(memory)
    assert reply(memory, "Vegetarian.") == []


def test_only_the_assistants_question_is_left_open(memory: Memory) -> None:
    memory.add([{"role": "user", "content": "Should I get a dog?"}], user_id="dee")
    assert not is_open(memory)  # the user does not answer their own question
    assert reply(memory, "Yes.") == []
    memory.add(
        [{"role": "user", "content": "Should I get a dog?", "name": "Mel"}, {"role": "user", "content": "Do you?"}],
        user_id="dee",
    )
    assert not is_open(memory)  # between people (LoCoMo's turns), nothing: no write on that path


def test_within_one_batch_a_later_request_answers_an_earlier_ones_question(memory: Memory) -> None:
    requests = [
        memory.add_request(ASKING, user_id="dee"),
        memory.add_request([{"role": "user", "content": "Vegetarian."}], user_id="dee"),
        memory.add_request([{"role": "assistant", "content": "How many people are you cooking for?"}], user_id="dee"),
    ]
    outcomes = memory.add_many(requests)
    assert [r.text for r in outcomes[1].stored] == [ANSWER]
    # the batch's last question is kept for the next add
    assert reply(memory, "4") == ['The assistant asked "How many people are you cooking for?" The user replied: 4']


def test_the_durable_queues_adds_keep_and_answer_questions_too(memory: Memory) -> None:
    def durably(messages: list[dict[str, str]]) -> list[str]:
        request = memory.add_request(messages, user_id="dee")
        outcome = memory.add_durably(request, plan=lambda ids: None, commit=lambda conn, outcome: None)
        return [r.text for r in outcome.stored]

    durably(ASKING)
    assert durably([{"role": "user", "content": "Vegetarian."}]) == [ANSWER]


def test_deleting_a_users_memories_or_a_reset_removes_their_open_questions(memory: Memory) -> None:
    memory.add(ASKING, user_id="dee")
    memory.add([{"role": "assistant", "content": "What's your name?"}], user_id="kim")  # kim has no memory
    assert open_rows(memory) == 2 and is_open(memory, "kim")
    memory.delete_all(user_id="kim")
    memory.delete_all(user_id="dee")
    assert open_rows(memory) == 0
    assert reply(memory, "Vegetarian.") == []
    memory.add(ASKING, user_id="dee")
    memory.reset()
    assert open_rows(memory) == 0


def test_an_add_whose_question_cannot_be_kept_still_answers_what_it_stored(
    memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    with memory.db.begin() as conn:
        conn.execute(text("DROP TABLE open_questions"))  # a database that refuses the write
    with caplog.at_level(logging.WARNING):
        stored = memory.add(
            [{"role": "user", "content": "I love hiking."}, {"role": "assistant", "content": "Where do you hike?"}],
            user_id="dee",
        )
    assert [r.text for r in stored] == ["The user loves hiking."]
    assert "could not keep the open question" in caplog.text


def test_through_the_rest_api_each_exchange_added_as_it_happens(tmp_path: Path) -> None:
    """The door a chat client uses: POST /memories once per exchange, then /search."""
    server = AppServer(tmp_path / "data").start()
    try:

        def add(messages: list[dict[str, str]]) -> dict:
            resp = server.post("/memories", headers=ADMIN, json={"messages": messages, "user_id": "dee"})
            assert resp.status_code == 200, resp.text
            return dict(resp.json())

        asked = add(ASKING)
        assert asked["results"] == [] and [s["reason"] for s in asked["skipped"]] == ["question", "filler", "question"]
        answered = add([{"role": "user", "content": "Vegetarian."}])
        assert [r["memory"] for r in answered["results"]] == [ANSWER]
        found = server.post("/search", headers=ADMIN, json={"query": "dietary restrictions", "user_id": "dee"}).json()
        assert found["results"][0]["memory"] == ANSWER
    finally:
        server.stop()
