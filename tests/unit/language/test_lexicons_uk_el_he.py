"""A Ukrainian lexicon, and the Greek and Hebrew ones made full.

Ukrainian shares the Cyrillic script with Russian, so a Ukrainian lexicon changes how every
Cyrillic text is told apart: beside Ukrainian sentences stand Russian ones that share words
with them and must keep their language. Greek and Hebrew are the one language of their
script; what their lexicons change is what an add keeps: a short first-person statement is
a fact, a greeting, a thanks or a reply that says nothing is not.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist import Engine as Memory
from memorist.language import language_of, lexicon
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing


@pytest.mark.parametrize(
    "text",
    [
        "Я живу в Києві з дружиною.",
        "Де працює твій брат?",
        "Я вегетаріанка.",
        "Мій новий номер 067 123 45 67.",
        "Мені 34 роки.",
        "Привіт!",
        "Дякую!",
        "Що нового?",
        "У мене є кіт і собака.",
    ],
)
def test_ukrainian_is_told_by_its_letters_and_words(text: str) -> None:
    assert language_of(text) == "uk"


@pytest.mark.parametrize(
    "text",
    [
        "Я живу в Москве.",
        "У меня две кошки.",
        "Как дела?",
        "Я работаю в банке.",
        "Спасибо!",
        "Добрый день!",
        "Доброго дня!",
        "А у нас на прошлой неделе родился сын!",
        "А ещё у нас недавно появился попугай.",
        "Мой брат живёт в Киеве.",
        "Тебе нравится моя новая машина?",
    ],
)
def test_russian_keeps_its_language(text: str) -> None:
    assert language_of(text) == "ru"


@pytest.mark.parametrize(
    ("text", "language"),
    [("Μένω στην Αθήνα.", "el"), ("Καλημέρα!", "el"), ("אני גר בחיפה.", "he"), ("בוקר טוב!", "he")],
)
def test_greek_and_hebrew_keep_their_language(text: str, language: str) -> None:
    assert language_of(text) == language


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    mem = Memory.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    try:
        yield mem
    finally:
        mem.close()


@pytest.mark.parametrize(
    ("said", "reason"),
    [
        ("Привіт!", "greeting"),
        ("Добрий вечір!", "greeting"),
        ("До побачення!", "greeting"),
        ("Дякую!", "thanks"),
        ("Щиро дякую!", "thanks"),
        ("Χαίρετε!", "greeting"),
        ("Τα λέμε!", "greeting"),
        ("Ευχαριστούμε!", "thanks"),
        ("Σ' ευχαριστώ!", "thanks"),
        ("שבוע טוב!", "greeting"),
        ("אהלן!", "greeting"),
        ("מודה לך!", "thanks"),
    ],
)
def test_a_greeting_or_a_thanks_is_not_stored(memory: Memory, said: str, reason: str) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    assert outcome.stored == []
    assert [s.reason for s in outcome.skipped] == [reason]


@pytest.mark.parametrize(
    ("said", "filler"),
    [
        ("Я вегетаріанка. Це чудово!", "Це чудово!"),
        ("У мене двоє котів. Як класно!", "Як класно!"),
        ("Είμαι χορτοφάγος. Ακούγεται υπέροχα!", "Ακούγεται υπέροχα!"),
        ("Έχω δύο γάτες. Τι ωραία!", "Τι ωραία!"),
        ("אני צמחונית. וואו, מגניב!", "וואו, מגניב!"),
        ("יש לי שני חתולים. איזה כיף!", "איזה כיף!"),
    ],
)
def test_a_short_first_person_statement_is_kept_and_filler_beside_it_is_not(
    memory: Memory, said: str, filler: str
) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    fact = said[: said.index(filler)].strip()
    assert [r.text for r in outcome.stored] == [f"The user: {fact}"]
    assert [s.text for s in outcome.skipped] == [filler]


@pytest.mark.parametrize(
    "said",
    [
        "Я теж.",
        "Я теж ні.",
        "Я розумію.",
        "Είμαι έτοιμη.",
        "Ούτε εγώ.",
        "Είμαι κουρασμένη.",
        "אני לא יודעת.",
        "אני מקווה.",
        "אני מוכנה.",
    ],
)
def test_a_first_person_reply_that_says_nothing_is_not_stored(memory: Memory, said: str) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    assert outcome.stored == []


@pytest.mark.parametrize("code", ["uk", "el", "he"])
def test_each_lexicon_has_the_lists_a_full_lexicon_has(code: str) -> None:
    """The lists every full lexicon holds, so the rules written for them read this language
    too; a list a language cannot use is named in its file's header instead."""
    lex = lexicon(code)
    for name in (
        "function_words",
        "first_person",
        "hollow_self",
        "greetings",
        "thanks",
        "fillers",
        "exclusive_attributes",
        "attribute_phrases",
        "age_frame",
        "state_openers",
        "onset_words",
        "preference_words",
        "additive_words",
        "recency_words",
        "novelty_words",
        "replacement_words",
        "unit_words",
        "quantity_changes",
        "partner_words",
        "relatives",
        "addressee_openers",
        "speaker_words",
        "counted_things",
        "count_words",
        "slot_qualifiers",
        "clause_joiners",
        "adding_joiners",
        "change_frames",
        "negation_frames",
        "reporting_frames",
        "reporting_openers",
        "coordinators",
        "replacement_markers",
        "now_words",
        "value_words",
        "group_speaker_words",
        "listener_words",
    ):
        assert lex.get(name), (code, name)
    for attribute in ("phone", "email", "residence", "employer", "relationship", "age", "diet", "salary", "school"):
        assert lex.words("exclusive_attributes", attribute), (code, attribute)
    assert not lex.get("attribute_prototypes"), code
