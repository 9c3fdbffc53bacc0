"""Facts over time in more languages and shapes: the fifth round's mechanisms.

- Portuguese, Russian, Greek, Hindi, Arabic and Hebrew have their lists (attributes, change
  and additive words); Japanese, Chinese and Thai write words together, and Korean glues
  particles to its words, so their rows are found inside a run ("福岡に引っ越しました" holds 引っ越: residence);
- a plan moved to a new date, or a habit stopped, says so with a lexicon row in each language
  ("pushed to", "déplacé", "adelantado", "posticipata", "aufgehört", "бросил");
- a German age is told after its number ("7 geworden"), a German marriage ends "scheiden lassen";
  an age frame ("Completei 53 anos") is read in every language, since a short statement's
  language is often unsure;
- a preamble's colon opens the clause that holds the subject ("Some context: they live in
  Austin"), a parenthesised date is no opening word, and a relative's event told through the
  speaker's possessive ("the user's brother's wedding") is the one the relative's own statement
  changes; a taste named as the user's ("... the user's favourite season") is the user's
  wherever it stands in the fact.

Each case beside one that must stay: an addition, someone else's fact, a far-off statement.
The door: the mem0-style ``Memory`` facade's ``search(latest_only=True)`` over the real engine
(LanceDB + SQLite, the heuristic extractor, the hashing test embedder).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.engine.supersession_rule import CHANGE_SIMILARITY, PREFERENCE_SIMILARITY
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.python.memory import Memory

from tests.conftest import fast_settings
from tests.plugins import hashing
from tests.supersession_pairs import replaces as _replaces

MONDAY = "2026-03-02T09:00:00Z"
FRIDAY = "2026-03-06T18:00:00Z"


@pytest.mark.parametrize(
    ("older", "newer", "similarity", "replaces"),
    [
        # Portuguese
        ("The user: Trabalho como enfermeira num hospital.", "The user: Fui contratada pela Petrobras.", None, True),
        ("The user: Eu moro no Porto.", "The user: Nós mudamos para Braga.", None, True),
        ("The user: Trabalho num banco.", "The user: Também trabalho como voluntário num abrigo.", None, False),
        # Russian
        ("The user: Я живу в Москве.", "The user: Мы переехали в Тверь.", None, True),
        ("The user: Моя девушка Маша.", "The user: Мы с Машей расстались.", None, True),
        ("The user: Я работаю в банке.", "The user: Я также работаю волонтёром.", None, False),
        ("The user: У меня есть собака.", "The user: У меня также есть кошка.", None, False),
        # Japanese: rows found inside a run
        ("The user: 東京に住んでいます。", "The user: 京都に引っ越しました。", None, True),
        ("The user: 私は41歳です。", "The user: 42歳になりました。", None, True),
        ("The user: 緑茶が好きです。", "The user: 今はコーヒーの方が好きです。", PREFERENCE_SIMILARITY, True),
        ("The user: コーヒーが好きです。", "The user: 紅茶も好きです。", 0.7, False),
        ("The user: 犬を飼っています。", "The user: 猫も飼っています。", 0.7, False),
        # Chinese and Korean: rows found inside a run or a word with its particles
        ("The user: 我住在北京。", "The user: 我搬到上海了。", None, True),
        ("The user: 我有女朋友。", "The user: 我们上个月分手了。", None, True),
        ("The user: 我喜欢喝咖啡。", "The user: 我现在更喜欢喝茶。", PREFERENCE_SIMILARITY, True),
        ("The user: 我喜欢喝咖啡。", "The user: 我也喜欢喝茶。", 0.7, False),
        ("The user: 서울에 살고 있어요.", "The user: 부산으로 이사했어요.", None, True),
        ("The user: 삼성에서 일해요.", "The user: 이제 카카오에서 일해요.", None, True),
        ("The user: 강아지를 키워요.", "The user: 고양이도 키워요.", 0.7, False),
        # Greek, Hindi, Arabic, Hebrew, Thai
        ("The user: Μένω στην Αθήνα.", "The user: Μετακόμισα στη Θεσσαλονίκη.", None, True),
        ("The user: Έχω έναν σκύλο.", "The user: Έχω επίσης μια γάτα.", 0.7, False),
        ("The user: मेरी शादी हो चुकी है।", "The user: हमारा तलाक हो गया।", None, True),
        ("The user: मेरे पास एक कुत्ता है।", "The user: मेरे पास एक बिल्ली भी है।", 0.7, False),
        ("The user: أسكن في القاهرة.", "The user: انتقلت إلى الإسكندرية.", None, True),
        ("The user: عندي قطة.", "The user: عندي أيضا كلب.", 0.7, False),
        ("The user: אני גר בחיפה.", "The user: עברתי לגור בתל אביב.", None, True),
        ("The user: יש לי כלב.", "The user: יש לי גם חתול.", 0.7, False),
        ("The user: ฉันทำงานที่ธนาคาร", "The user: ตอนนี้ฉันทำงานที่โรงเรียน", None, True),
        # "ใหม่" (new) sits inside เชียงใหม่ and "ชอบ" (like) inside รับผิดชอบ: no rows
        ("The user: ฉันรับผิดชอบงานขาย", "The user: ฉันเป็นคนเชียงใหม่", 0.7, False),
        # German: an age after its number, a marriage's end
        ("The user: Meine Tochter ist 6.", "The user: Meine Tochter ist letzte Woche 7 geworden.", None, True),
        ("The user: Ich bin 40.", "The user: Mein Sohn ist 12 geworden.", None, False),
        ("The user: Ich bin mit Paul verheiratet.", "The user: Paul und ich lassen uns scheiden.", None, True),
        # An age frame is read whatever language a short statement seems to be in
        ("The user: Tenho 52 anos.", "The user: Completei 53 anos em maio.", None, True),
        ("The user: Tenho 35 anos.", "The user: Meu filho fez 8 anos.", None, False),
        # A plan moved: the reschedule rows of each language
        (
            "The user: Le rendez-vous chez le dentiste est lundi.",
            "The user: Le rendez-vous est déplacé à jeudi.",
            None,
            True,
        ),
        (
            "The user: La cena con mis suegros es el viernes.",
            "The user: La cena se ha adelantado al jueves.",
            None,
            True,
        ),
        ("The user: La riunione è martedì.", "The user: La riunione è stata posticipata a venerdì.", None, True),
        ("The user's team offsite is on the 3rd.", "The team offsite got pushed to the 10th.", None, True),
        ("The user: A consulta no dentista é na segunda.", "The user: A consulta foi adiada para quinta.", None, True),
        # An engagement ended, and a craving as a taste, in the relationship and taste rows
        ("The user is engaged to Lucas.", "Lucas and the user called off the engagement.", None, True),
        ("The user: Ich bin mit Jan verlobt.", "The user: Jan und ich haben die Verlobung gelöst.", None, True),
        ("The user: Sono fidanzata con Luca.", "The user: Io e Luca abbiamo rotto il fidanzamento.", None, True),
        ("The user is engaged to Lucas.", "The user has a speaking engagement on Friday.", 0.4, False),
        ("The user is single.", "The user has been seeing someone since May.", None, True),
        ("The user is married to Tom.", "The user started seeing a therapist.", 0.3, False),
        ("The user loves sushi.", "The user craves ramen these days.", PREFERENCE_SIMILARITY, True),
        # A taste the user holds, though the fact opens with the thing
        (
            "The user's favourite season is autumn.",
            "Spring with its long bright evenings is now the user's favourite season.",
            0.6,
            True,
        ),
        ("The user's favourite season is autumn.", "Spring is Anna's favourite season now.", 0.6, False),
        ("The user loves sushi.", "The user craves ramen.", PREFERENCE_SIMILARITY, False),
        # A habit stopped
        ("The user drinks two coffees a day.", "The user stopped drinking coffee.", None, True),
        ("The user plays tennis on Sundays.", "The user stopped by the bakery.", 0.2, False),
        ("The user had lunch at a café in Paris.", "The user stopped at a café in Rome.", 0.5, False),
        (
            "The user: Je travaille sur un projet de jardin.",
            "The user: J'ai bien avancé sur le projet de jardin.",
            0.7,
            False,
        ),
        # A preamble before a colon; a parenthesised date before the subject
        (
            "A word of background before the question: they live in Austin.",
            "The user moved to Chicago.",
            None,
            True,
        ),
        ("The user works at Lidl.", "Last month (February 2026) the user joined Aldi.", None, True),
        # A relative's event through the speaker's possessive
        (
            "The user's brother's wedding is on 12 June.",
            "The user's brother is now getting married on 19 June instead.",
            CHANGE_SIMILARITY,
            True,
        ),
        ("The user's sister's visit is on Friday.", "The user's sister now works in Berlin.", 0.3, False),
    ],
)
def test_a_changed_fact_replaces_the_older_and_an_added_one_does_not(
    older: str, newer: str, similarity: float | None, replaces: bool
) -> None:
    assert _replaces(older, newer, similarity) is replaces


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield mem
    mem.close()


@pytest.mark.parametrize(
    ("first", "second", "query"),
    [
        ("Я живу в Казани.", "Я переехал в Самару.", "Казани Самару живу переехал"),
        ("名古屋に住んでいます。", "札幌に引っ越しました。", "名古屋 札幌 住んで 引っ越し"),
        (
            "A consulta no dentista é na segunda.",
            "A consulta foi adiada para quinta.",
            "consulta dentista segunda quinta",
        ),
        ("My email is kim@proton.me", "My new email is kim.lee@fastmail.com", "email kim proton fastmail"),
    ],
)
def test_search_latest_only_answers_with_the_current_version(
    memory: Engine, first: str, second: str, query: str
) -> None:
    facade = Memory(engine=memory)
    old = facade.add(first, user_id="ana", timestamp=MONDAY)["results"]
    new = facade.add(second, user_id="ana", timestamp=FRIDAY)["results"]
    assert len(old) == 1 and len(new) == 1
    everything = {m["id"] for m in facade.search(query, user_id="ana", threshold=0.0)["results"]}
    assert everything == {old[0]["id"], new[0]["id"]}
    found = facade.search(query, user_id="ana", latest_only=True, threshold=0.0)["results"]
    assert [m["id"] for m in found] == [new[0]["id"]]


def test_an_address_keeps_its_letters_when_the_speaker_is_shifted(memory: Engine) -> None:
    stored = Memory(engine=memory).add("Use dana@proton.me from now on.", user_id="dana")["results"]
    assert [m["memory"] for m in stored] and all("dana@proton.me" in m["memory"] for m in stored)
