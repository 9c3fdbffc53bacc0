"""Queries are embedded as the memories would say them: about "the user"."""

from __future__ import annotations

from pathlib import Path

import pytest
from memorist.api import Memory
from memorist.language.voice import third_person_alias


@pytest.mark.parametrize(
    ("query", "alias"),
    [
        ("What do I do for work?", "What does the user do for work?"),
        ("Do I have cats?", "Does the user have cats?"),
        ("what am i allergic to", "what is the user allergic to"),
        ("Where is my passport?", "Where is the user's passport?"),
        ("Who is coming with me?", "Who is coming with the user?"),
        ("I'm vegan, what can I eat?", "The user is vegan, what can the user eat?"),
        ("Have I played tennis?", "Has the user played tennis?"),
        ("Don't I like tea?", "Doesn't the user like tea?"),
        ("When did I move to Lisbon?", "When did the user move to Lisbon?"),
        ("What does the user like?", None),
        ("Which cities do we want to see?", None),  # "we" is not only the user
        ("Is it mine?", "Is it the user's?"),
        ("Myanmar or Imola?", None),
        # A capital "I" that ends a name is its roman numeral, not the speaker.
        ("When did World War I end?", None),
        ("Did I read about World War I?", "Did the user read about World War I?"),
        ("Do I have Type I diabetes?", "Does the user have Type I diabetes?"),
        ("Was King Charles I beheaded?", None),
        ("In March I moved where?", "In March the user moved where?"),  # a month is no name
        ("What did Caroline and I cook?", "What did Caroline and the user cook?"),
        ("Books I read in May", "Books the user read in May"),
        # What the user asks the assistant did: the memories say "the assistant".
        ("What did you recommend?", "What did the assistant recommend?"),
        ("What was your advice about my knee?", "What was the assistant's advice about the user's knee?"),
        ("Which restaurant have you booked?", "Which restaurant has the assistant booked?"),
        ("Can you remind me of my budget?", "Can you remind the user of the user's budget?"),  # a request
    ],
)
def test_a_question_in_the_first_person_is_also_asked_about_the_user(query: str, alias: str | None) -> None:
    assert third_person_alias(query) == alias


FACTS = (
    "I work at Google.",
    "Big news! I moved to Lisbon in 2021. I work as a data analyst now.",
    "My sister Lena is a nurse.",
    "I'm allergic to penicillin.",
    "I have two cats, Pip and Olive.",
    "I like tea.",
)

#: (asked in the first person, asked about the user, what the first hits must say)
QUESTIONS = [
    ("What do I do for work?", "What does the user do for work?", {"Google", "data analyst"}),
    ("What am I allergic to?", "What is the user allergic to?", {"penicillin"}),
    ("What are my cats called?", "What are the user's cats called?", {"Pip"}),
    ("What do I like to drink?", "What does the user like to drink?", {"tea"}),
]


def test_a_question_in_the_first_person_finds_what_the_same_question_about_the_user_finds(tmp_path: Path) -> None:
    """An agent passes the user's own question on ("What do I do for work?"); the memories say
    "The user works at Google.". Embedded as asked, the question sat at cosine 0.16 from its
    answer (0.63 asked about "the user"), and at the default threshold the second memory
    about work was not returned at all. The default embedder: what a first user sees."""
    mem = Memory.from_config({"data_dir": str(tmp_path)})
    try:
        for fact in FACTS:
            mem.add(fact, user_id="max")
        for first_person, about_the_user, answers in QUESTIONS:
            asked = mem.search(first_person, user_id="max")
            reference = mem.search(about_the_user, user_id="max")
            for hits in (asked, reference):
                first = " ".join(h.record.text for h in hits[: len(answers)])
                assert all(answer in first for answer in answers), (first_person, [h.record.text for h in hits])
            # Scores a caller can threshold alike (the old query scored 0.13 against 0.48).
            assert asked[0].score >= 0.6 * reference[0].score, (first_person, asked[0].score, reference[0].score)
    finally:
        mem.close()
