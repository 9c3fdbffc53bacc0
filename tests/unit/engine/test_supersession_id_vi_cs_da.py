"""Facts over time in Indonesian, Vietnamese, Czech and Danish.

Each language's lexicon names its attributes (where one lives, works, whom one is with, what
one eats, earns or weighs), its change and additive words and its counted things, so a
changed fact replaces the older one and a fact that adds to it does not ("I also have a
dog", "I also speak some German"). Vietnamese names most attributes with two syllables
("làm việc", "bạn gái"), so its rows are phrases. Phone numbers and e-mail addresses are told
apart by their shape in any language already; the rows below are the kinds that need words.

Two doors: the supersession rule over two stored records (:func:`tests.supersession_pairs.replaces`),
and ``Engine.list(latest_only=True)`` after separate adds through the real engine with the
default embedder (the shared ``engine`` fixture).
"""

from __future__ import annotations

import pytest
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds
from tests.supersession_pairs import replaces as _replaces

#: (older, newer, the cosine the rule is given or None for its own, whether newer replaces)
PAIRS = [
    # Indonesian
    ("The user: Saya tinggal di Bandung.", "The user: Saya sudah pindah ke Surabaya.", None, True),
    ("The user: Saya bekerja di Gojek.", "The user: Sekarang saya bekerja di Tokopedia.", None, True),
    ("The user: Pacar saya namanya Rina.", "The user: Saya dan Rina sudah putus.", None, True),
    ("The user: Berat badan saya 80 kg.", "The user: Berat badan saya turun menjadi 74 kg.", None, True),
    ("The user: Saya vegetarian.", "The user: Saya makan daging lagi.", None, True),
    ("The user: Saya punya seekor kucing.", "The user: Saya juga punya seekor anjing.", 0.7, False),
    ("The user: Saya bisa bahasa Inggris.", "The user: Saya juga bisa sedikit bahasa Jepang.", 0.7, False),
    # Vietnamese
    ("The user: Tôi sống ở Hà Nội.", "The user: Tôi đã chuyển đến Đà Nẵng.", None, True),
    ("The user: Tôi làm việc ở FPT.", "The user: Bây giờ tôi làm việc ở Viettel.", None, True),
    ("The user: Bạn gái tôi tên là Lan.", "The user: Tôi và Lan đã chia tay.", None, True),
    ("The user: Tôi nặng 70 kg.", "The user: Cân nặng của tôi giảm xuống còn 65 kg.", None, True),
    ("The user: Tôi ăn chay.", "The user: Tôi ăn thịt lại rồi.", None, True),
    ("The user: Tôi có một con mèo.", "The user: Tôi cũng có một con chó.", 0.7, False),
    ("The user: Tôi nói tiếng Anh.", "The user: Tôi cũng nói được một chút tiếng Nhật.", 0.7, False),
    # Czech
    ("The user: Bydlím v Brně.", "The user: Přestěhovala jsem se do Prahy.", None, True),
    ("The user: Pracuji ve Škodovce.", "The user: Teď pracuji v Avastu.", None, True),
    ("The user: Mám přítele, jmenuje se Petr.", "The user: S Petrem jsme se rozešli.", None, True),
    ("The user: Vážím 80 kilo.", "The user: Zhubla jsem na 72 kilo.", None, True),
    ("The user: Jsem vegetariánka.", "The user: Zase jím maso.", None, True),
    ("The user: Mám kočku.", "The user: Mám také psa.", 0.7, False),
    ("The user: Mluvím anglicky.", "The user: Mluvím taky trochu německy.", 0.7, False),
    # Danish
    ("The user: Jeg bor i Odense.", "The user: Jeg er flyttet til København.", None, True),
    ("The user: Jeg arbejder hos Novo Nordisk.", "The user: Jeg er blevet ansat hos Mærsk.", None, True),
    ("The user: Min kæreste hedder Mads.", "The user: Mads og jeg har slået op.", None, True),
    ("The user: Jeg vejer 85 kilo.", "The user: Jeg er gået ned til 79 kilo.", None, True),
    ("The user: Jeg er vegetar.", "The user: Jeg spiser kød igen.", None, True),
    ("The user: Jeg har en kat.", "The user: Jeg har også en hund.", 0.7, False),
    ("The user: Jeg taler engelsk.", "The user: Jeg taler også lidt tysk.", 0.7, False),
]


@pytest.mark.parametrize(("older", "newer", "similarity", "replaces"), PAIRS)
def test_a_changed_fact_replaces_the_older_and_an_added_one_does_not(
    older: str, newer: str, similarity: float | None, replaces: bool
) -> None:
    assert _replaces(older, newer, similarity) is replaces


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["Saya tinggal di Bandung.", "Saya sudah pindah ke Surabaya."], [1]),
        (["Saya bekerja di Gojek.", "Sekarang saya bekerja di Tokopedia."], [1]),
        (["Saya punya seekor kucing.", "Saya juga punya seekor anjing."], [0, 1]),
        (["Tôi sống ở Hà Nội.", "Tôi đã chuyển đến Đà Nẵng."], [1]),
        (["Tôi làm việc ở FPT.", "Bây giờ tôi làm việc ở Viettel."], [1]),
        (["Tôi có một con mèo.", "Tôi cũng có một con chó."], [0, 1]),
        (["Bydlím v Brně.", "Přestěhovala jsem se do Prahy."], [1]),
        (["Pracuji ve Škodovce.", "Teď pracuji v Avastu."], [1]),
        (["Mám kočku.", "Mám také psa."], [0, 1]),
        (["Jeg bor i Odense.", "Jeg er flyttet til København."], [1]),
        (["Jeg arbejder hos Novo Nordisk.", "Jeg er blevet ansat hos Mærsk."], [1]),
        (["Jeg har en kat.", "Jeg har også en hund."], [0, 1]),
        # a number that moved, a partner left, a plan moved
        (["Saya punya dua anak.", "Sekarang saya punya tiga anak."], [1]),
        (["Tôi có hai đứa con.", "Bây giờ tôi có ba đứa con."], [1]),
        (["Je mi 34 let.", "Včera jsem oslavila 35 let."], [1]),
        (["Mám přítele Tomáše.", "S Tomášem jsme se rozešli."], [1]),
        (["Tandlægen er på tirsdag.", "Vi har rykket tandlægen til torsdag."], [1]),
        (["Schůzku u zubaře mám v úterý.", "Přesunula jsem schůzku u zubaře na čtvrtek."], [1]),
        # "no longer" around its object
        (["Jeg ryger.", "Jeg ryger ikke længere."], [1]),
        (["Saya merokok.", "Saya tidak merokok lagi."], [1]),
        (["Tôi hút thuốc.", "Tôi không hút thuốc nữa."], [1]),
    ],
)
def test_latest_only_lists_the_current_version_across_adds(engine: Engine, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"l{abs(hash(tuple(adds)))}", adds, every_add_stored=True) == current
