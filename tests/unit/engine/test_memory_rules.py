"""What is kept, what is skipped and why, how dedup decides (docs/memory-rules.md), rule by rule.

Engine tests use the hashing embedder; the paraphrase threshold is lowered where a test
must show that the value rule, not the cosine, decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

import pytest
from memorist.engine.dedup import value_tokens, values_agree
from memorist.engine.hits import SearchHit
from memorist.engine.query_forms import without_subject
from memorist.language.voice import subject_alias
from memorist.plugin.contracts import LanguageModel, ProviderContext
from memorist.plugin.hookspecs import hookimpl
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.records import ExtractedFact, ExtractionRequest, MemoryRecord, Message
from memorist_heuristic.extractor import HeuristicExtractor
from memorist_heuristic.rewrite import standalone
from memorist_heuristic.segment import skip_reason

from tests.conftest import fast_settings
from tests.plugins import hashing

NOW = datetime(2024, 5, 14, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("I like tea.", None),
        ("I am vegetarian.", None),
        ("I like kites.", None),
        ("I'm allergic to peanuts.", None),
        ("I don't drink coffee.", None),
        ("My name is Bob.", None),
        ("I'm 30.", None),
        ("Hi there!", "greeting"),
        ("Bye, see you later!", "greeting"),
        ("Thanks a lot!", "thanks"),
        ("Thanks, Caroline!", "thanks"),
        ("How are you today?", "question"),
        ("What should I feed him?", "question"),
        ("Ok, cool.", "filler"),
        ("Haha, yeah!", "filler"),
        ("I agree.", "filler"),
        ("I love it!", "filler"),
        ("Tea.", "filler"),
    ],
)
def test_short_facts_are_kept_and_the_rest_has_a_reason(sentence: str, reason: str | None) -> None:
    assert skip_reason(sentence) == reason


@pytest.mark.parametrize(
    ("said", "speaker", "memory"),
    [
        ("I like tea.", "the user", "The user likes tea."),
        ("I don't eat meat anymore.", "the user", "The user doesn't eat meat anymore."),
        ("I eat meat.", "the user", "The user eats meat."),
        ("I work at Google.", "the user", "The user works at Google."),
        ("I live in Boston.", "the user", "The user lives in Boston."),
        ("I have two kids.", "the user", "The user has two kids."),
        ("I am vegetarian.", "the user", "The user is vegetarian."),
        ("I haven't seen it.", "the user", "The user hasn't seen it."),
        ("I really love green tea.", "the user", "The user really loves green tea."),
        ("I study law and I watch films.", "the user", "The user studies law and they watch films."),
        ("I go running.", "the user", "The user goes running."),
        ("I moved to Denver.", "the user", "The user moved to Denver."),
        ("I can swim.", "the user", "The user can swim."),
        ("Maria gave me a book", "the user", "Maria gave the user a book"),
        ("Remember that I am vegetarian", "the user", "Remember that the user is vegetarian"),
        ("Maria and I love jazz.", "the user", "Maria and the user love jazz."),
        ("Did I tell you I adopted a dog?", "the user", "Did the user tell you they adopted a dog?"),
        ("I need a break.", "Bo", "Bo needs a break."),
        ("I love hiking. I hate running.", "Ana", "Ana loves hiking. They hate running."),
        ("I PLAY THE GUITAR.", "the user", "The user PLAYS THE GUITAR."),
        ("i think i like tea", "the user", "The user thinks they like tea"),
        ("i.e. I cook", "the user", "i.e. the user cooks"),
    ],
)
def test_the_third_person_rewrite_is_grammatical(said: str, speaker: str, memory: str) -> None:
    assert standalone(said, speaker) == memory


def test_the_extractor_reports_every_skipped_part_per_message(tmp_path: Path) -> None:
    extractor = HeuristicExtractor(HeuristicExtractor.Options(), ProviderContext(tmp_path))
    request = ExtractionRequest(
        messages=[
            Message(role="system", content="You are helpful."),
            Message(role="user", content="Hi! I like tea. How are you?"),
            Message(role="user", content="Thanks a lot!"),
            Message(role="user", content="   "),
            Message(role="user", content="My salary is 90k.", name="Bo"),
        ],
        observed_at=NOW,
        excludes="salary",
    )
    result = extractor.extract_detailed(request)
    assert [f.text for f in result.facts] == ["The user likes tea."]
    assert [(s.message, s.reason, s.text) for s in result.skipped] == [
        (0, "system_message", None),
        (1, "greeting", "Hi!"),
        (1, "question", "How are you?"),
        (2, "thanks", "Thanks a lot!"),
        (3, "empty", None),
        (4, "excluded", "My salary is 90k."),
    ]


@pytest.mark.parametrize(
    ("a", "b", "agree"),
    [
        ("The user's phone number is 555-1234.", "The user's phone number is 555-9876.", False),
        ("The user is 30 years old.", "The user is 31 years old.", False),
        ("The user lives at 12 Baker Street.", "The user lives at 221 Baker Street.", False),
        ("The user works at Google.", "The user works at Microsoft.", False),
        ("The user drinks coffee.", "The user doesn't drink coffee.", False),
        ("The user eats meat.", "The user never eats meat.", False),
        ("The user loves running.", "The user hates running.", False),
        ("The user has two kids.", "The user has three kids.", False),
        ("The user runs 5 km.", "The user runs 5 miles.", False),
        ("The user lives in Lisbon.", "The user used to live in Lisbon.", False),
        ("The user goes to the gym on Mondays.", "The user goes to the gym on Fridays.", False),
        ("The user runs weekly.", "The user runs daily.", False),
        ("The user has some books.", "The user has many books.", False),
        ("The user's birthday is on March 3.", "The user's birthday is March 3rd.", True),
        ("The user works at Google.", "The user is employed at Google.", True),
        ("Blue is the user's favorite color.", "The user's favorite color is blue.", True),
        ("The user doesn't eat meat anymore.", "The user no longer eats meat.", True),
        ("The user PLAYS THE GUITAR.", "The user plays the guitar.", True),
    ],
)
def test_value_bearing_tokens_decide_a_paraphrase(a: str, b: str, agree: bool) -> None:
    assert values_agree(a, b) is agree
    assert values_agree(b, a) is agree


def test_value_tokens_are_canonical() -> None:
    tokens = value_tokens("Maria's rent is 1,900 dollars, not 2000.")
    assert {"1900", "2000", "dollars", "NOT"} <= tokens.values and "maria" in tokens.names


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = Engine.from_config(
        fast_settings(tmp_path, engine={"near_duplicate_threshold": 0.5}),
        plugins=load_plugins({}, extra=[hashing]),
    )
    yield mem
    mem.close()


@pytest.mark.parametrize("infer", [True, False])
def test_a_changed_value_is_a_new_memory_whatever_the_cosine(memory: Engine, infer: bool) -> None:
    first = memory.add_outcome("My phone number is 555-1234.", user_id="u1", infer=infer)
    second = memory.add_outcome("My phone number is 555-9876.", user_id="u1", infer=infer)
    assert len(first.stored) == 1 and len(second.stored) == 1 and not second.merged
    found = [h.record.text for h in memory.search("What is my phone number?", user_id="u1", top_k=5)]
    assert any("555-9876" in t for t in found) and any("555-1234" in t for t in found)


def test_a_repeat_is_merged_and_names_the_memory_it_matched(memory: Engine) -> None:
    stored = memory.add_outcome("I adopted a puppy named Rex last spring.", user_id="u1").stored
    exact = memory.add_outcome("i adopted a puppy named rex last spring", user_id="u1")
    assert exact.stored == [] and memory.add("I adopted a puppy named Rex last spring.", user_id="u1") == []
    assert [(m.source_message, m.memory_id, m.reason) for m in exact.merged] == [(0, stored[0].id, "same_text")]
    paraphrase = memory.add_outcome("Last spring I adopted a puppy named Rex!", user_id="u1")
    assert paraphrase.stored == []
    (merged,) = paraphrase.merged
    assert merged.reason == "paraphrase" and merged.memory_id == stored[0].id
    assert merged.matched_memory == stored[0].text and 0.5 <= merged.similarity <= 1.0
    assert memory.list(user_id="u1").total == 1


def test_a_repeat_within_one_add_names_the_memory_that_add_stored(memory: Engine) -> None:
    outcome = memory.add_outcome(["I love green tea.", "Hello!", "I love green tea."], user_id="u1", infer=False)
    assert [r.text for r in outcome.stored] == ["I love green tea.", "Hello!"]
    assert [(m.source_message, m.memory_id) for m in outcome.merged] == [(2, outcome.stored[0].id)]
    assert outcome.skipped == []  # infer=false stores "Hello!" verbatim: nothing is judged


class OnlyExtract(LanguageModel):
    """A third-party language model written against the older contract (``extract`` only)."""

    name: ClassVar[str] = "only-extract"

    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        return [ExtractedFact(text="The user likes tea.", source_message=1)]


class OnlyExtractPlugin:
    @hookimpl
    def register_language_models(self, register: Callable[[type[LanguageModel]], None]) -> None:
        register(OnlyExtract)


def test_a_language_model_without_reasons_still_reports_skips(tmp_path: Path) -> None:
    mem = Engine.from_config(
        fast_settings(tmp_path, language_model={"provider": "only-extract"}),
        plugins=load_plugins({}, extra=[hashing, OnlyExtractPlugin()]),
    )
    try:
        outcome = mem.add_outcome(
            [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "I like tea."},
                {"role": "assistant", "content": "Noted!"},
            ],
            user_id="u1",
        )
    finally:
        mem.close()
    assert [r.text for r in outcome.stored] == ["The user likes tea."]
    assert [(s.source_message, s.reason, s.text) for s in outcome.skipped] == [
        (0, "system_message", "Be brief."),
        (2, "no_fact", "Noted!"),
    ]


@pytest.mark.parametrize(
    ("query", "alias"),
    [
        ("What does alice like?", "What does the user like?"),
        ("Where is Alice's office?", "Where is the user's office?"),
        ("What does malice mean?", None),
        ("What does the user like?", None),
    ],
)
def test_a_user_id_named_in_a_query_is_searched_as_the_user(query: str, alias: str | None) -> None:
    assert subject_alias(query, ["alice"]) == alias


@pytest.mark.parametrize(
    ("query", "keywords"),
    [
        ("What sport does Alice play?", "What sport does play?"),
        ("Where is alice's office?", "Where is office?"),
        ("Who is Alice?", "Who is Alice?"),  # nothing left to search for: the query as it was
        ("What does malice mean?", "What does malice mean?"),
    ],
)
def test_the_keyword_search_leaves_out_the_user_id_a_query_names(query: str, keywords: str) -> None:
    assert without_subject(query, ["alice"]) == keywords


def test_a_question_naming_the_user_finds_what_was_asked_not_the_memory_of_her_name(tmp_path: Path) -> None:
    """With ``user_id="ada"`` the memories say "the user"; only one says "Ada". Her name in a
    question used to rank that memory first (by BM25 and the entity graph) for "What sport
    does Ada play?". The default embedder: the ranking is what a first user sees."""
    mem = Engine.from_config({"data_dir": str(tmp_path)})
    try:
        for fact in (
            "I'm vegan.",
            "My name is Ada and I live in Lisbon.",
            "My sister Bea works at Google.",
            "I play tennis every Sunday.",
            "My dog is called Pixel.",
        ):
            mem.add(fact, user_id="ada")
        for question, answer in (
            ("What sport does Ada play?", "tennis"),
            ("What does Ada eat?", "vegan"),
            ("What is Ada's dog called?", "Pixel"),
            ("Where does Ada's sister work?", "Google"),
            ("Where does Ada live?", "Lisbon"),
        ):
            hits = mem.search(question, user_id="ada", top_k=3)
            assert answer in hits[0].record.text, (question, [h.record.text for h in hits])
    finally:
        mem.close()


