"""The thirteenth round's mechanisms, each in several languages (each positive case failed on the
code before the round):

- the assistant's echo of a user fact, stored by the same chat add, is replaced with the fact
  (:mod:`memorist.engine.supersession_echo`);
- a stated change that names no attribute by words links no fact by a cosine at its language's
  chance level (:data:`memorist.engine.supersession_rule.AT_CHANCE`);
- two facts that name two different attributes (or an attribute and a taste) by words are
  linked by no cosine, and a clause's cosine is checked as its fact's;
- a relative word opening a statement in a language that writes "my" into it is its subject;
- the assistant's label word is no topic two of its statements share;
- a plan called off "after all" or with a cancel verb is a change (the lexicons' rows).
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_echo import echoes
from memorist.engine.supersession_rule import supersedes
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds, record


def _chat(user: str, assistant: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": user}, {"role": "assistant", "content": assistant}]


def _shown_per_add(engine: Engine, user: str, adds: list[Any]) -> list[list[bool]]:
    """For each add, whether each memory it stored is in a ``latest_only`` list."""
    ids = []
    for day, text in enumerate(adds, start=2):
        ids.append([r.id for r in engine.add(text, user_id=user, timestamp=f"2026-03-{day:02d}T09:00:00Z")])
    shown = {r.id for r in engine.list(user_id=user, latest_only=True, page_size=50).records}
    return [[i in shown for i in stored] for stored in ids]


@pytest.mark.parametrize(
    ("first", "change"),
    [
        (
            _chat(
                "Trabalho como enfermeira no Hospital São João.",
                "Entendi, trabalha como enfermeira no Hospital São João.",
            ),
            "Saí do hospital, agora trabalho numa clínica em Braga.",
        ),
        (
            _chat("Мой номер телефона 8 916 555 12 34.", "Записал: номер 8 916 555 12 34."),
            "Я сменил номер, теперь 8 903 777 45 67.",
        ),
        (
            _chat("Mi correo es lucia.p@gmail.com", "Perfecto, correo guardado: lucia.p@gmail.com"),
            "Cambié de correo, ahora uso lucia.perez@proton.me",
        ),
        (_chat("我住在杭州。", "好的，记住了，你住在杭州。"), "我上个月搬到南京了。"),
    ],
    ids=["pt-job", "ru-phone", "es-email", "zh-residence"],
)
def test_an_assistant_echo_goes_with_the_fact_it_echoes(engine: Engine, first: Any, change: str) -> None:
    shown = _shown_per_add(engine, f"echo-{change[:12]}", [first, change])
    assert shown[0] and not any(shown[0]), shown  # the user's fact and the assistant's confirmation
    assert all(shown[1]), shown


def test_an_assistant_remark_of_its_own_stays(engine: Engine) -> None:
    # The assistant's remark on the city repeats the place but not the fact: it is its own.
    first = _chat("Ik woon in Utrecht.", "Leuk, Utrecht is een mooie stad met veel grachten.")
    shown = _shown_per_add(engine, "echo-remark", [first, "Ik ben verhuisd naar Leiden."])
    assert shown[0] == [False, True], shown


def test_an_echo_is_the_assistant_s_after_the_user_s_in_one_add() -> None:
    fact = record("The user: Telefon numaram 0532 111 22 33.", 2, "user").model_copy(update={"source_message": 0})
    echo = record("The assistant: Kaydettim, numaran 0532 111 22 33.", 2, "assistant").model_copy(
        update={"id": "e2", "source_message": 1}
    )
    assert echoes(echo, fact)
    assert not echoes(fact, echo)  # a user's fact is never carried away by the assistant's
    later = echo.model_copy(update={"observed_at": record("x", 3).observed_at})
    assert not echoes(later, fact)  # another add's statement is no echo


def test_a_change_at_chance_hides_no_unrelated_fact(engine: Engine) -> None:
    # Hindi: "I have a cat, her name is Mini." / "Now I do yoga every morning." (cosine 0.71,
    # Hindi chance: -0.02 above it).
    adds = ["मेरी एक बिल्ली है, उसका नाम मिनी है।", "अब मैं रोज़ सुबह योग करती हूँ।"]
    assert current_adds(engine, "chance-hi", adds) == [0, 1]


def test_a_change_naming_no_attribute_above_chance_still_replaces() -> None:
    older = record("The user: Ik werk als kassière bij een supermarkt.", 2)
    newer = record("The user: Sinds vorige week heb ik mijn eigen bloemenwinkel!", 6)
    assert supersedes(newer, older, 0.69, None, 0.45)
    assert not supersedes(newer, older, 0.69, None, 0.2)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "У меня есть младший брат, он учится в Новосибирске.",
            "Я ушла из магазина и теперь работаю водителем в такси.",
        ),
        ("Estudio Derecho en la Universidad de Salamanca.", "Dejé la tienda y ahora trabajo en una oficina."),
        ("Ich studiere Medizin in Heidelberg.", "Ich habe im Laden gekündigt und arbeite jetzt in einem Büro."),
        ("J'étudie la chimie à Lille.", "J'ai quitté la boutique et maintenant je travaille dans un bureau."),
    ],
    ids=["ru", "es", "de", "fr"],
)
def test_two_attributes_named_apart_are_linked_by_no_cosine(older: str, newer: str) -> None:
    # School and employer: the words name two facts, whatever the cosine (one studies and works).
    assert not supersedes(record(f"The user: {newer}", 6), record(f"The user: {older}", 2), 0.78, None, 0.55)


def test_one_attribute_named_by_both_still_links() -> None:
    older = record("The user: Я работаю бухгалтером в банке.", 2)
    newer = record("The user: Теперь я работаю аналитиком в страховой компании.", 6)
    assert supersedes(newer, older, 0.78, None, 0.55)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Me encanta jugar al tenis.", "Dejé el hotel, ahora trabajo en una agencia de viajes."),
        ("Ich liebe Jazz.", "Ich habe gekündigt und arbeite jetzt bei einer Bank."),
    ],
    ids=["es", "de"],
)
def test_a_taste_and_an_attribute_are_linked_by_no_cosine(older: str, newer: str) -> None:
    assert not supersedes(record(f"The user: {newer}", 6), record(f"The user: {older}", 2), 0.79, None, 0.61)


def test_two_tastes_still_link_by_their_cosine() -> None:
    older = record("The user: Me encanta el café solo.", 2)
    newer = record("The user: Ahora me encanta más el té verde.", 6)
    assert supersedes(newer, older, 0.79, None, 0.61)


def test_a_clause_naming_no_attribute_is_checked_as_its_fact(engine: Engine) -> None:
    # "Den gamla använder jag inte längre" names nothing; its fact names a new e-mail address.
    adds = [
        "Jag har två hundar, Bosse och Kajsa.",
        "Min mejladress är karin.lund@telia.se",
        "Jag har en ny mejladress: karin@lund.nu. Den gamla använder jag inte längre.",
    ]
    assert current_adds(engine, "clause-sv", adds) == [0, 2]


@pytest.mark.parametrize(
    "adds",
    [
        ["Ablam Ankara'da yaşıyor.", "Ağabeyim de Ankara'da yaşıyor."],
        ["Annem İzmir'de yaşıyor.", "Ben İstanbul'da yaşıyorum."],
        ["Kızım 7 yaşında.", "Oğlum da 7 yaşında."],
        ["אחותי גרה בחיפה.", "אחי גר בחיפה."],
    ],
    ids=["tr-siblings", "tr-mother-and-me", "tr-children", "he-siblings"],
)
def test_a_relative_word_opening_a_statement_is_its_subject(engine: Engine, adds: list[str]) -> None:
    assert current_adds(engine, f"relative-{adds[0][:8]}", adds) == [0, 1]


def test_a_move_of_the_speaker_still_replaces_in_turkish(engine: Engine) -> None:
    adds = ["İstanbul'da yaşıyorum.", "Geçen ay Bursa'ya taşındım."]
    assert current_adds(engine, "relative-tr-move", adds) == [1]


def test_the_assistant_label_is_no_shared_topic(engine: Engine) -> None:
    first = _chat("Ich spiele seit Jahren Tennis.", "Toll, Sie spielen also seit Jahren Tennis!")
    moved = _chat("Wir sind nach Bremen gezogen.", "Verstanden, Sie wohnen jetzt in Bremen.")
    shown = _shown_per_add(engine, "label-de", [first, moved])
    assert shown == [[True, True], [True, True]], shown


@pytest.mark.parametrize(
    "adds",
    [
        [
            "Ich habe einen Hund.",
            "Im Mai fahren wir nach Rom.",
            "Wir fahren im Mai doch nicht nach Rom, wir bleiben zu Hause.",
        ],
        ["Mam kota.", "W sierpniu jedziemy nad morze.", "Jednak nie jedziemy nad morze w sierpniu, zostajemy w domu."],
        ["I have a cat.", "We're going to Porto in June.", "We're not going to Porto after all, we'll stay home."],
        ["Tenho um cão.", "Em julho vamos a Lisboa.", "Afinal não vamos a Lisboa em julho, ficamos em casa."],
        ["Jag har en katt.", "I juni åker vi till Gotland.", "Vi åker ändå inte till Gotland i juni."],
    ],
    ids=["de", "pl", "en", "pt", "sv"],
)
def test_a_plan_called_off_after_all_is_replaced(engine: Engine, adds: list[str]) -> None:
    assert current_adds(engine, f"off-{adds[1][:10]}", adds) == [0, 2]


@pytest.mark.parametrize(
    "adds",
    [
        ["I have a cat.", "We're going to Porto in June.", "We're also going to Lisbon in July."],
        ["Tengo un gato.", "En agosto vamos a Sevilla.", "En septiembre también vamos a Granada."],
    ],
    ids=["en", "es"],
)
def test_a_second_plan_calls_off_nothing(engine: Engine, adds: list[str]) -> None:
    assert current_adds(engine, f"plans-{adds[1][:10]}", adds) == [0, 1, 2]
