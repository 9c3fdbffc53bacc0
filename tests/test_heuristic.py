"""The offline heuristic extractor and the rule-based entity extractor."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memorist.providers import ProviderContext
from memorist.records import ExtractionRequest, Message
from memorist_entities.rules import RuleEntityExtractor
from memorist_heuristic.dates import resolve_relative_dates
from memorist_heuristic.extractor import HeuristicExtractor
from memorist_heuristic.segment import informative_sentences, split_sentences

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # 8 May 2023 was a Monday


@pytest.fixture
def extractor(tmp_path: Path) -> HeuristicExtractor:
    return HeuristicExtractor(HeuristicExtractor.Options(), ProviderContext(tmp_path))


def extract(extractor: HeuristicExtractor, *messages: Message, **kwargs: object) -> list[str]:
    request = ExtractionRequest(messages=list(messages), observed_at=MONDAY, **kwargs)  # type: ignore[arg-type]
    return [f.text for f in extractor.extract(request)]


def test_sentences_are_segmented_without_breaking_abbreviations() -> None:
    text = "I met Dr. Smith at 5 p.m. today! She was great. What a day\nAnyway, bye"
    assert split_sentences(text) == [
        "I met Dr. Smith at 5 p.m. today!",
        "She was great.",
        "What a day",
        "Anyway, bye",
    ]


@pytest.mark.parametrize(
    "filler",
    [
        "Hey Mel!",
        "Thanks, Caroline!",
        "Wow, that's cool!",
        "Haha yeah, so true.",
        "Good to see you!",
        "Ok",
        "lol",
    ],
)
def test_greetings_and_filler_are_dropped(filler: str) -> None:
    assert informative_sentences(filler) == []


def test_bare_questions_are_dropped_but_self_statements_kept() -> None:
    assert informative_sentences("How have you been? What should I read next?") == []
    assert informative_sentences("Did I tell you I adopted a dog?") == ["Did I tell you I adopted a dog?"]


@pytest.mark.parametrize(
    ("phrase", "absolute"),
    [
        ("yesterday", "yesterday (7 May 2023)"),
        ("the day before yesterday", "the day before yesterday (6 May 2023)"),
        ("last week", "last week (the week of 1 May 2023)"),
        ("last year", "last year (2022)"),
        ("next month", "next month (June 2023)"),
        ("last Sunday", "last Sunday (7 May 2023)"),
        ("last Friday", "last Friday (5 May 2023)"),
        ("3 days ago", "3 days ago (5 May 2023)"),
        ("two years ago", "two years ago (2021)"),
        ("last weekend", "last weekend (the weekend of 6 May 2023)"),
        ("in 2 weeks", "in 2 weeks (the week of 22 May 2023)"),
    ],
)
def test_relative_dates_resolve_against_the_observation_time(phrase: str, absolute: str) -> None:
    assert resolve_relative_dates(f"I did it {phrase}.", MONDAY) == f"I did it {absolute}."


def test_memories_stand_alone_with_speaker_and_date(extractor: HeuristicExtractor) -> None:
    texts = extract(
        extractor,
        Message(role="user", content="Hi! I'm moving to my new flat in Oslo next week.", name="Jon"),
    )
    assert texts == ["Jon is moving to their new flat in Oslo next week (the week of 15 May 2023)."]


def test_speaker_without_a_name_is_named_by_role(extractor: HeuristicExtractor) -> None:
    texts = extract(
        extractor,
        Message(role="user", content="I prefer window seats."),
        Message(role="assistant", content="I booked you a window seat on flight LH 123."),
    )
    assert texts == [
        "The user prefers window seats.",
        "The assistant booked you a window seat on flight LH 123.",
    ]


def test_system_messages_are_skipped_by_default(extractor: HeuristicExtractor) -> None:
    assert (
        extract(
            extractor,
            Message(role="system", content="You are a helpful assistant for travel plans."),
        )
        == []
    )


def test_long_messages_are_split_at_sentence_boundaries(tmp_path: Path) -> None:
    small = HeuristicExtractor(HeuristicExtractor.Options(max_chars=80), ProviderContext(tmp_path))
    content = " ".join(f"I visited museum number {i} in the old town." for i in range(6))
    texts = extract(small, Message(role="user", content=content, name="Ana"))
    assert len(texts) > 1 and all(len(t) <= 120 for t in texts)
    assert sum(t.count("museum number") for t in texts) == 6


def test_exclusions_drop_matching_sentences(extractor: HeuristicExtractor) -> None:
    message = Message(role="user", content="My salary is 90k. I love sailing on weekends.", name="Bo")
    assert extract(extractor, message, excludes="salary, income") == ["Bo loves sailing on weekends."]


@pytest.fixture
def entities(tmp_path: Path) -> RuleEntityExtractor:
    return RuleEntityExtractor(RuleEntityExtractor.Options(), ProviderContext(tmp_path))


def test_entities_proper_nouns_quotes_and_noun_phrases(entities: RuleEntityExtractor) -> None:
    found = {
        (e.text, e.kind)
        for e in entities.extract('Melanie read "Becoming Nicole" by Amy Ellis Nutt at the support group.')
    }
    assert ("Melanie", "proper_noun") in found
    assert ("Amy Ellis Nutt", "proper_noun") in found
    assert ("Becoming Nicole", "quoted") in found
    assert ("support group", "noun_phrase") in found


def test_sentence_initial_words_are_not_proper_nouns(entities: RuleEntityExtractor) -> None:
    names = {e.text for e in entities.extract("Thanks! Yesterday I went to Paris. Sounds great.")}
    assert names == {"Paris"}


def test_the_speaker_is_named_once_then_they() -> None:
    from memorist_heuristic.rewrite import standalone

    text = "I've been dancing since I was a kid. My studio opens soon, wish me luck!"
    assert (
        standalone(text, "Jon")
        == "Jon has been dancing since they were a kid. Their studio opens soon, wish them luck!"
    )
    assert standalone("The stories were inspiring!", "Ana") == "Ana: The stories were inspiring!"