def test_the_newest_version_of_a_changed_fact_is_found_first(memory: Engine) -> None:
    memory.add("My phone number is 555-1234.", user_id="u1", timestamp="2024-01-05")
    memory.add("I live in Boston.", user_id="u1", timestamp="2024-01-06")
    memory.add("My phone number is 555-9876.", user_id="u1", timestamp="2024-03-01")
    # Added late but observed earlier: an older version, whatever the order of the adds.
    memory.add("My phone number is 555-0000.", user_id="u1", timestamp="2023-06-01")
    hits = memory.search("What is my phone number?", user_id="u1", top_k=5)
    phones = [h.record.text for h in hits if "phone" in h.record.text]
    assert phones == [
        "The user's phone number is 555-9876.",
        "The user's phone number is 555-1234.",
        "The user's phone number is 555-0000.",
    ]
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_versions_differ_only_in_values() -> None:
    from memorist.engine.versions import version_key

    assert version_key("The user lives in Boston.") == version_key("The user lives in Denver.")
    assert version_key("The user's phone number is 555-1234.") == version_key("The user's phone number is 555-9876.")
    assert version_key("Melanie: She chews shoes.") != version_key("Melanie: He chews shoes.")
    assert version_key("Caroline lives in Paris.") != version_key("Melanie lives in Paris.")
    assert version_key("The user likes tea.") != version_key("The user likes coffee.")
    assert version_key("Caroline: Hi") is None


