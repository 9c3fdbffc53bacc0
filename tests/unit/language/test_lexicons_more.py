"""Dutch, Swedish, Polish and Turkish lexicons, and the Arabic and Hindi ones made full.

A new Latin-script lexicon changes how every Latin-script text is told apart (its function
words count for it, and a word two languages share counts half for each), so beside each
new language's own sentences stand English, German, Spanish, French, Italian and Portuguese
ones that share words with it and must keep their language. What an add keeps: a short
first-person statement is a fact, a greeting or a thanks in the speaker's language is not.
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

NEW = ("nl", "sv", "pl", "tr")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Ik woon sinds vorig jaar in Utrecht.", "nl"),
        ("Waar woont je broer?", "nl"),
        ("Ik ben vegetariër.", "nl"),
        ("Mijn nummer is 06-12345678.", "nl"),
        ("Jag bor i Göteborg med min sambo.", "sv"),
        ("Var jobbar din syster?", "sv"),
        ("Jag är vegetarian.", "sv"),
        ("Mitt nya nummer är 070-1234567.", "sv"),
        ("Mieszkam w Krakowie od dwóch lat.", "pl"),
        ("Gdzie pracuje twój brat?", "pl"),
        ("Jestem wegetarianką.", "pl"),
        ("Mój nowy numer to 601 234 567.", "pl"),
        ("İzmir'de yaşıyorum.", "tr"),
        ("Bir kedim ve bir köpeğim var.", "tr"),
        ("Kardeşin nerede çalışıyor?", "tr"),
        ("Ben öğretmenim ve çok mutluyum.", "tr"),
    ],
)
def test_each_new_language_is_told_by_its_words_and_letters(text: str, language: str) -> None:
    assert language_of(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # English words spelled like Dutch, Swedish, Polish or Turkish ones
        ("I bought a van yesterday.", "en"),
        ("The men stayed till midnight.", "en"),
        ("We had a great time in Amsterdam with Ben.", "en"),
        ("My sister is at home with her dog.", "en"),
        ("I want to go to Istanbul next year.", "en"),
        ("Hej, I am Erik and I live in Stockholm.", "en"),
        ("I'm seeing someone named Kim.", "en"),
        ("John's ten year old dog, Max, passes away.", "en"),
        # the other Latin-script languages, whose words the new ones share in part
        ("Ich habe einen Hund und eine Katze.", "de"),
        ("Wo wohnt sein Bruder?", "de"),
        ("Mein Freund ist Lehrer.", "de"),
        ("Ich wohne in Hamburg.", "de"),
        ("Wie alt ist er?", "de"),
        ("Vivo en Granada.", "es"),
        ("Mi nuevo jefe es Andrés.", "es"),
        ("Ça va.", "fr"),
        ("Hola, me llamo Ana y vivo en Madrid.", "es"),
        ("Je suis végétarienne depuis deux ans.", "fr"),
        ("Ho un fratello e una sorella.", "it"),
        ("Eu moro no Porto com o meu namorado.", "pt"),
        ("De manhã bebo um café.", "pt"),
    ],
)
def test_the_other_latin_script_languages_keep_their_language(text: str, language: str) -> None:
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
        ("Hoi!", "greeting"),
        ("Goedemorgen!", "greeting"),
        ("Dank je wel!", "thanks"),
        ("Bedankt!", "thanks"),
        ("Hejsan!", "greeting"),
        ("Hej då!", "greeting"),
        ("Tack så mycket!", "thanks"),
        ("Cześć!", "greeting"),
        ("Dzień dobry!", "greeting"),
        ("Dziękuję bardzo!", "thanks"),
        ("Merhaba!", "greeting"),
        ("Günaydın!", "greeting"),
        ("Teşekkür ederim!", "thanks"),
        ("صباح النور!", "greeting"),
        ("مشكور!", "thanks"),
        ("प्रणाम!", "greeting"),
        ("थैंक्यू!", "thanks"),
    ],
)
def test_a_greeting_or_a_thanks_is_not_stored(memory: Memory, said: str, reason: str) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    assert outcome.stored == []
    assert [s.reason for s in outcome.skipped] == [reason]


@pytest.mark.parametrize(
    ("said", "filler"),
    [
        ("Ik ben vegetariër. Dat klinkt goed!", "Dat klinkt goed!"),
        ("Jag har två katter. Vad kul!", "Vad kul!"),
        ("Jestem wegetarianką. Nie ma sprawy!", "Nie ma sprawy!"),
        ("Bir kedim var. Çok güzel!", "Çok güzel!"),
        ("أنا نباتي. يا سلام، رائع!", "يا سلام، رائع!"),
        ("मैं शाकाहारी हूँ। ठीक है, बहुत बढ़िया!", "ठीक है, बहुत बढ़िया!"),
    ],
)
def test_a_short_first_person_statement_is_kept_and_filler_beside_it_is_not(
    memory: Memory, said: str, filler: str
) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    fact = said[: said.index(filler)].strip()
    assert [r.text for r in outcome.stored] == [f"The user: {fact}"]
    assert [s.text for s in outcome.skipped] == [filler]


@pytest.mark.parametrize(("said", "kept"), [("Bekarım.", True), ("Öğrenciyim.", True), ("Merhaba Elif!", False)])
def test_a_one_word_turkish_statement_is_kept_and_a_name_alone_is_not(memory: Memory, said: str, kept: bool) -> None:
    """Turkish marks the person with an ending, so "Bekarım." ("I am single") is a whole
    statement in one capitalized word, not a name called out ("Merhaba Elif!")."""
    outcome = memory.add_outcome(said, user_id="ana")
    assert [r.text for r in outcome.stored] == ([f"The user: {said}"] if kept else [])


@pytest.mark.parametrize(
    "said",
    ["Ik ook.", "Ik weet het niet.", "Jag håller med.", "Jag vet inte.", "Zgadzam się.", "Nie wiem."],
)
def test_a_first_person_reply_that_says_nothing_is_not_stored(memory: Memory, said: str) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    assert outcome.stored == []


@pytest.mark.parametrize("code", [*NEW, "ar", "hi"])
def test_each_lexicon_has_the_lists_a_full_lexicon_has(code: str) -> None:
    """The lists every full lexicon holds (it.yaml's), so the rules written for them read this
    language too; a list a language cannot use is named in its file's header instead."""
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
        "preference_words",
        "additive_words",
        "recency_words",
        "novelty_words",
        "replacement_words",
        "unit_words",
        "partner_words",
        "relatives",
        "addressee_openers",
        "speaker_words",
        "slot_qualifiers",
        "clause_joiners",
        "adding_joiners",
        "counted_things",
    ):
        assert lex.get(name), (code, name)
    for attribute in ("phone", "email", "residence", "employer", "relationship", "age", "diet"):
        assert lex.words("exclusive_attributes", attribute), (code, attribute)
