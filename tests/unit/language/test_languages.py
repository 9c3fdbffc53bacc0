"""Nothing is dropped for its language or script, and a question finds a fact in its language.

Small natural facts in twelve languages and eight scripts (Latin, Cyrillic, Greek, Arabic and
Hebrew written right to left, Devanagari, Chinese and Japanese, Hangul, Thai). Before the
language layer, six of eight such facts in non-Latin scripts were skipped as "filler", and the
keyword index split on Latin word boundaries only. The hashing embedder is used throughout:
what finds the facts here is the keyword signal, which works without a multilingual model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist import Engine as Memory
from memorist.engine.keywords import index_terms, terms
from memorist.language import language_of
from memorist.plugin.contracts import ProviderContext
from memorist.plugin.manager import load_plugins
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN
from memorist_entities.rules import RuleEntityExtractor
from memorist_heuristic.rewrite import third_person
from memorist_heuristic.segment import skip_reason

from tests.conftest import fast_settings
from tests.plugins import hashing

#: (language, a fact, a question in the same language that shares words with it)
FACTS = [
    ("ja", "私は東京で働いています。", "東京で働いていますか？"),
    ("zh", "我在上海当老师。", "谁在上海当老师？"),
    ("ko", "저는 서울에서 의사로 일해요.", "서울에서 무슨 일을 해요?"),
    ("ar", "أعمل مهندسة في القاهرة.", "أين أعمل مهندسة؟"),
    ("he", "אני גרה בתל אביב עם החתול שלי.", "איפה אני גרה?"),
    ("ru", "Я живу в Москве и работаю программистом.", "Где я живу и работаю?"),
    ("hi", "मैं दिल्ली में रहता हूँ।", "मैं कहाँ रहता हूँ?"),
    ("th", "ฉันทำงานที่กรุงเทพ", "ทำงานที่ไหน"),
    ("el", "Μένω στην Αθήνα με τον σκύλο μου.", "Πού μένω;"),
    ("de", "Ich wohne in Berlin und trinke gerne grünen Tee.", "Welchen Tee trinke ich gerne?"),
    ("es", "Mi hermana se llama Lucía y es médica.", "¿Cómo se llama mi hermana?"),
    ("mixed", "Mein Kollege 田中 wohnt jetzt in Osaka.", "Wo wohnt 田中?"),
]


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    mem = Memory.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    try:
        yield mem
    finally:
        mem.close()


def _found(fact: str, texts: list[str]) -> bool:
    return any(fact.rstrip("。.") in text for text in texts)


def test_a_fact_in_any_script_is_kept_and_found_by_a_question_in_its_language(memory: Memory) -> None:
    for language, fact, _ in FACTS:
        outcome = memory.add_outcome(fact, user_id="ana")
        assert len(outcome.stored) == 1 and fact in outcome.stored[0].text, (language, outcome)
        assert outcome.skipped == [], (language, outcome.skipped)
    for language, fact, question in FACTS:
        texts = [hit.record.text for hit in memory.search(question, user_id="ana", top_k=3)]
        assert _found(fact, texts), (language, question, texts)


@pytest.mark.parametrize(
    ("said", "reason"),
    [
        ("Hola!", "greeting"),
        ("¡Muchas gracias!", "thanks"),
        ("Danke!", "thanks"),
        ("Merci beaucoup !", "thanks"),
        ("Привет!", "greeting"),
        ("こんにちは！", "greeting"),
        ("ありがとうございます。", "thanks"),
        ("谢谢！", "thanks"),
        ("안녕하세요!", "greeting"),
        ("شكرا!", "thanks"),
        ("שלום!", "greeting"),
        ("नमस्ते!", "greeting"),
        ("สวัสดีครับ", "greeting"),
        ("どこで働いていますか？", "question"),
    ],
)
def test_greetings_and_thanks_are_skipped_in_their_own_language_with_their_reason(said: str, reason: str) -> None:
    assert skip_reason(said) == reason


def test_a_greeting_before_a_fact_drops_only_the_greeting(memory: Memory) -> None:
    outcome = memory.add_outcome("こんにちは！私は大阪出身です。", user_id="kei")
    assert [r.text for r in outcome.stored] == ["The user: 私は大阪出身です。"]
    assert [(s.reason, s.text) for s in outcome.skipped] == [("greeting", "こんにちは！")]


def test_scripts_without_spaces_share_index_terms_between_a_fact_and_its_question() -> None:
    """Character pairs: "東京で働いています" and "東京で働いていますか" share 東京, 働い..."""
    for fact, question in [
        ("私は東京で働いています。", "東京で働いていますか？"),
        ("我在上海当老师。", "谁在上海当老师？"),
    ]:
        assert {"東京", "上海"} & set(terms(fact)) & set(terms(question))
    # A vowel sign stays in its Devanagari word; an Arabic word is stemmed, not split.
    assert "रहता" in " ".join(terms("मैं दिल्ली में रहता हूँ।")) or "रह" in terms("मैं दिल्ली में रहता हूँ।")
    assert len(terms("أعمل مهندسة في القاهرة.")) == 4


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Меня зовут Анна, я живу в Москве.", "Анна"),
        ("Μένω στην Αθήνα με τη Μαρία.", "Μαρία"),
        ("اسمي سارة وأعيش في القاهرة.", "سارة"),
        ("שמי דנה ואני גרה בתל אביב.", "דנה"),
        ("मेरा नाम प्रिया है।", "प्रिया"),
        ("我叫王伟，我在上海工作。", "王伟"),
        ("マリアさんと東京で働いています。", "マリア"),
        ("제 이름은 민수입니다.", "민수"),
        ("ฉันชื่อสมชาย ทำงานที่กรุงเทพ", "สมชาย"),
    ],
)
def test_entity_extraction_finds_names_in_scripts_without_capitals_too(text: str, name: str, tmp_path: Path) -> None:
    extractor = RuleEntityExtractor(RuleEntityExtractor.Options(), ProviderContext(tmp_path))
    assert name in [m.text for m in extractor.extract(text) if m.kind == "proper_noun"]


def test_through_the_rest_api_every_language_is_stored_and_found(tmp_path: Path) -> None:
    server = AppServer(tmp_path / "data").start()
    try:
        for language, fact, _ in FACTS:
            resp = server.post(
                "/memories", headers=ADMIN, json={"messages": [{"role": "user", "content": fact}], "user_id": "lee"}
            )
            assert resp.status_code == 200, resp.text
            body = resp.json()
            assert len(body["results"]) == 1 and not body.get("skipped"), (language, body)
        for language, fact, question in FACTS:
            found = server.post("/search", headers=ADMIN, json={"query": question, "user_id": "lee", "limit": 3}).json()
            texts = [r["memory"] for r in found["results"][:3]]
            assert _found(fact, texts), (language, question, texts)
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Quel est son métier ?", "fr"),
        ("¿Dónde vive su hermano?", "es"),
        ("Wo wohnt sein Bruder?", "de"),
        ("Onde ele mora?", "pt"),
        ("Dove abita tua sorella?", "it"),
        ("Me operaron de la rodilla.", "es"),
        ("I had a café latte with José in Málaga", "en"),
        ("See you mañana", "en"),
        ("Come on, my son", "en"),
    ],
)
def test_short_texts_are_read_in_their_language_by_function_words_and_letters(question: str, language: str) -> None:
    assert language_of(question) == language


@pytest.mark.parametrize(
    ("text", "dropped", "kept"),
    [
        ("¿Cuál es el nombre de su perro?", {"el", "es", "de"}, {"nombr", "perr"}),
        ("Quel est son métier ?", {"est", "son"}, {"meti"}),
        ("Мой брат живёт в Москве", {"в"}, {"москв"}),
        ("The user: Trabajo en un hospital.", {"en", "un"}, {"user", "trabaj", "hospital"}),
    ],
)
def test_function_words_of_the_texts_language_are_not_keywords(text: str, dropped: set[str], kept: set[str]) -> None:
    found = set(index_terms(text))
    assert not found & dropped
    assert kept <= found


def test_a_one_character_chinese_word_is_a_keyword_beside_the_pairs() -> None:
    assert "狗" in index_terms("我养了一只狗")
    assert "狗" in index_terms("你有狗吗")
    assert "的" not in index_terms("我的狗")


def test_the_english_person_shift_leaves_other_languages_as_written() -> None:
    spanish = "Me operaron de la rodilla el año pasado."
    assert third_person(spanish, "the user") == spanish
    assert third_person("Me encanta bailar salsa los viernes.", "the user").startswith("Me encanta")
    assert third_person("I love salsa.", "the user").lower().startswith("the user loves")


@pytest.mark.parametrize(
    ("fact", "question"),
    [
        ("Vivo en Sevilla desde hace cinco años.", "¿Dónde vive el usuario?"),
        ("Je travaille comme boulanger.", "Où travaille-t-il ?"),
        ("Wir wohnten lange in Hamburg.", "Wo wohnt er?"),
    ],
)
def test_a_latin_script_clause_is_stemmed_in_its_own_language(fact: str, question: str) -> None:
    assert set(index_terms(fact)) & set(index_terms(question)) - {"user"}