def test_a_value_corrected_later_in_the_same_add_is_found_first(tmp_path: Path) -> None:
    """ "Actually, make that $4000" used to be stored as said: no search for the budget found
    it, and the old $3000 ranked first. The default embedder: what a first user sees."""
    mem = Engine.from_config({"data_dir": str(tmp_path)})
    try:
        outcome = mem.add_outcome(
            [
                {"role": "user", "content": "I'm planning a trip to Japan in April."},
                {"role": "assistant", "content": "Cherry blossoms peak in early April in Tokyo."},
                {"role": "user", "content": "I don't eat meat, and my budget is about $3000."},
                {"role": "user", "content": "Actually, make that $4000, my partner is joining."},
            ],
            user_id="sam",
        )
        assert "The user's budget is about $4000." in [r.text for r in outcome.stored]
        for question, first in (
            ("What is Sam's budget?", "$4000"),
            ("How much can I spend on the trip?", "$4000"),
            ("Who is coming with me?", "partner"),
        ):
            hits = mem.search(question, user_id="sam", top_k=3)
            assert first in hits[0].record.text, (question, [h.record.text for h in hits])
        # ADD-only: the old value is still there, below the new one.
        texts = [h.record.text for h in mem.search("What is Sam's budget?", user_id="sam", top_k=5)]
        assert texts.index("The user's budget is about $3000.") > 0
    finally:
        mem.close()


