"""Facts over time in Dutch, Swedish, Polish and Turkish, and fuller Arabic and Hindi.

Each language's lexicon names its attributes (where one lives, works, whom one is with,
what one eats, earns or weighs), its change and additive words and its counted things, so a
changed fact replaces the older one and a fact that adds to it does not ("I also have a
dog", "I also speak some German"). Phone numbers and e-mail addresses are told apart by
their shape in any language already; the rows below are the kinds that need words.

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
    # Dutch
    ("The user: Ik woon in Utrecht.", "The user: Ik ben verhuisd naar Groningen.", None, True),
    ("The user: Ik werk bij Philips.", "The user: Ik werk nu bij ASML.", None, True),
    ("The user: Mijn vriendin heet Sanne.", "The user: Sanne en ik zijn uit elkaar.", None, True),
    ("The user: Mijn huur is 1200 euro.", "The user: Mijn huur is gestegen naar 1350 euro.", None, True),
    ("The user: Ik ben vegetariër.", "The user: Ik eet weer vlees.", None, True),
    ("The user: Ik heb een kat.", "The user: Ik heb ook een hond.", 0.7, False),
    ("The user: Ik spreek Engels.", "The user: Ik spreek ook een beetje Duits.", 0.7, False),
    # Swedish
    ("The user: Jag bor i Uppsala.", "The user: Jag har flyttat till Malmö.", None, True),
    ("The user: Jag jobbar på Volvo.", "The user: Nu jobbar jag på Ericsson.", None, True),
    ("The user: Jag har en pojkvän som heter Erik.", "The user: Erik och jag har gjort slut.", None, True),
    ("The user: Jag väger 80 kilo.", "The user: Jag har gått ner till 74 kilo.", None, True),
    ("The user: Jag har en katt.", "The user: Jag har också en hund.", 0.7, False),
    ("The user: Jag talar engelska.", "The user: Jag talar även lite tyska.", 0.7, False),
    # Polish
    ("The user: Mieszkam w Krakowie.", "The user: Przeprowadziłam się do Gdańska.", None, True),
    ("The user: Pracuję w Allegro.", "The user: Teraz pracuję w CD Projekt.", None, True),
    ("The user: Jestem w związku z Tomkiem.", "The user: Rozstaliśmy się.", None, True),
    ("The user: Mam dwoje dzieci.", "The user: Mamy teraz troje dzieci.", None, True),
    ("The user: Mam kota.", "The user: Mam też psa.", 0.7, False),
    ("The user: Mówię po angielsku.", "The user: Mówię również trochę po niemiecku.", 0.7, False),
    # Turkish
    ("The user: İzmir'de yaşıyorum.", "The user: Ankara'ya taşındım.", None, True),
    ("The user: Garanti Bankası'nda çalışıyorum.", "The user: Artık Trendyol'da çalışıyorum.", None, True),
    ("The user: Sevgilim Deniz ile birlikteyiz.", "The user: Deniz ile ayrıldık.", None, True),
    ("The user: İki çocuğum var.", "The user: Artık üç çocuğum var.", None, True),
    ("The user: Bir kedim var.", "The user: Bir de köpeğim var.", 0.7, False),
    ("The user: İngilizce konuşuyorum.", "The user: Ayrıca biraz Almanca konuşuyorum.", 0.7, False),
    # Arabic
    ("The user: خطيبي اسمه أحمد.", "The user: فسخنا الخطوبة.", None, True),
    ("The user: وزني 80 كيلو.", "The user: انخفض وزني إلى 74 كيلو.", None, True),
    ("The user: أنا نباتي.", "The user: عدت لأكل اللحم.", None, True),
    ("The user: عندي قطة.", "The user: عندي أيضا كلب.", 0.7, False),
    ("The user: أتكلم الإنجليزية.", "The user: أتكلم الفرنسية أيضا.", 0.7, False),
    # Hindi
    ("The user: मेरी एक गर्लफ्रेंड है।", "The user: हमारा ब्रेकअप हो गया।", None, True),
    ("The user: मेरी मंगेतर का नाम प्रिया है।", "The user: प्रिया और मेरी सगाई टूट गई।", None, True),
    ("The user: मैं शाकाहारी हूँ।", "The user: मैं अब मीट खाता हूँ।", None, True),
    ("The user: मेरे पास एक बिल्ली है।", "The user: मेरे पास एक कुत्ता भी है।", 0.7, False),
    ("The user: मैं अंग्रेज़ी बोलता हूँ।", "The user: मैं थोड़ी जर्मन भी बोलता हूँ।", 0.7, False),
]


@pytest.mark.parametrize(("older", "newer", "similarity", "replaces"), PAIRS)
def test_a_changed_fact_replaces_the_older_and_an_added_one_does_not(
    older: str, newer: str, similarity: float | None, replaces: bool
) -> None:
    assert _replaces(older, newer, similarity) is replaces


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["Ik woon in Utrecht.", "Ik ben verhuisd naar Groningen."], [1]),
        (["Ik spreek Engels.", "Ik spreek ook een beetje Duits."], [0, 1]),
        (["Jag jobbar på Volvo.", "Nu jobbar jag på Ericsson."], [1]),
        (["Jag har en katt.", "Jag har också en hund."], [0, 1]),
        (["Mieszkam w Krakowie.", "Przeprowadziłam się do Gdańska."], [1]),
        (["Mam kota.", "Mam też psa."], [0, 1]),
        (["İzmir'de yaşıyorum.", "Ankara'ya taşındım."], [1]),
        (["Bir kedim var.", "Bir de köpeğim var."], [0, 1]),
        (["Bekarım.", "Geçen ay nişanlandım."], [1]),
        # a plan moved, a favourite replaced, an age turned
        (["Mijn tandartsafspraak is op dinsdag.", "De tandartsafspraak is verzet naar donderdag."], [1]),
        (["Mitt tandläkarbesök är på tisdag.", "Tandläkarbesöket har flyttats till torsdag."], [1]),
        (["Wizyta u dentysty jest we wtorek.", "Wizyta u dentysty została przełożona na czwartek."], [1]),
        (["Diş randevum salı günü.", "Diş randevum perşembeye ertelendi."], [1]),
        (["Min favoritmat är sushi.", "Numera är pizza min favoritmat."], [1]),
        (["Mam 34 lata.", "Wczoraj skończyłam 35 lat."], [1]),
        (["30 yaşındayım.", "Dün 31 yaşına girdim."], [1]),
        # "no longer" around its object, a change around its object, a household's "we"
        (["Ik eet graag vlees.", "Ik eet geen vlees meer."], [1]),
        (["Jag röker.", "Jag röker inte längre."], [1]),
        (["Palę papierosy.", "Nie palę już papierosów."], [1]),
        (["Middagen med mina föräldrar är på lördag.", "Vi flyttade middagen till söndag."], [1]),
        (["Wizytę u fryzjera mam w środę.", "Przełożyłam wizytę u fryzjera na piątek."], [1]),
        (["We wonen in Delft.", "We zijn verhuisd naar Leiden."], [1]),
        (["Vi bor i Lund.", "Vi har flyttat till Malmö."], [1]),
        (["أنا نباتي.", "عدت لأكل اللحم."], [1]),
        (["عندي قطة.", "عندي أيضا كلب."], [0, 1]),
        (["मेरी एक गर्लफ्रेंड है।", "हमारा ब्रेकअप हो गया।"], [1]),
        (["मेरे पास एक बिल्ली है।", "मेरे पास एक कुत्ता भी है।"], [0, 1]),
    ],
)
def test_latest_only_lists_the_current_version_across_adds(engine: Engine, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"l{abs(hash(tuple(adds)))}", adds, every_add_stored=True) == current
