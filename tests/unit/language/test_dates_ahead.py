"""Reading "in two years": a date ahead in a clause about the future, else a length of time.

"My brother Rui and I haven't spoken in two years." was remembered as "... in two years
(2025)": a duration read as a date. The amount is resolved forward only where its clause
says the future (a future or modal marker, a plan, "we're moving", "the wedding is in ...",
words of the lexicon), never in a perfect or a negated clause.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memorist.plugin.contracts import ProviderContext
from memorist.records import ExtractionRequest, Message
from memorist_heuristic.dates import resolve_relative_dates
from memorist_heuristic.extractor import HeuristicExtractor

MONDAY = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


@pytest.mark.parametrize(
    "said",
    [
        "My brother Rui and I haven't spoken in two years.",
        "I haven't seen her in a year.",
        "We have not talked in three months.",
        "I haven't been going to the gym in two months.",
        "I lost 5 kilos in two months.",
        "I learned Spanish in two years.",
        "I did it in 2 weeks.",
        "This is the first snow in two years.",
        "Rui's wedding was in two weeks.",
        "I'm not going to see him in two years.",
    ],
)
def test_a_length_of_time_is_left_as_said(said: str) -> None:
    assert resolve_relative_dates(said, MONDAY) == said


@pytest.mark.parametrize(
    ("said", "remembered"),
    [
        ("We're moving to Berlin in two weeks.", "We're moving to Berlin in two weeks (the week of 22 May 2023)."),
        ("I'll see her in a month.", "I'll see her in a month (June 2023)."),
        ("I will do it in 2 weeks.", "I will do it in 2 weeks (the week of 22 May 2023)."),
        ("The wedding is in two months.", "The wedding is in two months (July 2023)."),
        ("My birthday's in three weeks.", "My birthday's in three weeks (the week of 29 May 2023)."),
        ("We plan to get married in a year.", "We plan to get married in a year (2024)."),
        ("I start my new job in two weeks.", "I start my new job in two weeks (the week of 22 May 2023)."),
        ("In two weeks, I'm flying to Tokyo.", "In two weeks (the week of 22 May 2023), I'm flying to Tokyo."),
        ("I can't wait, we're leaving in 3 days!", "I can't wait, we're leaving in 3 days (11 May 2023)!"),
        (  # each clause by its own tense
            "I haven't spoken to him in two years, but I'll call him in a week.",
            "I haven't spoken to him in two years, but I'll call him in a week (the week of 15 May 2023).",
        ),
        (
            "I finished the course in 3 months and I'm starting a new one in 2 weeks.",
            "I finished the course in 3 months and I'm starting a new one in 2 weeks (the week of 22 May 2023).",
        ),
    ],
)
def test_an_amount_ahead_in_a_clause_about_the_future_is_a_date(said: str, remembered: str) -> None:
    assert resolve_relative_dates(said, MONDAY) == remembered


@pytest.mark.parametrize(
    "said",
    [
        "Ich habe meinen Bruder seit zwei Jahren nicht gesehen.",
        "Je ne l'ai pas vu depuis deux ans.",
        "No hablo con mi hermano desde hace dos años.",
        "Non lo vedo da due anni.",
    ],
)
def test_durations_in_other_languages_get_no_date(said: str) -> None:
    assert resolve_relative_dates(said, MONDAY) == said


def test_the_measured_memory_keeps_its_duration(tmp_path: Path) -> None:
    extractor = HeuristicExtractor(HeuristicExtractor.Options(), ProviderContext(tmp_path))
    request = ExtractionRequest(
        messages=[Message(role="user", content="My brother Rui and I haven't spoken in two years.")],
        observed_at=MONDAY,
    )
    assert [f.text for f in extractor.extract(request)] == [
        "The user's brother Rui and they haven't spoken in two years."
    ]
