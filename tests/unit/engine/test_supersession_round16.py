"""The sixteenth round's mechanism, in several languages with sentences of its own (each
positive case failed on the code before the round):

- the echo reads a word the way its language writes it onto another: a Japanese compound built
  on the user's word ("大阪" in "大阪旅行"), a Hebrew or Arabic word carrying a one-letter
  proclitic ("בתל" for "תל", "وبنك" for "بنك"), so the assistant's confirmation goes with the
  fact it confirms (:mod:`memorist.engine.supersession_echo`).
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_echo import echoes

from tests.supersession_pairs import record


def _shown_of_first(engine: Any, user: str, adds: list[Any]) -> tuple[int, int]:
    """Adds ``adds`` a day apart; how many memories of the first add a ``latest_only`` list
    shows, and how many it stored."""
    ids: list[list[str]] = []
    for day, text in enumerate(adds, start=2):
        ids.append([r.id for r in engine.add(text, user_id=user, timestamp=f"2026-03-{day:02d}T09:00:00Z")])
    shown = {r.id for r in engine.list(user_id=user, latest_only=True, page_size=50).records}
    return len(set(ids[0]) & shown), len(ids[0])


def _chat(user: str, assistant: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]


@pytest.mark.parametrize(
    ("fact", "echo"),
    [
        ("The user: 今は東京の大学で経済を勉強しています。", "The assistant: 東京大学で経済学を勉強中なんですね。"),
        ("The user: 春から京都の大学院に通っています。", "The assistant: 京都大学院の学生さんなんですね。"),
        ("The user: יש לי חתולה, קוראים לה מיצי.", "The assistant: איזה כיף, החתולה שלך מיצי."),
        ("The user: יש לי כלב, קוראים לו רקסי.", "The assistant: איזה כיף, הכלב שלך רקסי."),
        ("The user: عندي كلب اسمه ريكس.", "The assistant: جميل، الكلب ريكس."),
    ],
    ids=["ja-study", "ja-school", "he-cat", "he-dog", "ar-dog"],
)
def test_a_confirmation_in_the_languages_word_forms_is_the_facts_echo(fact: str, echo: str) -> None:
    older = record(fact, 2, "user")
    confirmation = record(echo, 2, "assistant")
    confirmation.id, confirmation.source_message = "m2-echo", 1
    older.source_message = 0
    assert echoes(confirmation, older)


@pytest.mark.parametrize(
    ("fact", "remark"),
    [
        ("The user: אני גר בחיפה.", "The assistant: חיפה עיר יפה מאוד!"),
        ("The user: أسكن في القاهرة.", "The assistant: القاهرة مدينة جميلة جدا!"),
    ],
    ids=["he", "ar"],
)
def test_a_remark_on_the_value_alone_is_no_echo(fact: str, remark: str) -> None:
    older = record(fact, 2, "user")
    said = record(remark, 2, "assistant")
    said.id = "m2-remark"
    older.source_message, said.source_message = 0, 1
    assert not echoes(said, older)


@pytest.mark.parametrize(
    "adds",
    [
        [
            _chat("今は東京の大学で経済を勉強しています。", "東京大学で経済学を勉強中なんですね。"),
            "大学は先月卒業して、今は名古屋で働いています。",
        ],
    ],
    ids=["ja-study"],
)
def test_the_echo_goes_with_the_changed_fact(engine: Any, adds: list[Any]) -> None:
    shown, stored = _shown_of_first(engine, "round16", adds)
    assert stored == 2
    assert shown == 0
