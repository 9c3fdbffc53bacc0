"""The twentieth round's mechanisms (each positive case failed on the code before):

- a contact value told without a relative (a phone number, an e-mail) is the speaker's own: it
  replaces no relative's value an older fact names, though both are about the speaker;
- a discourse opener ("btw", "anyway") before a possessive chain is not the fact's subject or
  owner, with or without a comma after it;
- in a language that ends its words by case, a relative in another case right after a thing
  the lexicon names owns it ("Номер дружини", "numer żony": the wife's number).
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_reading import read

from tests.supersession_pairs import current_adds, replaces


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's mum's number is 0161 555 0101.", "The user got a new mobile number: 07700 900789."),
        ("The user: El de mi hermano es pablo@correo.es", "The user: ya no uso ana@correo.es, ahora es ana@gmail.com"),
        ("The user's dad's email is tom@mail.com.", "The user has a new email address, ana@work.io."),
    ],
)
def test_the_speakers_new_contact_leaves_a_relatives(older: str, newer: str) -> None:
    assert not replaces(older, newer)


def test_the_speakers_new_contact_replaces_their_own() -> None:
    assert replaces("The user's mobile number is 07700 900123.", "The user got a new mobile number: 07700 900789.")


@pytest.mark.parametrize(
    ("fact", "subjects", "owners"),
    [
        ("btw the user's brother got a new phone, his number is 917-555-0188 now", {"brother"}, set()),
        ("anyway the user's sister's flat is in Leeds now", {"user"}, {"sister"}),
    ],
)
def test_a_discourse_opener_is_no_subject(fact: str, subjects: set[str], owners: set[str]) -> None:
    reading = read(fact)
    assert (reading.subjects, reading.owners) == (subjects, owners)


@pytest.mark.parametrize(
    ("fact", "owner"),
    [
        ("The user: Номер дружини: +380 50 765 43 21.", "дружина"),
        ("The user: Numer żony to 600 100 200.", "żona"),
    ],
)
def test_a_relative_in_the_genitive_case_owns_the_thing_before_it(fact: str, owner: str) -> None:
    assert read(fact).owners == {owner}


@pytest.mark.parametrize(
    "fact",
    ["The user: Odwiedzam siostrę w Krakowie.", "The user: Мій номер +380 67 123 45 67."],
)
def test_a_verb_before_a_relative_or_no_relative_names_no_owner(fact: str) -> None:
    assert read(fact).owners == frozenset()


@pytest.mark.parametrize(
    "adds",
    [
        [
            "My mobile number is 07700 900123.",
            "My mum's number is 07700 900456.",
            "I switched networks and got a new mobile number: 07700 900789.",
        ],
        [
            "Мій номер +380 67 123 45 67.",
            "Номер дружини: +380 50 765 43 21.",
            "Я змінив номер, тепер +380 93 222 11 00.",
        ],
    ],
)
def test_a_new_number_replaces_the_speakers_and_keeps_the_relatives(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"r20-num-{adds[0][:8]}", adds, every_add_stored=True) == [1, 2]


@pytest.mark.parametrize(
    "adds",
    [
        ["I teach history at a school in Hull.", "A college offered me a lecturer post, but I said no."],
        ["Trabajo en un banco en Bilbao.", "Me ofrecieron un puesto en Madrid, pero dije que no."],
        ["Ich arbeite bei Siemens.", "Mir wurde eine Stelle bei Bosch angeboten, aber ich habe abgelehnt."],
        ["Jestem księgową w Poznaniu.", "Zaproponowali mi pracę w Warszawie, ale odmówiłam."],
        ["私は銀行で働いています。", "別の会社からオファーをもらったけど、断った。"],
    ],
)
def test_an_offer_turned_down_replaces_nothing(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"r20-offer-{adds[0][:10]}", adds, every_add_stored=True) == [0, 1]


def test_a_change_beside_an_offer_still_replaces(engine: Any) -> None:
    adds = ["I work at a bakery.", "I got offered a job at the café, so I quit the bakery and work there now."]
    assert current_adds(engine, "r20-offer-taken", adds, every_add_stored=True) == [1]


def test_another_sentences_also_leaves_a_change_a_change(engine: Any) -> None:
    """ "Moved to Jakarta. The new office is there too.": the "too" adds the office, and the
    move still replaces the older city."""
    adds = ["Aku tinggal di Bandung.", "Udah pindah ke Jakarta, ngekos di Tebet. Kantor baru juga di sana."]
    assert current_adds(engine, "r20-juga", adds, every_add_stored=True) == [1]


def test_the_assistants_word_on_a_partners_job_is_the_partners(engine: Any) -> None:
    adds = [
        "I'm a pharmacist at a hospital in York.",
        [
            {"role": "user", "content": "My wife switched jobs, she's at the library now."},
            {"role": "assistant", "content": "Noted: your wife now works at the library."},
        ],
    ]
    assert current_adds(engine, "r20-asst-wife", adds, every_add_stored=True) == [0, 1]


@pytest.mark.parametrize(
    ("fact", "owners"),
    [
        ("The user: 我姐刚搬到深圳了", {"姐姐"}),
        ("The user: 我妈换了微信号", {"妈妈"}),
        ("The user: 今天是我女儿的生日，她五岁了", {"女儿"}),
        ("The user: 我在我妈的公司工作", set()),
        ("The user: 我住在杭州", set()),
    ],
)
def test_a_chinese_run_names_the_speakers_relative(fact: str, owners: set[str]) -> None:
    assert read(fact).owners == owners


def test_a_chinese_relatives_move_leaves_the_speakers_home(engine: Any) -> None:
    adds = ["我住在杭州。", "我哥刚搬到深圳了。"]
    assert current_adds(engine, "r20-zh-move", adds, every_add_stored=True) == [0, 1]


@pytest.mark.parametrize(
    "adds",
    [
        ["Our rent is £900 a month.", "The landlord put the rent up, we pay £980 now. Water is another £30 on top."],
        ["Meine Miete beträgt 700 Euro.", "Die Miete ist gestiegen, ich zahle jetzt 760 Euro. Strom kommt noch dazu."],
    ],
)
def test_one_sentence_changes_though_another_adds(engine: Any, adds: list[str]) -> None:
    """A fact of several sentences, one of them adding ("another £30"), still moves the value
    its other sentence changes."""
    assert current_adds(engine, f"r20-sent-{adds[0][:10]}", adds, every_add_stored=True) == [1]


@pytest.mark.parametrize(
    "adds",
    [
        ["I'm a nurse at a hospital in Leeds.", "Still at the hospital btw, they just gave me a new badge."],
        ["Trabajo en una librería en Lima.", "Todavía en la librería, ahora con un horario nuevo."],
        ["Pracuję w banku w Gdańsku.", "Nadal w banku, dostałam nowy laptop."],
    ],
)
def test_a_state_said_to_go_on_replaces_nothing(engine: Any, adds: list[str]) -> None:
    assert current_adds(engine, f"r20-still-{adds[0][:10]}", adds, every_add_stored=True) == [0, 1]


def test_a_later_clauses_still_leaves_the_change_a_change(engine: Any) -> None:
    adds = ["I live in Denver.", "We moved to Portland last month. The kids are still settling in."]
    assert current_adds(engine, "r20-still-later", adds, every_add_stored=True) == [1]


@pytest.mark.parametrize(
    "adds",
    [
        [
            "I'm a nurse at a clinic in Derby.",
            "A hospital offered me a ward job, but I turned it down. I actually like my team.",
        ],
        [
            "Я працюю вчителькою в Одесі.",
            "Мені запропонували посаду завуча, але я відмовилася. А ще донька пішла в школу!",
        ],
    ],
)
def test_an_offer_turned_down_beside_another_change_word_replaces_nothing(engine: Any, adds: list[str]) -> None:
    """ "Actually" or another sentence's change word is not the offer's: the offer still
    replaces nothing."""
    assert current_adds(engine, f"r20-offer2-{adds[0][:10]}", adds, every_add_stored=True) == [0, 1]


def test_a_best_mates_move_is_the_mates(engine: Any) -> None:
    adds = ["I live in Leeds.", "My best mate Jim just moved to Cardiff for a new job."]
    assert current_adds(engine, "r20-mate", adds, every_add_stored=True) == [0, 1]


def test_danish_auxiliaries_are_no_shared_topic(engine: Any) -> None:
    """ "har" (has) in two Danish facts is no topic they share."""
    adds = [
        "Har også meldt mig til svømning, vi svømmer tirsdag aften.",
        "Min kollega Jens har fået nyt job hos Maersk. Vi holdt frokost for ham i dag.",
    ]
    assert current_adds(engine, "r20-da-har", adds, every_add_stored=True) == [0, 1]
