"""Indonesian, Vietnamese, Czech and Danish lexicons.

A new Latin-script lexicon changes how every Latin-script text is told apart (its function
words count for it, and a word two languages share counts half for each), so beside each new
language's own sentences stand sentences of the languages it shares words with (Danish with
Swedish, German and English; Czech with Polish and French; Indonesian with Italian and
Portuguese) that must keep their language. What an add keeps: a short first-person statement
is a fact, a greeting or a thanks in the speaker's language is not.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist import Engine as Memory
from memorist.language import language_of, lexicon, words
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing

NEW = ("id", "vi", "cs", "da")


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Saya tinggal di Bandung sejak tahun lalu.", "id"),
        ("Di mana kakakmu bekerja?", "id"),
        ("Saya vegetarian.", "id"),
        ("Aku punya dua kucing.", "id"),
        ("Tôi sống ở Hà Nội với chồng tôi.", "vi"),
        ("Anh trai bạn làm việc ở đâu?", "vi"),
        ("Tôi ăn chay.", "vi"),
        ("Số điện thoại mới của tôi là 0912 345 678.", "vi"),
        ("Bydlím v Brně už dva roky.", "cs"),
        ("Kde pracuje tvůj bratr?", "cs"),
        ("Jsem vegetariánka.", "cs"),
        ("Moje nové číslo je 602 123 456.", "cs"),
        ("Jeg bor i Aarhus med min kæreste.", "da"),
        ("Hvor arbejder din søster?", "da"),
        ("Jeg er vegetar.", "da"),
        ("Jeg har også en hund.", "da"),
    ],
)
def test_each_new_language_is_told_by_its_words_and_letters(text: str, language: str) -> None:
    assert language_of(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        # English words spelled like Danish, Indonesian or Czech ones
        ("Dan and I went to Bali for a week.", "en"),
        ("I moved to Denmark for her job.", "en"),
        ("The dog is mine, not hers.", "en"),
        ("My friend Ada lives in Jakarta.", "en"),
        # the languages the new ones share words with
        ("Jag har en katt och en hund.", "sv"),
        ("Jag bor i Göteborg med min sambo.", "sv"),
        ("Var jobbar din syster?", "sv"),
        ("Wie alt ist er?", "de"),
        ("Ich habe den Hund gestern gesehen.", "de"),
        ("Ich wohne mit meiner Freundin in Berlin.", "de"),
        ("Tak, mieszkam w Krakowie.", "pl"),
        ("Mam kota i psa.", "pl"),
        ("Gdzie pracuje twój brat?", "pl"),
        ("Je suis végétarienne depuis deux ans.", "fr"),
        ("Je ne mange plus de viande.", "fr"),
        ("Mi nuevo jefe es Andrés.", "es"),
        ("Se llama Ana y vive en Madrid.", "es"),
        ("Ho un fratello e una sorella.", "it"),
        ("Hai un cane?", "it"),
        ("Lavoro di notte.", "it"),
        ("Eu moro no Porto com o meu namorado.", "pt"),
        ("Ele trabalha todo dia em Lisboa.", "pt"),
        ("Ik woon met hun kinderen in Utrecht.", "nl"),
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
        ("Selamat pagi!", "greeting"),
        ("Sampai jumpa besok!", "greeting"),
        ("Terima kasih banyak!", "thanks"),
        ("Makasih!", "thanks"),
        ("Xin chào!", "greeting"),
        ("Tạm biệt!", "greeting"),
        ("Cảm ơn bạn nhiều!", "thanks"),
        ("Ahoj!", "greeting"),
        ("Dobrý den!", "greeting"),
        ("Děkuji moc!", "thanks"),
        ("Godmorgen!", "greeting"),
        ("Farvel!", "greeting"),
        ("Tusind tak!", "thanks"),
        ("Mange tak!", "thanks"),
    ],
)
def test_a_greeting_or_a_thanks_is_not_stored(memory: Memory, said: str, reason: str) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    assert outcome.stored == []
    assert [s.reason for s in outcome.skipped] == [reason]


@pytest.mark.parametrize(
    ("said", "filler"),
    [
        ("Saya vegetarian. Wah, itu keren sekali!", "Wah, itu keren sekali!"),
        ("Aku punya dua kucing. Itu bagus sekali!", "Itu bagus sekali!"),
        ("Tôi ăn chay. Nghe hay đấy!", "Nghe hay đấy!"),
        ("Tôi có hai con mèo. Tuyệt vời!", "Tuyệt vời!"),
        ("Jsem vegetariánka. To zní skvěle!", "To zní skvěle!"),
        ("Mám dvě kočky. Paráda, to zní skvěle!", "Paráda, to zní skvěle!"),
        ("Jeg er vegetar. Hvor fedt!", "Hvor fedt!"),
        ("Jeg har to katte. Hvor dejligt!", "Hvor dejligt!"),
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
        "Saya juga.",
        "Saya tidak tahu.",
        "Tôi cũng vậy.",
        "Tôi không biết.",
        "Já taky.",
        "Já taky ne.",
        "Jeg ved det ikke.",
        "Jeg er enig.",
    ],
)
def test_a_first_person_reply_that_says_nothing_is_not_stored(memory: Memory, said: str) -> None:
    outcome = memory.add_outcome(said, user_id="ana")
    assert outcome.stored == []


@pytest.mark.parametrize("code", NEW)
def test_each_lexicon_has_the_lists_a_full_lexicon_has(code: str) -> None:
    """The lists every full lexicon holds (nl.yaml's), so the rules written for them read this
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
        "role_frame",
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
        "copulas",
        "partner_words",
        "relatives",
        "addressee_openers",
        "speaker_words",
        "counted_things",
        "count_words",
        "ordinal_words",
        "slot_qualifiers",
        "clause_joiners",
        "adding_joiners",
        "change_frames",
        "reporting_frames",
        "reporting_openers",
        "coordinators",
        "replacement_markers",
        "now_words",
        "value_words",
        "group_speaker_words",
        "group_attributes",
        "listener_words",
    ):
        assert lex.get(name), (code, name)
    assert lex.get("attribute_prototypes") is None, code
    for attribute in ("phone", "email", "residence", "employer", "relationship", "age", "diet"):
        named = lex.words("exclusive_attributes", attribute) or lex.phrases("attribute_phrases", attribute)
        assert named, (code, attribute)


@pytest.mark.parametrize("code", NEW)
def test_each_lexicon_lists_unrelated_statements_in_its_language(code: str) -> None:
    """The chance-level cosine's data (see test_unrelated_statements.py): six to eight
    distinct short statements, told as this language but for at most one (a Czech or Danish
    sentence with no word or letter of its own reads as a neighbour's; see the headers)."""
    statements = [str(s) for s in lexicon(code).get("unrelated_statements") or ()]
    assert 6 <= len(statements) <= 8, code
    assert len(set(statements)) == len(statements)
    assert all(len(words(s)) <= 20 for s in statements)
    assert sum(language_of(s) != code for s in statements) <= 1, code
