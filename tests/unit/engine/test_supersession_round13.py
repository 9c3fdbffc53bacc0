"""The thirteenth round's mechanisms, each in several languages (each positive case failed on the
code before the round):

- the assistant's echo of a user fact, stored by the same chat add, is replaced with the fact
  (:mod:`memorist.engine.supersession_echo`);
- a stated change that names no attribute by words links no fact by a cosine at its language's
  chance level (:data:`memorist.engine.supersession_rule.AT_CHANCE`);
- two facts that name two different attributes by words are linked by no cosine.
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
