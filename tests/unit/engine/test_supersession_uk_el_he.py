"""Facts over time in Ukrainian, Greek and Hebrew.

Each language's lexicon names its attributes (where one lives, works, whom one is with,
what one eats, earns, weighs or studies, how old one is), its change and additive words and
its counted things, so a changed fact replaces the older one and a fact that adds to it
does not ("I also have a dog", "I also speak some German"). Phone numbers and e-mail
addresses are told apart by their shape in any language already; the rows below are the
kinds that need words.

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
    # Ukrainian
    ("The user: Я живу в Києві.", "The user: Я переїхала до Львова.", None, True),
    ("The user: Я працюю в Нафтогазі.", "The user: Тепер я працюю в Монобанку.", None, True),
    ("The user: Мій хлопець Андрій.", "The user: Ми з Андрієм розійшлися.", None, True),
    ("The user: Я важу 80 кілограмів.", "The user: Я схуд до 74 кілограмів.", None, True),
    ("The user: Я вегетаріанка.", "The user: Я знову їм м'ясо.", None, True),
    ("The user: Мені 34 роки.", "The user: Вчора мені виповнилося 35.", None, True),
    ("The user: У мене двоє дітей.", "The user: Тепер у нас троє дітей.", None, True),
    ("The user: Я студентка Київського університету.", "The user: Тепер я навчаюся у Варшаві.", None, True),
    ("The user: У мене є кіт.", "The user: У мене також є собака.", 0.7, False),
    ("The user: Я розмовляю англійською.", "The user: Я також трохи розмовляю німецькою.", 0.7, False),
    # Greek
    ("The user: Το ενοίκιό μου είναι 600 ευρώ.", "The user: Το ενοίκιό μου ανέβηκε στα 700 ευρώ.", None, True),
    ("The user: Είμαι χορτοφάγος.", "The user: Τρώω πάλι κρέας.", None, True),
    ("The user: Είμαι 34 χρονών.", "The user: Χθες έκλεισα τα 35.", None, True),
    ("The user: Είμαι ανύπαντρος.", "The user: Αρραβωνιαστήκαμε τον περασμένο μήνα.", None, True),
    ("The user: Ζυγίζω 80 κιλά.", "The user: Έπεσα στα 74 κιλά.", None, True),
    ("The user: Ο μισθός μου είναι 1500 ευρώ.", "The user: Ο μισθός μου αυξήθηκε στα 1800 ευρώ.", None, True),
    ("The user: Έχω μια γάτα.", "The user: Έχω επίσης έναν σκύλο.", 0.7, False),
    ("The user: Μιλάω αγγλικά.", "The user: Μιλάω επίσης λίγα γερμανικά.", 0.7, False),
    # Hebrew
    ("The user: אני שוקל 80 קילו.", "The user: ירדתי ל 74 קילו.", None, True),
    ("The user: אני צמחוני.", "The user: חזרתי לאכול בשר.", None, True),
    ("The user: המשכורת שלי 12000 שקל.", "The user: המשכורת שלי עלתה ל 14000 שקל.", None, True),
    ("The user: אני רווק.", "The user: התארסתי בחודש שעבר.", None, True),
    ("The user: אני בן 34.", "The user: אתמול מלאו לי 35.", None, True),
    ("The user: אני לומד באוניברסיטת תל אביב.", "The user: עברתי ללמוד בטכניון.", None, True),
    ("The user: יש לי חתול.", "The user: יש לי גם כלב.", 0.7, False),
    ("The user: אני מדבר אנגלית.", "The user: אני מדבר גם קצת גרמנית.", 0.7, False),
]


@pytest.mark.parametrize(("older", "newer", "similarity", "replaces"), PAIRS)
def test_a_changed_fact_replaces_the_older_and_an_added_one_does_not(
    older: str, newer: str, similarity: float | None, replaces: bool
) -> None:
    assert _replaces(older, newer, similarity) is replaces


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        # a new city, employer, partner, diet, age, school (a new phone number or e-mail address
        # is told by its shape in every language already, and a moved weight, rent or salary
        # by the embedder's cosine; the pairs above hold the rule to them)
        (["Мій хлопець Андрій.", "Ми з Андрієм розійшлися."], [1]),
        (["У мене двоє дітей.", "Тепер у нас троє дітей."], [1]),
        (["Είμαι 34 χρονών.", "Χθες έκλεισα τα 35."], [1]),
        (["Είμαι ανύπαντρος.", "Αρραβωνιαστήκαμε τον περασμένο μήνα."], [1]),
        (["אני רווק.", "התארסתי בחודש שעבר."], [1]),
        (["אני בן 34.", "אתמול מלאו לי 35."], [1]),
        (["אני לומד באוניברסיטת תל אביב.", "עברתי ללמוד בטכניון."], [1]),
        (["Я живу в Києві.", "Я переїхала до Львова."], [1]),
        (["Я працюю в Нафтогазі.", "Тепер я працюю в Монобанку."], [1]),
        (["Я вегетаріанка.", "Я знову їм м'ясо."], [1]),
        (["Мені 34 роки.", "Вчора мені виповнилося 35."], [1]),
        (["У мене є кіт.", "У мене також є собака."], [0, 1]),
        (["Я розмовляю англійською.", "Я також трохи розмовляю німецькою."], [0, 1]),
        (["Είμαι χορτοφάγος.", "Τρώω πάλι κρέας."], [1]),
        (["Έχω μια γάτα.", "Έχω επίσης έναν σκύλο."], [0, 1]),
        (["Μιλάω αγγλικά.", "Μιλάω επίσης λίγα γερμανικά."], [0, 1]),
        (["אני צמחוני.", "חזרתי לאכול בשר."], [1]),
        (["יש לי חתול.", "יש לי גם כלב."], [0, 1]),
        (["אני מדבר אנגלית.", "אני מדבר גם קצת גרמנית."], [0, 1]),
    ],
)
def test_latest_only_lists_the_current_version_across_adds(engine: Engine, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"l{abs(hash(tuple(adds)))}", adds, every_add_stored=True) == current
