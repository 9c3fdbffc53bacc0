"""The seventeenth round's mechanisms, in several languages with sentences of their own (each
positive case failed on the code before the round):

- a relative told by another of its language's words (a familiar word, a definite form:
  "brorsan" / "min bror", "papà" / "mio padre", "Mama" / "meine Mutter") is one person
  (``relative_forms``), so the relative's change replaces the relative's older fact;
- a relative written with the speaker's "my" as its ending ("adikku", Indonesian
  ``possessive_suffixes``) or a partner word opening a phone-typed statement bare ("муж ушёл
  ...") is the relative's fact, not the speaker's, and a later clause naming no one goes on
  about that relative;
- a short statement's language is the one whose lexicon lists the most of its words when the
  detector names one that lists fewer ("Ağabeyim Ankara'da oturuyor." reads as Turkish);
- the Russian verbs that move a quantity to a value ("набрал до", "сбросила до", "дошла до") are the full
  set of its ``quantity_changes`` rows;
- a lone Han digit right before a unit word is a number ("六个小时": 6 hours);
- the residence verbs of the people around the user (third person, moving away) are rows of
  their language: Czech "bydlí", "odstěhoval", Turkish "oturuyor", Arabic "تسكن", "انتقل".
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read
from memorist.language.han_numerals import han_counts

from tests.supersession_pairs import current_adds, replaces

RELATIVE_CHANGES = [
    # A relative told by another of its words.
    ("The user: Min bror bor i Malmö.", "The user: brorsan har flyttat till Lund"),
    ("The user: Mio padre vive a Bari.", "The user: papà si è trasferito a Lecce"),
    ("The user: Meine Mutter wohnt in Köln.", "The user: Mama ist letzten Monat nach Bonn gezogen."),
    ("The user's mother lives in Ohio.", "The user's mom moved to Tucson last spring."),
    # A partner word opening a bare statement.
    ("The user: Мой муж работает в банке.", "The user: муж ушёл из банка, теперь работает в страховой компании"),
    # The statement's language read from its lexicon rows.
    ("The user: Ağabeyim Ankara'da oturuyor.", "The user: ağabeyim geçen hafta İzmir'e taşındı"),
    # Third-person residence rows.
    ("The user: Můj bratr bydlí v Plzni.", "The user: bratr se odstěhoval do Liberce"),
    ("The user: أخي يعيش في جدة.", "The user: أخي انتقل إلى الرياض الشهر الماضي"),
]


@pytest.mark.parametrize(("older", "newer"), RELATIVE_CHANGES)
def test_a_relatives_change_replaces_the_relatives_fact(older: str, newer: str) -> None:
    assert replaces(older, newer)


USERS_OWN = [
    ("The user: Jag bor i Uppsala.", "The user: brorsan har flyttat till Lund"),
    ("The user: Aku tinggal di Jakarta.", "The user: adikku sudah pindah ke Malang, kerja di kafe"),
    ("The user: Я работаю в школе.", "The user: муж ушёл из банка, теперь работает в страховой компании"),
    ("The user: Mieszkam w Gdańsku.", "The user: mąż przeprowadził się do Torunia"),
    ("The user: Bydlím v Brně.", "The user: bratr se odstěhoval do Liberce"),
]


@pytest.mark.parametrize(("older", "newer"), USERS_OWN)
def test_a_relatives_change_keeps_the_users_own_fact(older: str, newer: str) -> None:
    assert not replaces(older, newer)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("The user: syrran har flyttat till Visby", "The user: Min syster bor i Kiruna."),
        ("The user: mamma si è trasferita a Como", "The user: Mia madre vive a Lecco."),
        ("The user: ibuku pindah ke Medan", "The user: Ibu tinggal di Solo."),
    ],
)
def test_one_relative_whichever_word_tells_it(one: str, other: str) -> None:
    assert read(one).subjects & read(other).subjects


def test_later_clause_naming_no_one_is_the_relatives() -> None:
    assert read("The user: kakakku udah pindah ke Lombok, kerja di kafe").subjects == {"kakak"}


def test_a_sisters_move_leaves_the_users_home_current(engine: Any) -> None:
    adds = [
        "Aku tinggal di Jakarta.",
        "Adikku tinggal di Yogyakarta.",
        "adikku sudah pindah ke Malang, kerja di kafe",
    ]
    assert current_adds(engine, "u17", adds, every_add_stored=True) == [0, 2]


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: Я вешу 70 кг.", "The user: за зиму набрал до 74 кг"),
        ("The user: Я плаваю 2 км в неделю.", "The user: дошла до 3 км в неделю"),
        ("The user: Вешу 64 кг.", "The user: сбросила до 59 кг к лету"),
    ],
)
def test_a_russian_quantity_moved_to_a_value(older: str, newer: str) -> None:
    assert replaces(older, newer)


def test_a_lone_han_digit_before_a_unit_is_a_number() -> None:
    assert han_counts("最近每周练到六个小时了", ("个小时", "小时")) == "最近每周练到6个小时了"
    assert han_counts("我们一家三口", ("个小时", "小时")) == "我们一家三口"


def test_a_chinese_count_of_hours_that_moved_replaces_the_older(engine: Any) -> None:
    adds = ["我每天睡七个小时。", "我每周游泳两个小时。", "最近每天只睡五个小时"]
    assert current_adds(engine, "u17zh", adds, every_add_stored=True) == [1, 2]
