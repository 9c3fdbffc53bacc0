"""Queries are embedded as the memories would say them: about "the user"."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from memorist import Engine
from memorist.language.voice import third_person_alias
from memorist.plugin.contracts import LanguageModel, ProviderContext
from memorist.plugin.hookspecs import hookimpl
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine as Memory
from memorist_heuristic.extractor import HeuristicExtractor

from tests.conftest import fast_settings
from tests.plugins import hashing


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


class VoicedAsAna(HeuristicExtractor):
    """A language model whose memories call the user "Ana": it offers queries in that voice."""

    name: ClassVar[str] = "voiced-as-ana"
    asked: ClassVar[list[tuple[str, tuple[str, ...]]]] = []

    def query_forms(self, query: str, user_ids: Sequence[str] = ()) -> list[str]:
        self.asked.append((query, tuple(user_ids)))
        return [query.replace("do I", "does Ana").replace(" I ", " Ana ")]


class VoicedAsAnaPlugin:
    @hookimpl
    def register_language_models(self, register: Callable[[type[LanguageModel]], None]) -> None:
        register(VoicedAsAna)


def test_the_query_voice_is_the_language_models_not_the_engines(tmp_path: Path) -> None:
    """Search asks the language model that wrote the memories for the query in their voice
    (``LanguageModel.query_forms``); the default offers none, and the engine adds no form of
    its own."""
    assert (
        LanguageModel.query_forms(VoicedAsAna(VoicedAsAna.Options(), ProviderContext(tmp_path)), "Do I?", ["u"]) == []
    )
    # The heuristic's vectors hold the user's own words: a query about "the user" is asked in
    # the first person; with them off (vectors of the third-person text), the other way round.
    own = HeuristicExtractor(HeuristicExtractor.Options(), ProviderContext(tmp_path))
    assert own.query_forms("Where does the user live?", ["ana"]) == ["Where do I live?"]
    assert own.query_forms("Where do I live?", ["ana"]) == []
    text = HeuristicExtractor(HeuristicExtractor.Options(own_words=False), ProviderContext(tmp_path))
    assert text.query_forms("Where do I live?", ["ana"]) == ["Where does the user live?"]
    mem = Engine.from_config(
        fast_settings(tmp_path, language_model={"provider": "voiced-as-ana"}),
        plugins=load_plugins({}, extra=[hashing, VoicedAsAnaPlugin()]),
    )
    try:
        mem.add("Ana lives in Lisbon.", user_id="ana", infer=False)
        mem.search("Where do I live?", user_id="ana")
        mem.search("Where do I live?")  # not pinned to a user: no form to ask for
    finally:
        mem.close()
    assert VoicedAsAna.asked == [("Where do I live?", ("ana",))]