def test_a_correction_sent_in_its_own_add_is_found_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual agent loop adds each exchange on its own: the correction's add reads the
    scope's latest memories (and only such an add does)."""
    from memorist.engine import add_request

    reads: list[int] = []
    real = add_request.recent_memories
    monkeypatch.setattr(add_request, "recent_memories", lambda *a: reads.append(1) or real(*a))
    mem = Engine.from_config({"data_dir": str(tmp_path)})
    try:
        mem.add(
            [
                {"role": "user", "content": "My budget for the trip is about $3000."},
                {"role": "assistant", "content": "Got it, I'll plan around that."},
            ],
            user_id="sam",
        )
        assert reads == []  # an add without a correction reads nothing more
        stored = mem.add("Actually, make that $4000, my partner is joining.", user_id="sam")
        assert reads == [1]
        assert [r.text for r in stored] == [
            "The user's budget for the trip is about $4000.",
            "The user's partner is joining.",
        ]
        hits = mem.search("What is Sam's budget?", user_id="sam", top_k=3)
        assert [h.record.text for h in hits[:2]] == [
            "The user's budget for the trip is about $4000.",
            "The user's budget for the trip is about $3000.",
        ]
    finally:
        mem.close()


def _hits(*texts_days_speakers: tuple[str, int, str | None]) -> list[SearchHit]:
    """Search hits in the given order, scored 0.9, 0.8, ..., observed on day N of May 2024."""
    hits = []
    for rank, (text, day, speaker) in enumerate(texts_days_speakers):
        when = datetime(2024, 5, day, tzinfo=UTC)
        record = MemoryRecord(
            id=f"m{rank}",
            text=text,
            hash=text,
            user_id="u",
            speaker=speaker,
            observed_at=when,
            created_at=when,
            updated_at=when,
        )
        hits.append(SearchHit(record, 0.9 - rank / 10))
    return hits


