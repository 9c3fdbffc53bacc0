"""What the assistant said about the user is the user's fact: the user's later change replaces it.

Facts from the assistant count as much as the user's, so an assistant's "Your work email is
..." is stored as the user's work email. When the user later gives a new one, the older
version must leave ``latest_only`` results as it would had the user said it; the assistant's
facts about something else, and the user's additions, still stay current.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.python.memory import Memory

from tests.conftest import fast_settings
from tests.plugins import hashing

MONDAY = "2026-03-02T09:00:00Z"
FRIDAY = "2026-03-06T18:00:00Z"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    engine = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield Memory(engine=engine)
    engine.close()


def _exchange(question: str, answer: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


@pytest.mark.parametrize(
    ("exchange", "change", "query"),
    [
        (
            _exchange("Can you remind me of my work email?", "Your work email is j.ortiz@acme.io."),
            "My work email changed, it's jortiz@globex.com now.",
            "work email",
        ),
        (
            _exchange("Where do I live again?", "You live in Lisbon."),
            "I moved to Porto last month.",
            "where does the user live",
        ),
    ],
)
def test_the_users_change_replaces_what_the_assistant_said_about_them(
    memory: Memory, exchange: list[dict[str, str]], change: str, query: str
) -> None:
    said = memory.add(exchange, user_id="jo", timestamp=MONDAY)["results"]
    about_user = [m for m in said if m["attributed_to"] == "assistant"]
    assert about_user, said
    new = memory.add(change, user_id="jo", timestamp=FRIDAY)["results"]
    assert len(new) == 1
    everything = {m["id"] for m in memory.search(query, user_id="jo", threshold=0.0)["results"]}
    assert {m["id"] for m in about_user} | {new[0]["id"]} <= everything
    found = {m["id"] for m in memory.search(query, user_id="jo", latest_only=True, threshold=0.0)["results"]}
    assert new[0]["id"] in found
    assert not found & {m["id"] for m in about_user}


def test_an_addition_after_the_assistant_keeps_both(memory: Memory) -> None:
    said = memory.add(_exchange("What's my phone number?", "Your phone number is 415-555-0101."), user_id="jo")
    kept = [m["id"] for m in said["results"] if "415-555-0101" in m["memory"]]
    assert kept
    memory.add("I also have a cat named Miso.", user_id="jo", timestamp=FRIDAY)
    found = {m["id"] for m in memory.search("phone number", user_id="jo", latest_only=True, threshold=0.0)["results"]}
    assert set(kept) <= found
