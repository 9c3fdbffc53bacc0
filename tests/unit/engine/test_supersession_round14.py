"""The fourteenth round's mechanisms, each in several languages (each positive case failed on
the code before the round):

- the assistant's echo is found by the fact's terms as the assistant repeats them: a number
  told in words is its digits, the label's "user" is no term, and a script written without
  spaces counts by its Han characters, not by pairs that span a word's edge or a kana ending
  (:mod:`memorist.engine.supersession_echo`);
- a name in another case is the same name: a language that declines its names lists their
  `case_endings` ("Kuba" / "z Kubą", "Jana" / "s Janou", "Mert" / "Mert'le"), read by
  :func:`memorist.language.morphology.name_stem`;
- a relationship state changed with the person an older fact names as the speaker's partner,
  told with the partner word as its subject ("Mój chłopak ma na imię Kuba."), replaces it.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_echo import echoes

from tests.supersession_pairs import record, replaces


def _pair(fact: str, echo: str) -> tuple[Any, Any]:
    """The user's fact and the assistant's reply stored by one chat add (one observation time)."""
    told = fact if fact.startswith("The user ") else f"The user: {fact}"  # the rewrite, or the words kept
    said = record(told, 2, "user").model_copy(update={"source_message": 0})
    reply = record(f"The assistant: {echo}", 2, "assistant").model_copy(update={"id": "e2", "source_message": 1})
    return said, reply


@pytest.mark.parametrize(
    ("fact", "echo"),
    [
        ("The user has 3 kids.", "Three kids, lovely."),
        ("Wir haben zwei Katzen.", "Notiert: 2 Katzen."),
        ("Tengo 4 nietos.", "¡Qué bien, cuatro nietos!"),
        ("我在上海一家银行上班。", "好的，你在上海的银行工作。"),
        ("京都の大学で働いています。", "京都の大学にお勤めなんですね。"),
    ],
    ids=["en-number-word", "de-number-word", "es-number-word", "zh-characters", "ja-characters"],
)
def test_an_echo_is_read_by_the_terms_the_assistant_repeats(fact: str, echo: str) -> None:
    assert echoes(*reversed(_pair(fact, echo)))


@pytest.mark.parametrize(
    ("fact", "remark"),
    [
        ("我住在成都。", "成都的火锅很有名！"),
        ("東京の会社で働いています。", "いいですね、東京は楽しい街です。"),
        ("I work as a nurse in Leeds.", "Leeds is lovely in spring!"),
    ],
    ids=["zh-remark", "ja-remark", "en-remark"],
)
def test_an_assistant_remark_on_the_value_is_no_echo(fact: str, remark: str) -> None:
    assert not echoes(*reversed(_pair(fact, remark)))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Mój chłopak ma na imię Kuba.", "Rozstałam się z Kubą, teraz jestem sama."),
        ("Moje přítelkyně se jmenuje Jana.", "S Janou jsme se rozešli."),
        ("Nişanlımın adı Mert.", "Mert'le geçen hafta evlendik."),
    ],
    ids=["pl-instrumental", "cs-instrumental", "tr-apostrophe"],
)
def test_a_name_in_another_case_is_the_same_person(older: str, newer: str) -> None:
    assert replaces(f"The user: {older}", f"The user: {newer}")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Mój brat ma na imię Kuba.", "Rozstałam się z Kubą."),
        ("Můj bratr se jmenuje Petr.", "S Petrem jsme se pohádali."),
        ("My sister Maria lives in Rome.", "My brother Mario lives in Rome too."),
    ],
    ids=["pl-brother", "cs-brother-no-state", "en-two-names"],
)
def test_a_name_of_a_relative_or_another_name_links_nothing(older: str, newer: str) -> None:
    assert not replaces(f"The user: {older}", f"The user: {newer}")


def test_a_name_stem_drops_only_its_language_s_case_endings() -> None:
    from memorist.language.morphology import name_stem

    assert name_stem("petrem", "cs") == name_stem("petr", "cs") == "petr"
    assert name_stem("chorvatska", "cs") == name_stem("chorvatsko", "cs")
    assert name_stem("elif'le", "fr") == "elif"  # an apostrophe's case ending, whatever the language read
    assert name_stem("maria", "en") == "maria" and name_stem("mario", "it") == "mario"
    assert name_stem("ola", "pl") == "ola"  # a name keeps three letters


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("犬を飼っています。", "今は名古屋に住んでいます。"),
        ("週末はよくギターを弾いています。", "今は銀行で働いています。"),
        ("毎朝ジョギングをしています。", "今は横浜に住んでいます。"),
    ],
    ids=["ja-pet-residence", "ja-hobby-job", "ja-habit-residence"],
)
def test_japanese_kana_endings_are_no_shared_topic(older: str, newer: str) -> None:
    # "います", "てい", "いま" are in any two such statements; their words (犬, 名古屋, 住) are not.
    assert not replaces(f"The user: {older}", f"The user: {newer}")


def test_a_japanese_word_still_shares_its_topic() -> None:
    assert replaces("The user: 毎朝コーヒーを飲みます。", "The user: 最近はコーヒーをやめて紅茶にしました。")


def test_kana_words_are_runs_of_han_or_katakana() -> None:
    from memorist.language.scripts import kana_words

    assert kana_words("猫を二匹飼っていて、週末はよくテニスをしています。") == ["猫", "二匹飼", "週末", "テニス"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The user's brother lives in Lyon.", "The user: My sister lives in Lyon too."),
        ("The user: mia sorella vive a Torino", "The user: anche mio fratello vive a Torino"),
        ("The user: Mi hermano trabaja en un banco.", "The user: Mi primo también trabaja en un banco."),
    ],
    ids=["en-sister-brother", "it-sister-brother", "es-brother-cousin"],
)
def test_facts_of_two_relatives_are_no_paraphrase(first: str, second: str) -> None:
    from memorist.engine.dedup import values_agree

    assert not values_agree(first, second)
    assert values_agree(first, first.replace("The user: ", ""))  # the same relative's fact still is


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("V srpnu jedeme do Itálie.", "Místo toho v srpnu jedeme do Francie."),
        ("Im Juli fahren wir an die Ostsee.", "Stattdessen fahren wir im Juli in die Alpen."),
        ("In mei gaan we naar Rome.", "We gaan in plaats daarvan in mei naar Wenen."),
        ("Latem jedziemy do Gdańska.", "Latem jedziemy w zamian do Zakopanego."),
    ],
    ids=["cs-instead", "de-instead", "nl-instead", "pl-in-exchange"],
)
def test_the_language_s_instead_says_a_change(older: str, newer: str) -> None:
    assert replaces(f"The user: {older}", f"The user: {newer}")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Vou fazer um curso de italiano em março.", "Desisti do curso de italiano."),
        ("En junio voy a correr el maratón de Madrid.", "Desistí del maratón de Madrid."),
        ("Летом я собираюсь поехать в Сочи.", "Я передумала ехать в Сочи."),
        ("W maju startuję w półmaratonie.", "Zrezygnowałam ze startu w półmaratonie."),
    ],
    ids=["pt-gave-up", "es-gave-up", "ru-changed-mind", "pl-gave-up"],
)
def test_a_plan_given_up_is_a_change(older: str, newer: str) -> None:
    assert replaces(f"The user: {older}", f"The user: {newer}")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Mám psa.", "Místo toho letíme do Řecka."),
        ("Ik heb een kat.", "In plaats daarvan gaan we naar Wenen."),
    ],
    ids=["cs-unrelated", "nl-unrelated"],
)
def test_an_instead_links_no_unrelated_fact(older: str, newer: str) -> None:
    assert not replaces(f"The user: {older}", f"The user: {newer}")


@pytest.mark.parametrize(
    ("fact", "echo"),
    [
        ("Vou correr uma meia maratona em outubro.", "Boa! Anotei a meia maratona de outubro."),
        ("Voy a correr una media maratón en octubre.", "¡Bien! Apunto la media maratón de octubre."),
        ("Je vais courir un semi-marathon en octobre.", "Bravo ! Semi-marathon d'octobre noté."),
    ],
    ids=["pt-content-words", "es-content-words", "fr-content-words"],
)
def test_an_echo_repeats_half_the_fact_s_content_words(fact: str, echo: str) -> None:
    assert echoes(*reversed(_pair(fact, echo)))


def test_a_remark_naming_the_value_alone_is_no_echo() -> None:
    assert not echoes(*reversed(_pair("Ik woon in Utrecht.", "Leuk, Utrecht is een mooie stad.")))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ich arbeite als Koch in einem Hotel.", "Seit März bin ich arbeitslos."),
        ("Je travaille chez Renault.", "Depuis janvier je suis au chômage."),
        ("Trabajo en un banco.", "Desde el lunes soy autónoma."),
        ("Pracuję w szkole.", "Od maja jestem bezrobotna."),
        ("I work at a design agency.", "I'm freelancing since the summer."),
    ],
    ids=["de-unemployed", "fr-unemployed", "es-self-employed", "pl-unemployed", "en-freelance"],
)
def test_an_employment_state_is_the_employer_slot(older: str, newer: str) -> None:
    assert replaces(f"The user: {older}", f"The user: {newer}")


def test_a_relative_s_employment_state_is_theirs() -> None:
    assert not replaces("The user: Pracuję w szkole.", "The user: Mój brat jest bezrobotny.")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("여동생이 부산에 살아요.", "남동생도 부산에 살아요."),
        ("엄마는 대구에 살아요.", "저는 지난달에 서울로 이사했어요."),
        ("친구가 회사에서 디자이너로 일해요.", "저는 이제 은행에서 일해요."),
    ],
    ids=["ko-sister-brother", "ko-mother-speaker", "ko-friend-speaker"],
)
def test_a_korean_relative_with_its_particle_is_the_subject(older: str, newer: str) -> None:
    assert not replaces(f"The user: {older}", f"The user: {newer}")


def test_the_korean_speaker_s_own_move_still_replaces() -> None:
    assert replaces("The user: 저는 서울에 살아요.", "The user: 지난달에 부산으로 이사했어요.")


def test_a_noun_particle_leaves_two_letters() -> None:
    from memorist.engine.supersession_values import base

    assert base("여동생이") == "여동생" and base("아이가") == "아이"
    assert base("나는") == "나는"  # "I": a row of its own


def test_han_numerals_read_as_digits() -> None:
    from memorist.language.han_numerals import han_digits

    assert han_digits("房租三千五") == "房租3500" and han_digits("一万二") == "12000"
    assert han_digits("一百二十三") == "123" and han_digits("三千零五") == "3005"
    assert han_digits("一家公司") == "一家公司"  # a lone digit character is a word's part


@pytest.mark.parametrize(
    ("fact", "echo"),
    [
        ("我的工资每个月八千五。", "好的，记下了：你的工资是每月8500元。"),
        ("我们家每个月电费两百。", "明白，每月电费200元。"),
    ],
    ids=["zh-salary", "zh-bill"],
)
def test_an_echo_of_a_han_numeral_in_digits(fact: str, echo: str) -> None:
    assert echoes(*reversed(_pair(fact, echo)))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Die Grillparty bei Jonas ist am Samstag.", "Planänderung für die Grillparty bei Jonas."),
        ("Le dîner d'équipe est vendredi.", "Changement de plan pour le dîner d'équipe."),
        ("La festa di Luca è sabato sera.", "Cambio di programma per la festa di Luca."),
        ("Kolacja z rodzicami jest w sobotę.", "Zmiana planów: kolacja z rodzicami w niedzielę."),
    ],
    ids=["de-change-noun", "fr-change-noun", "it-change-noun", "pl-change-noun"],
)
def test_a_change_announced_by_its_noun(older: str, newer: str) -> None:
    assert replaces(f"The user: {older}", f"The user: {newer}")


def test_a_change_noun_links_no_unrelated_fact() -> None:
    assert not replaces("The user: Mam kota.", "The user: Zmiana planów: jedziemy do Gdańska.")