@pytest.mark.parametrize(
    ("query", "hits", "expected"),
    [
        (  # "anymore" changes the fact it shares a word with, both about what was asked
            "What food do I like?",
            [
                ("The user's favourite food is ramen.", 1, None),
                ("The user is a nurse.", 2, None),
                ("The user doesn't like ramen anymore, they prefer pho now.", 3, None),
            ],
            [2, 0, 1],
        ),
        (  # a rescheduling said by the user changes what the assistant said
            "When is my dentist appointment?",
            [
                ("The assistant: Your dentist appointment is on Friday at 3pm.", 1, None),
                ("The user: Oh wait, the appointment moved to Monday.", 2, None),
            ],
            [1, 0],
        ),
        (  # the change is older than the fact: nothing moves
            "What food do I like?",
            [("The user's favourite food is ramen.", 5, None), ("The user doesn't like ramen anymore.", 3, None)],
            [0, 1],
        ),
        (  # a name is no topic: Emma's diet says nothing of where she lives
            "Where does Emma live?",
            [("The user's sister Emma lives in Paris.", 1, None), ("Emma doesn't eat meat anymore.", 2, None)],
            [0, 1],
        ),
        (  # the question is about neither
            "What is my job?",
            [
                ("The user works as a nurse.", 1, None),
                ("The user's favourite food is ramen.", 1, None),
                ("The user doesn't like ramen anymore.", 3, None),
            ],
            [0, 1, 2],
        ),
        (  # two people of a conversation: one's change is not the other's
            "Does Caroline like painting?",
            [
                ("Caroline loves painting landscapes.", 1, "Caroline"),
                ("Melanie doesn't have time for painting anymore.", 2, "Melanie"),
            ],
            [0, 1],
        ),
        (  # "now" ending a clause says the employer changed...
            "Where does the user work?",
            [("The user works at Google.", 1, None), ("The user works at Microsoft now.", 2, None)],
            [1, 0],
        ),
        (  # a weekly lesson moved to another day
            "When are my cello lessons?",
            [
                ("The user just started learning the cello.", 1, None),
                ("The user: Lessons are on Tuesdays at 6pm.", 2, None),
                ("The user: Lessons moved to Thursdays.", 3, None),
            ],
            [0, 2, 1],
        ),
        (  # ..."now" starting one does not
            "Where does the user work?",
            [("The user works at Google.", 1, None), ("Now that the user works, they cycle a lot.", 2, None)],
            [0, 1],
        ),
        (  # a "now" far less relevant than the fact it shares a word with answers something else
            "What is my work email address?",
            [
                ("The user's work email is alice@example.org.", 1, None),
                ("The user's phone number is 555-9876.", 2, None),
                ("The user works at Google.", 3, None),
                ("The user's name is Alice Moreau.", 4, None),
                ("The user's forum name is skyfox42.", 5, None),
                ("The user moved to Lisbon. They work as a data analyst now.", 6, None),
            ],
            [0, 1, 5, 2, 3, 4],  # above the job it changes, not above the email
        ),
        (  # "any more art" asks for more, it changes nothing
            "Has Melanie made art?",
            [("Melanie made art with her kids.", 1, None), ("Have you made any more art lately?", 2, None)],
            [0, 1],
        ),
    ],
)
def test_a_stated_change_is_placed_above_the_older_fact_it_changes(
    query: str, hits: list[tuple[str, int, str | None]], expected: list[int]
) -> None:
    from memorist.engine.versions import current_first

    given = _hits(*hits)
    ranked = current_first(given, query)
    assert [h.record.id for h in ranked] == [f"m{i}" for i in expected]
    assert [h.score for h in ranked] == [h.score for h in given]  # positions keep their scores


