"""The offline heuristic extractor and the rule-based entity extractor."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memorist.language import sentences
from memorist.plugin.contracts import ProviderContext
from memorist.records import ContextWanted, ExtractionRequest, Message
from memorist_entities.rules import RuleEntityExtractor
from memorist_heuristic.dates import resolve_relative_dates
from memorist_heuristic.extractor import HeuristicExtractor
from memorist_heuristic.segment import informative_sentences

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # 8 May 2023 was a Monday


@pytest.fixture
def extractor(tmp_path: Path) -> HeuristicExtractor:
    return HeuristicExtractor(HeuristicExtractor.Options(), ProviderContext(tmp_path))


def extract(extractor: HeuristicExtractor, *messages: Message, **kwargs: object) -> list[str]:
    request = ExtractionRequest(messages=list(messages), observed_at=MONDAY, **kwargs)  # type: ignore[arg-type]
    return [f.text for f in extractor.extract(request)]


def test_sentences_are_segmented_without_breaking_abbreviations() -> None:
    text = "I met Dr. Smith at 5 p.m. today! She was great. What a day\nAnyway, bye"
    assert sentences(text) == [
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
        # "in 2 weeks" after a past verb is how long it took (see test_dates_ahead.py)
        ("in 2 weeks", "in 2 weeks"),
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


@pytest.mark.parametrize(
    ("said", "remembered"),
    [
        # Two facts a later message may each change: two memories (one memory per fact).
        ("Hi, I'm Max. I work as a nurse in Leeds.", ["The user is Max.", "The user works as a nurse in Leeds."]),
        ("Oh wait, the appointment moved to Monday.", "The user: The appointment moved to Monday."),
        ("Hello there, my cat is called Tom.", "The user's cat is called Tom."),
        ("Well, I moved to Porto in 2021.", "The user moved to Porto in 2021."),
        # acknowledgements answer the other person, and openers count only opening a message
        ("No, I don't eat meat.", "No, the user doesn't eat meat."),
        ("I like tea. Well, I love it.", "The user likes tea. Well, they love it."),
        # announcements carry nothing of what follows; nor does a link to what was said before
        ("Great news: I got the job!", "The user got the job!"),
        ("Big news! I got engaged to Priya.", "The user got engaged to Priya."),
        ("Guess what, Priya wants a beach ceremony.", "The user: Priya wants a beach ceremony."),
        ("Oh and I need to book a venue.", "The user needs to book a venue."),
        ("Also my budget is about $3000.", "The user's budget is about $3000."),
        ("Andrew and I went hiking.", "Andrew and the user went hiking."),
        # an aside closing any sentence, but not a title
        ("I like tea. I prefer window seats btw", "The user likes tea. They prefer window seats"),
        ("I moved to Leeds, by the way.", "The user moved to Leeds."),
        ("I just finished By the Way.", "The user just finished By the Way."),
        # hesitations and discourse markers
        ("Actually I moved from Berlin to Munich.", "The user moved from Berlin to Munich."),
        ("So, um, I think I might learn Japanese.", "The user thinks they might learn Japanese."),
        ("Oh and by the way, my wife is called Sara.", "The user's wife is called Sara."),
        ("Honestly, the best pizza is in Naples.", "The user: The best pizza is in Naples."),
        # a request to remember states the fact; a request to be reminded is what the user wants
        ("Remember that I'm vegetarian.", "The user is vegetarian."),
        ("Please remember my wife's birthday is June 5.", "The user's wife's birthday is June 5."),
        ("Can you remember that my son's name is Leo?", "The user's son's name is Leo."),
        ("Note: I prefer aisle seats.", "The user prefers aisle seats."),
        ("Oh, and keep in mind that I hate cilantro.", "The user hates cilantro."),
        ("Just so you know, I'm lactose intolerant.", "The user is lactose intolerant."),
        ("FYI my flight leaves at 6am.", "The user's flight leaves at 6am."),
        ("Remind me to renew my passport.", "The user wants to be reminded to renew their passport."),
        ("Could you remind me about the dentist?", "The user wants to be reminded about the dentist."),
        ("Remember the milk.", "The user: Remember the milk."),  # an errand, not a fact to strip
        # one of two joined people is named ("they" would read as both)
        ("My husband and I are going to Portugal.", "The user's husband and the user are going to Portugal."),
        ("She invited my brother and me to dinner.", "She invited the user's brother and the user to dinner."),
        ("I study law and I watch films.", "The user studies law and they watch films."),
        ("My name is Ada and I live in Lisbon.", ["The user's name is Ada.", "The user lives in Lisbon."]),
        ("Yesterday my dad and I went fishing.", "Yesterday (7 May 2023) the user's dad and the user went fishing."),
    ],
)
def test_a_message_opening_with_a_greeting_is_remembered_without_it(
    extractor: HeuristicExtractor, said: str, remembered: str | list[str]
) -> None:
    expected = [remembered] if isinstance(remembered, str) else remembered
    assert extract(extractor, Message(role="user", content=said)) == expected


def test_speaker_without_a_name_is_named_by_role(extractor: HeuristicExtractor) -> None:
    texts = extract(
        extractor,
        Message(role="user", content="I prefer window seats."),
        Message(role="assistant", content="I booked you a window seat on flight LH 123."),
    )
    assert texts == [
        "The user prefers window seats.",
        "The assistant booked the user a window seat on flight LH 123.",
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


# -- corrections: "make that $4000" restates the fact it corrects ------------------------------


@pytest.mark.parametrize(
    ("said", "correction", "restated", "rest"),
    [
        (
            "I don't eat meat, and my budget is about $3000.",
            "Actually, make that $4000, my partner is joining.",
            "I don't eat meat, and my budget is about $4000.",
            "My partner is joining.",
        ),
        ("We'll be 4 people at 7pm.", "Sorry, make it 5.", "We'll be 5 people at 7pm.", None),  # not the 7 of 7pm
        ("We'll be 4 people at 7pm.", "Make it 8pm.", "We'll be 4 people at 8pm.", None),
        ("My dentist is on Monday at 9:30.", "Actually I meant Tuesday.", "My dentist is on Tuesday at 9:30.", None),
        ("Her birthday is on February 28th.", "No, make that March 3rd.", "Her birthday is on March 3rd.", None),
        ("Rent is $1,200 per month.", "Make that $1,500 per month.", "Rent is $1,500 per month.", None),
        ("My phone number is 555-1234.", "Actually, make that 555-0000.", "My phone number is 555-0000.", None),
        ("A table for 4 people on 3/14.", "Make it 5.", "A table for 5 people on 3/14.", None),  # not the date
        ("A table for 4 people on 3/14.", "I meant 3/15.", "A table for 4 people on 3/15.", None),
        ("We'll be 5 at dinner.", "Make it 6 because Tom is coming.", "We'll be 6 at dinner.", "Tom is coming."),
    ],
)
def test_a_correction_restates_the_earlier_value_of_its_kind(
    said: str, correction: str, restated: str, rest: str | None
) -> None:
    from memorist_heuristic.corrections import Restated, restate

    assert restate(correction, ["I live in Oslo.", said]) == Restated(restated, rest, source=1)


@pytest.mark.parametrize(
    ("said", "sentence"),
    [
        ("I have a dog.", "Make that 2."),  # no earlier number: kept as said
        ("My budget is $3000.", "Make that Tuesday."),  # a weekday corrects no amount
        ("My budget is $3000.", "I want to make that trip in May."),  # not a correction
    ],
)
def test_what_corrects_nothing_earlier_is_not_restated(said: str, sentence: str) -> None:
    from memorist_heuristic.corrections import restate

    assert restate(sentence, [said]) is None


def test_a_correction_in_one_add_becomes_a_memory_worded_as_the_fact_it_corrects(
    extractor: HeuristicExtractor,
) -> None:
    texts = extract(
        extractor,
        Message(role="user", content="I don't eat meat, and my budget is about $3000."),
        Message(role="assistant", content="The hotel I found costs $200 a night."),
        Message(role="user", content="Actually, make that $4000, my partner is joining."),
    )
    assert texts == [
        "The user doesn't eat meat.",  # a fact of its own (one memory per fact)
        "The user's budget is about $3000.",
        "The hotel the assistant found costs $200 a night.",
        "The user's budget is about $4000.",  # the user's value, not the hotel's
        "The user's partner is joining.",
    ]


def test_a_correction_in_its_own_add_restates_the_scopes_recent_memory(extractor: HeuristicExtractor) -> None:
    from memorist.records import RecentMemory

    just_before = RecentMemory(
        text="The user's budget for the trip is about $3000.", attributed_to="user", observed_at=MONDAY
    )
    assistant = RecentMemory(text="The hotel costs $200 a night.", attributed_to="assistant", observed_at=MONDAY)
    request = ExtractionRequest(
        messages=[Message(role="user", content="Actually, make that $4000, my partner is joining.")],
        observed_at=MONDAY,
        recent=[just_before, assistant],
    )
    assert extractor.context_wanted(request).recent > 0
    assert [f.text for f in extractor.extract(request)] == [
        "The user's budget for the trip is about $4000.",  # stored text, value replaced; not the assistant's
        "The user's partner is joining.",
    ]
    # A week-old value is not what "make that" refers to: the sentence is kept as said.
    old = just_before.model_copy(update={"observed_at": datetime(2023, 5, 1, tzinfo=UTC)})
    stale = request.model_copy(update={"recent": [old]})
    assert [f.text for f in extractor.extract(stale)] == ["Make that $4000, the user's partner is joining."]


def test_only_an_add_holding_a_correction_asks_for_recent_memories(extractor: HeuristicExtractor) -> None:
    def wanted(content: str) -> int:
        request = ExtractionRequest(messages=[Message(role="user", content=content)], observed_at=MONDAY)
        return extractor.context_wanted(request).recent

    assert wanted("Sorry, make it 8pm.") > 0 and wanted("Oops, I meant Tuesday.") > 0
    assert wanted("I can make it to the party.") == wanted("I like tea.") == 0


def test_only_an_add_opening_with_a_bare_reply_asks_for_the_open_question(extractor: HeuristicExtractor) -> None:
    def wanted(*messages: Message) -> ContextWanted:
        return extractor.context_wanted(ExtractionRequest(messages=list(messages), observed_at=MONDAY))

    for reply in ("27", "No.", "Vegetarian, and no nuts please.", "Tokyo."):
        assert wanted(Message(role="user", content=reply)) == ContextWanted(question=True), reply
    assert wanted(Message(role="user", content="I adopted a beagle named Rex.")) == ContextWanted()
    assert wanted(Message(role="assistant", content="27")) == ContextWanted()  # the assistant's line answers nothing
    assert wanted() == ContextWanted()
    both = wanted(Message(role="user", content="No."), Message(role="user", content="Actually, make that $4000."))
    assert both.question and both.recent > 0  # every need stated in one answer


@pytest.mark.parametrize(
    ("question", "reply", "remembered"),
    [
        ("How old are you?", "27", 'The assistant asked "How old are you?" The user replied: 27'),
        ("Where do you live?", "Tokyo.", 'The assistant asked "Where do you live?" The user replied: Tokyo.'),
        ("Do you have any pets?", "No.", 'The assistant asked "Do you have any pets?" The user replied: No.'),
        (
            "Shall I book the 7pm table?",
            "Yeah, sure!",
            'The assistant asked "Shall I book the 7pm table?" The user replied: Yeah, sure!',
        ),
        (
            "Do you have any pets?",
            "No. But I want a cat.",
            'The assistant asked "Do you have any pets?" No. But the user wants a cat.',
        ),
    ],
)
def test_a_short_reply_to_a_question_is_the_fact(
    extractor: HeuristicExtractor, question: str, reply: str, remembered: str
) -> None:
    """ "27" alone is nothing; answering "How old are you?" it is the user's age."""
    said = extract(extractor, Message(role="assistant", content=question), Message(role="user", content=reply))
    assert said == [remembered]


@pytest.mark.parametrize("reply", ["haha", "Wow!", "Thanks!"])
def test_a_laugh_or_thanks_after_a_question_answers_nothing(extractor: HeuristicExtractor, reply: str) -> None:
    said = Message(role="assistant", content="Shall I book the 7pm table?")
    assert extract(extractor, said, Message(role="user", content=reply)) == []
    assert extract(extractor, Message(role="user", content="27")) == []  # and no question: no answer
    # an assistant's "Sure!" says nothing about the user
    asked = Message(role="user", content="Can you help me plan meals?")
    assert extract(extractor, asked, Message(role="assistant", content="Sure!")) == []


def test_an_assistants_acknowledgement_is_not_remembered(extractor: HeuristicExtractor) -> None:
    said = extract(
        extractor,
        Message(role="user", content="I love sushi."),
        Message(role="assistant", content="Got it, you love sushi. Noted! I'll suggest sushi places."),
    )
    assert said == ["The user loves sushi.", "The user loves sushi. The assistant will suggest sushi places."]
