"""One notion of "this word opens a sentence", shared by the segmenter, the versions of a
fact and the rule-based entity extractor: a sentence's end mark of any script ("。", "؟",
"।", "！"), Spanish "¿" and "¡" that open one, and quotes of every language."""

from __future__ import annotations

from pathlib import Path

import pytest
from memorist.engine.versions import version_key
from memorist.language import CAPITALS_OPEN_AFTER, Boundary, at_sentence_start, sentences
from memorist.plugin_api import ProviderContext
from memorist_entities.rules import RuleEntityExtractor


def _starts(text: str, word: str, at: Boundary = CAPITALS_OPEN_AFTER) -> bool:
    return at_sentence_start(text, text.index(word), at)


@pytest.mark.parametrize(
    "text",
    [
        "東京に住んでいます。Anna ist meine Schwester.",
        "我住在上海！Anna is my sister.",
        "هل تعرفها؟ Anna is my sister.",
        "मैं दिल्ली में रहता हूँ। Anna is my sister.",
        "Vivo en Madrid. ¿Anna vive aquí también?",
        "¡Anna, qué sorpresa!",
        "Er sagte: „Anna kommt morgen.“",
        "Il a dit : «Anna arrive demain.»",
        'She said "Done." Anna left.',
        "I met her at the station. Anna is my sister.",
        "Note: Anna is my sister.",
    ],
)
def test_a_word_after_any_scripts_sentence_end_or_opening_mark_opens_a_sentence(text: str) -> None:
    assert _starts(text, "Anna")


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("My sister Anna lives in Tokyo.", "Anna"),
        ("We saw Dr. Lee yesterday.", "Lee"),  # an abbreviation's full stop
        ("It cost 3.5 euros.", "5"),  # a Western mark touching the next sign parts nothing
        ('I read "Dune" Anna said.', "Anna"),  # a closing quote is passed over, to "Dune"
        ("東京、Anna と一緒に行きました。", "Anna"),  # an ideographic comma ends no sentence
    ],
)
def test_a_word_inside_a_sentence_opens_none(text: str, word: str) -> None:
    assert not _starts(text, word)


def test_colons_and_semicolons_open_a_sentence_for_capitals_only() -> None:
    # Person shift capitalizes at a sentence's end only; a capital after a colon is no name.
    text = "Some background: you know Anna."
    assert _starts(text, "you", CAPITALS_OPEN_AFTER)
    assert not _starts(text, "you", Boundary.SENTENCE)


@pytest.mark.parametrize(
    "text",
    [
        "東京に住んでいます。Anna ist meine Schwester.",
        "我住在上海！Anna is my sister.",
        "هل تعرفها؟ Anna is my sister.",
        "मैं दिल्ली में रहता हूँ। Anna is my sister.",
        "I met her at the station. Anna is my sister.",
    ],
)
def test_a_sentence_opening_capital_is_no_value_in_a_facts_version_key(text: str) -> None:
    # A capitalized word not opening a sentence is a value ("lives in Lisbon" / "in Porto");
    # one opening a sentence is not, after "。" or "؟" as after ".".
    assert "anna" in (version_key(text) or "").split()


def test_spanish_opening_marks_keep_the_question_word_out_of_the_values() -> None:
    assert (version_key("¿Dónde vive Anna ahora?") or "").split()[:3] == ["¿", "dónde", "vive"]


@pytest.fixture
def entities(tmp_path: Path) -> RuleEntityExtractor:
    return RuleEntityExtractor(RuleEntityExtractor.Options(), ProviderContext(tmp_path))


@pytest.mark.parametrize(
    "first",
    ["今日は疲れた。", "هل أنت بخير؟ ", "मैं थक गया हूँ। ", "I'm tired. ", "Vale. ¿Sabes qué? "],
)
def test_a_sentence_opening_common_word_is_no_name_after_any_scripts_end(
    entities: RuleEntityExtractor, first: str
) -> None:
    names = {
        e.text for e in entities.extract(first + "Honestly the trip to Paris was long.") if e.kind == "proper_noun"
    }
    assert "Honestly" not in names
    assert "Paris" in names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Vivo en Madrid. ¿Dónde vives tú? ¡Qué bien! Yo también.",
            ["Vivo en Madrid.", "¿Dónde vives tú?", "¡Qué bien!", "Yo también."],
        ),
        ("Er sagte: „Fertig.“ Dann ging er.", ["Er sagte: „Fertig.“", "Dann ging er."]),
        ("Il a dit «Fini.» Ensuite il est parti.", ["Il a dit «Fini.»", "Ensuite il est parti."]),
    ],
)
def test_sentences_open_with_spanish_marks_and_close_with_any_languages_quotes(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected
