"""The nineteenth round's mechanisms (each positive case failed on the code before):

- a partner named after the possessive ("the user's husband Marco ...", "Min fru Karin ...")
  is the subject of what follows, as an unnamed one is; what the partner does with the speaker
  ("... lives with them") stays the couple's, the speaker's;
- a partner with the speaker's "my" written onto it ("suamiku") or glued to a particle
  ("아내가") is a partner word too;
- interjections and greetings opening a message ("Oh,", "Ach so,", "Ah ok,") are not its
  subject: what follows them is read as the message;
- a newer fact that tells the older's own value again (an e-mail, a phone number, an amount in
  digits) in a clause that says no change keeps it: "..., and the user's is still ana@mail.com";
  a replacement marker ("from X to Y") or a date still reads as a change;
- a reply about a third person ("no, he works at a school now") is about the person the older
  fact names, when it names one and not the speaker.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read

from tests.supersession_pairs import current_adds, replaces


@pytest.mark.parametrize(
    ("fact", "subjects"),
    [
        ("The user's husband Marco just got a job as a nurse at the clinic.", {"husband", "marco"}),
        ("The user: Min fru Karin jobbar som lärare i Lund.", {"fru", "karin"}),
        ("The user: 아내가 이번 달에 퇴사했어요.", {"아내"}),
        ("The user: suamiku pindah kerja ke Bandung bulan lalu.", {"suami"}),
        ("The user: Oh, my brother moved to Leeds.", {"brother"}),
        ("The user: Ach so, meine Schwester wohnt jetzt in Köln.", {"schwester"}),
        ("The user: Ah ok, mi hermana ahora vive en Sevilla.", {"hermana"}),
        ("The user: Wow, ma sœur a déménagé à Nantes.", {"sœur"}),
    ],
)
def test_who_a_fact_is_about(fact: str, subjects: set[str]) -> None:
    assert read(fact).subjects == subjects


@pytest.mark.parametrize(
    "fact",
    [
        "The user's girlfriend Mia lives with them.",
        "The user's partner is called Sam.",
        "The user: Oh, I moved to Leeds.",
        "The user: Ok, ich wohne jetzt in Köln.",
    ],
)
def test_the_speakers_own_fact(fact: str) -> None:
    assert "user" in read(fact).subjects


@pytest.mark.parametrize(
    ("older", "newer", "replaced"),
    [
        (
            "The user's email is ana@mail.com.",
            "The assistant: The user's brother's email is leo@mail.com, and the user's is still ana@mail.com.",
            False,
        ),
        (
            "The user: Mein Gehalt liegt bei 4200 Euro im Monat.",
            "The user: Meine Frau verdient jetzt 5000 Euro, ich bleibe bei 4200 Euro.",
            False,
        ),
        ("The user's phone number is 555-0101.", "The user's phone number changed from 555-0101 to 555-0199.", True),
        (
            "The user: Het etentje met Tom is op 12 juni.",
            "The user: Het etentje is verzet naar 19 juni, op 12 juni kon Tom niet.",
            True,
        ),
    ],
)
def test_a_value_told_again_is_kept_unless_tied_as_replaced(older: str, newer: str, replaced: bool) -> None:
    assert replaces(older, newer) is replaced


@pytest.mark.parametrize(
    ("older", "reply"),
    [
        (
            "The user: Moja siostra Anna pracuje w banku.",
            'The assistant asked "A gdzie ona teraz pracuje?" The user replied: Od marca ona już nie pracuje w banku,'
            " teraz jest nauczycielką.",
        ),
        (
            "The user: Mi hermano Luis trabaja en un hotel.",
            'The assistant asked "¿Sigue en el hotel?" The user replied: No, él ahora trabaja en una escuela.',
        ),
    ],
)
def test_a_reply_about_a_third_person_changes_that_persons_fact(older: str, reply: str) -> None:
    assert replaces(older, reply)


def test_a_reply_about_a_third_person_leaves_the_speakers_fact() -> None:
    reply = 'The assistant asked "Is she still at the bakery?" The user replied: no, she works at a school now.'
    assert not replaces("The user works at a bakery.", reply)


@pytest.mark.parametrize(
    "adds",
    [
        ["I'm a pharmacist at a hospital in Leeds.", "My husband Marco just got a job as a pharmacist in York."],
        ["Jag har 40 minuter till jobbet.", "Min fru Karin har 10 minuter till sitt jobb, hon cyklar."],
        ["저는 은행에서 일해요.", "남편이 지난주에 이직했어요. 이제 병원에서 일해요."],
        ["Gajiku 8 juta per bulan.", "Oh iya, suamiku juga naik gaji, sekarang 12 juta per bulan."],
        [
            "My email is ana@mail.com.",
            [
                {"role": "user", "content": "Please also save my brother's email: leo@mail.com"},
                {
                    "role": "assistant",
                    "content": "Saved: your brother Leo's is leo@mail.com, and yours is still ana@mail.com.",
                },
            ],
        ],
    ],
)
def test_someone_elses_fact_leaves_the_speakers_current(engine: Any, adds: list[Any]) -> None:
    assert current_adds(engine, f"r19-{str(adds[1])[:12]}", adds, every_add_stored=True) == [0, 1]


def test_a_named_partners_change_replaces_the_partners_fact(engine: Any) -> None:
    adds = [
        "I teach maths at a school in Hull.",
        "My wife Rosa works at a bank.",
        "Rosa left the bank, she's a judge now.",
    ]
    assert current_adds(engine, "r19-rosa", adds, every_add_stored=True) == [0, 2]


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["My goal weight is 70 kg.", "Weighed in this morning: 78 kg."], [0, 1]),
        (["Mein Ziel sind 60 Kilo bis zum Sommer.", "Ich wiege gerade 66 Kilo."], [0, 1]),
        (["目標は体重60キロです。", "今は65キロです。"], [0, 1]),
        (["My goal is to get down to 70 kg.", "New goal: 68 kg, since 70 went fine."], [1]),
        (["I weigh 80 kg.", "I'm down to 77 kg now."], [1]),
    ],
)
def test_a_goal_and_the_value_held_are_two_slots(engine: Any, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"r19-goal-{adds[0][:10]}", adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["I live in Leeds.", "Maybe someday I'll move to Lisbon, I loved it there."], [0, 1]),
        (["Trabajo en un banco.", "Estoy pensando en dejar el banco y montar una cafetería."], [0, 1]),
        (["Ich wohne in Graz.", "Vielleicht ziehe ich irgendwann nach Wien."], [0, 1]),
        (["Vivo a Torino.", "Da bambino ho vissuto tre anni a Napoli."], [0, 1]),
        (["Mieszkam w Krakowie.", "W dzieciństwie mieszkałem pięć lat w Gdańsku."], [0, 1]),
        (["I live in Leeds.", "I moved to York last month."], [1]),
        (["I live in Leeds.", "Two years ago I moved to York, and I still love it."], [1]),
    ],
)
def test_a_wish_or_a_past_stint_replaces_nothing_current(engine: Any, adds: list[str], current: list[int]) -> None:
    """A fact told as wished or weighed, or placed in a past stretch of life without a change,
    is no state of now; a move told with its time still is."""
    assert current_adds(engine, f"r19-now-{adds[1][:12]}", adds, every_add_stored=True) == current


def test_a_possessive_chain_names_its_owner_listed_or_not(engine: Any) -> None:
    assert read("The user's flatmate's number is 07700 900444").owners == {"flatmate"}
    adds = ["My phone number is 07700 900111.", "My landlady's number is 07700 900222."]
    assert current_adds(engine, "r19-chain", adds, every_add_stored=True) == [0, 1]


@pytest.mark.parametrize(
    ("fact", "owner"),
    [
        ("The user: el de mi jefe es l.paredes@empresa.es", "jefe"),
        ("The user: o do meu chefe é joao@empresa.pt", "chefe"),
    ],
)
def test_an_article_before_a_genitive_stands_for_the_thing_told_before(fact: str, owner: str) -> None:
    """ "My e-mail is ...; my boss's is ...": the elided thing is the owner's."""
    assert read(fact).owners == {owner}


@pytest.mark.parametrize(
    ("fact", "subjects"),
    [
        ("The user: eşim 38 bin alıyor", {"eşim"}),
        ("The user: mon coloc Hugo boit 5 cafés par jour", {"coloc", "hugo"}),
        ("The user's flatmate moved to Leeds.", {"flatmate"}),
    ],
)
def test_a_partner_before_a_number_and_a_flatmate_are_subjects(fact: str, subjects: set[str]) -> None:
    assert read(fact).subjects == subjects


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (
            [
                "Mi correo es ana@correo.es.",
                "El de mi jefe es luis@empresa.es.",
                "Cambié de correo, ahora uso ana88@gmail.com.",
            ],
            [1, 2],
        ),
        (["maaşım 35 bin TL", "eşim 38 bin alıyor"], [0, 1]),
    ],
)
def test_another_persons_value_of_the_same_kind_stays(engine: Any, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"r19-other-{adds[1][:10]}", adds, every_add_stored=True) == current


def test_a_named_partners_possessive_is_the_partners_thing(engine: Any) -> None:
    assert read("The user's wife Ana's number is 555-4444.").subjects == {"wife", "ana"}
    adds = [
        "My phone number is 555-1234.",
        "I changed my number, it's 555-9876 now.",
        "My wife Ana's number is 555-4444.",
    ]
    assert current_adds(engine, "r19-ana", adds, every_add_stored=True) == [1, 2]
