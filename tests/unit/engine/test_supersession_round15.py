"""The fifteenth round's mechanisms, each in several languages with sentences of its own (each
positive case failed on the code before the round):

- one change tells one change: where a word of the two backs one of a new fact's links, a link
  the cosine alone makes for that same fact (to an allergy, a hobby, a diet told in a language
  the embedder knows little) is dropped (:mod:`memorist.engine.supersession_choice`).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.supersession_pairs import current_adds


@pytest.mark.parametrize(
    "adds",
    [
        ["أنا نباتي.", "أعمل في بنك.", "تركت البنك وأعمل الآن في مدرسة."],
        [
            "عندي حساسية من الفول السوداني.",
            "أعمل سائقا في شركة توصيل.",
            "من يوم الاثنين أبدأ عملا جديدا في أمازون كأمين مستودع. شركة التوصيل صارت من الماضي.",
        ],
        [
            "Mam uczulenie na orzechy.",
            "Pracuję w Biedronce jako kasjerka.",
            "Od środy mam nową pracę, w Orlenie. Biedronka to już przeszłość.",
        ],
        [
            "Fıstığa alerjim var.",
            "Migros'ta kasiyer olarak çalışıyorum.",
            "Pazartesi yeni işe başlıyorum, Trendyol'da depocu olarak. Migros artık geçmişte kaldı.",
        ],
    ],
    ids=["ar-diet", "ar-allergy", "pl-allergy", "tr-allergy"],
)
def test_a_change_named_by_words_hides_no_unrelated_fact_by_its_cosine(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"choice-{adds[0][:8]}", adds, every_add_stored=True) == [0, 2]


@pytest.mark.parametrize(
    "adds",
    [
        ["I'm a morning person.", "These days I've turned into a night owl."],
        ["Я работаю в Сбербанке.", "С понедельника у меня новая работа в Яндексе, Сбербанк в прошлом."],
    ],
    ids=["en-cosine-alone", "ru-by-words"],
)
def test_a_change_linked_alone_still_replaces(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"alone-{adds[0][:8]}", adds, every_add_stored=True) == [1]


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["名古屋に住んでいます。", "ピアノを弾きます。", "兄が福岡に引っ越しました。"], [0, 1, 2]),
        (["私は京都に住んでいます。", "私の姉は京都から札幌に引っ越しました。"], [0, 1]),
        (["銀行で働いています。", "父は去年から新しい会社で働いています。"], [0, 1]),
    ],
    ids=["ja-brother-moved", "ja-sister-moved", "ja-father-job"],
)
def test_a_relative_opening_a_spaceless_run_is_its_subject(engine: Any, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"run-{adds[-1][:6]}", adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    "adds",
    [
        ["名古屋に住んでいます。", "先月、名古屋から福岡に引っ越しました。"],
        ["我住在杭州。", "我上个月从杭州搬到深圳了。"],
    ],
    ids=["ja-own-move", "zh-own-move"],
)
def test_the_speakers_own_change_in_a_spaceless_run_still_replaces(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"own-{adds[-1][:6]}", adds, every_add_stored=True) == [1]


@pytest.mark.parametrize(
    "adds",
    [
        ["Ich spiele Geige.", "Wir haben zwei Kinder.", "Gestern kam unser drittes Kind zur Welt!"],
        ["Je joue au tennis.", "J'ai deux enfants.", "Notre troisième enfant est né mardi !"],
        ["Suono la chitarra.", "Ho due figli.", "È nato il nostro terzo figlio!"],
        ["Jogo futebol.", "Tenho dois filhos.", "Nasceu o nosso terceiro filho!"],
        ["Я играю в шахматы.", "У меня двое детей.", "У нас родился третий ребёнок!"],
    ],
    ids=["de-third-child", "fr-third-child", "it-third-child", "pt-third-child", "ru-third-child"],
)
def test_a_new_count_replaces_the_old_in_more_languages(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"count-{adds[-1][:8]}", adds, every_add_stored=True) == [0, 2]


@pytest.mark.parametrize(
    "adds",
    [["Ich habe einen Hund.", "Wir haben auch zwei Katzen."], ["Ho un cane.", "Ho anche due gatti."]],
    ids=["de-more-pets", "it-more-pets"],
)
def test_another_counted_thing_is_no_new_count(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"more-{adds[-1][:8]}", adds, every_add_stored=True) == [0, 1]


@pytest.mark.parametrize(
    "adds",
    [
        ["Ich habe eine Schwester.", "Ich trinke abends gern ein Bier.", "Bier trinke ich kaum noch, lieber Tee."],
        ["Ik heb een kat.", "Ik eet graag vlees.", "Vlees eet ik nauwelijks nog, vooral groenten."],
        ["J'ai un chat.", "Je bois beaucoup de café.", "Du café, j'en bois presque plus, surtout du thé."],
    ],
    ids=["de-kaum-noch", "nl-nauwelijks-nog", "fr-presque-plus"],
)
def test_a_habit_hardly_kept_any_more_replaces_it(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"hardly-{adds[-1][:8]}", adds, every_add_stored=True) == [0, 2]


def test_hardly_alone_is_no_change(engine: Any) -> None:
    adds = ["Ich spiele Klavier.", "Ich habe kaum Zeit für Sport."]
    assert current_adds(engine, "hardly-alone", adds, every_add_stored=True) == [0, 1]


@pytest.mark.parametrize(
    "adds",
    [
        [
            "저는 고양이를 키워요.",
            "대전에 살아요.",
            [
                {"role": "assistant", "content": "이번 주말에 뭐 하세요?"},
                {"role": "user", "content": "이사해요! 대전에서 광주로 옮겼어요."},
            ],
        ],
        [
            "저는 강아지를 키워요.",
            "현대에서 일하고 있어요.",
            [
                {"role": "assistant", "content": "요즘 어떻게 지내세요?"},
                {"role": "user", "content": "현대 그만두고 이번 달부터 카카오에 다녀요."},
            ],
        ],
    ],
    ids=["ko-reply-moved", "ko-reply-quit-stem"],
)
def test_a_reply_to_the_assistants_question_is_the_users(engine: Any, adds: list[Any]) -> None:
    assert current_adds(engine, f"reply-{adds[1][:4]}", adds, every_add_stored=True) == [0, 2]


def test_a_reply_stating_nothing_changed_replaces_nothing(engine: Any) -> None:
    adds = [
        "저는 강아지를 키워요.",
        [{"role": "assistant", "content": "주말에 뭐 하세요?"}, {"role": "user", "content": "친구랑 등산 가요."}],
    ]
    assert current_adds(engine, "reply-nothing", adds, every_add_stored=True) == [0, 1]