def test_a_change_said_in_other_words_is_found_first(tmp_path: Path) -> None:
    """A first user's session (the default embedder): a dentist appointment moved, a taste
    changed. The newer statements used to rank below the facts they change."""
    mem = Engine.from_config({"data_dir": str(tmp_path)})
    try:
        mem.add(
            [
                {"role": "user", "content": "Can you remind me about my dentist appointment?"},
                {"role": "assistant", "content": "Sure, your dentist appointment is on Friday at 3pm."},
            ],
            user_id="max",
        )
        mem.add("My favourite food is ramen.", user_id="max")
        mem.add("I have two cats, Pixel and Byte.", user_id="max")
        mem.add("Oh wait, the appointment moved to Monday.", user_id="max")
        mem.add("I don't like ramen anymore, I prefer pho now.", user_id="max")
        for question, first in (
            ("When is my dentist appointment?", "Monday"),
            ("What food do I like?", "pho"),
            ("What are my cats called?", "Pixel"),
        ):
            hits = mem.search(question, user_id="max", top_k=3)
            assert first in hits[0].record.text, (question, [h.record.text for h in hits])
    finally:
        mem.close()


@pytest.mark.parametrize(
    ("hits", "expected"),
    [
        ([("The user's favorite color is green.", 1, None), ("The user's favorite color is blue.", 3, None)], [1, 0]),
        ([("The user's favorite color is green.", 1, None), ("The user's favorite food is pho.", 3, None)], [0, 1]),
        ([("Melanie: She chews every shoe.", 1, None), ("Melanie: He chews every shoe.", 3, None)], [0, 1]),
        (
            [
                ("The user's favorite color is green.", 1, None),
                ("The user likes tea.", 2, None),
                ("The user's favorite color is red.", 3, None),
                ("The user's favorite color is blue.", 4, None),
            ],
            [3, 1, 2, 0],
        ),
        (  # a long memory differing in one word is another statement, not a new value
            [
                ("Caroline went to the beach with her kids last summer and loved the green water.", 1, None),
                ("Caroline went to the beach with her kids last summer and loved the blue water.", 3, None),
            ],
            [0, 1],
        ),
    ],
)
def test_short_facts_differing_in_one_word_are_versions_newest_first(
    hits: list[tuple[str, int, str | None]], expected: list[int]
) -> None:
    from memorist.engine.versions import newest_versions_first

    given = _hits(*hits)
    ranked = newest_versions_first(given)
    assert [h.record.id for h in ranked] == [f"m{i}" for i in expected]
    assert [h.score for h in ranked] == [h.score for h in given]


def test_explain_marks_a_newer_version_that_took_a_higher_place() -> None:
    """The console's explain says why a lower raw score ranks first: the hit that moved up is marked."""
    from dataclasses import replace

    from memorist.engine.versions import newest_versions_first

    given = [
        replace(h, details={"score": h.score})
        for h in _hits(("The user's favorite color is red.", 1, None), ("The user's favorite color is blue.", 4, None))
    ]
    ranked = newest_versions_first(given)
    assert [h.record.id for h in ranked] == ["m1", "m0"]
    assert ranked[0].details == {"score": given[1].score, "reordered": "newer_version"}
    assert ranked[1].details == {"score": given[0].score}  # moved down: nothing to explain
    plain = newest_versions_first([replace(h, details=None) for h in given])
    assert plain[0].details is None  # no explain asked: no details made
