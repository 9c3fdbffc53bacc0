"""Kinds of change the supersession rule reads by mechanism, each in several languages.

- a diet is a state and the phrases that end it ("is vegetarian" / "started eating meat again");
- a household's "we" is the speaker for where they live ("we relocated to Nashville");
- a listener's event handed over by the speaker ("Congratulations on the new job") is the
  listener's fact: in an assistant's turn, the user's;
- a Romance profession told without an article is a role ("Je suis comptable dans une banque");
- a quantity said to move ("down to 76 kg") replaces its unit's older value;
- a kind of taste read by meaning ("listens to a lot of pop" / "lately really into jazz",
  "loves rock music" / "these days mostly listens to hip hop");
- a partner named through the possessive is the subject of what follows ("husband eats meat");
- a question the other party answers opens the answer's memory, not a memory of its own.

The rows are the lexicons' (``language/lexicons/*.yaml``), the mechanisms
:mod:`memorist.engine.supersession_reading` and :mod:`memorist.engine.supersession_rule`.
Pairs are read with the rule alone; the doors (``Memory.search`` / ``Engine.list`` with
``latest_only``) run the real engine, with the hashing embedder where words decide and with
the default embedder where meaning does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from memorist.engine.attribute_prototypes import TASTE, AttributeReader, prototypes
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.python.memory import Memory

from tests.conftest import fast_settings
from tests.plugins import hashing
from tests.supersession_pairs import current_adds
from tests.supersession_pairs import replaces as _replaces


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user is vegetarian.", "The user started eating meat again."),
        ("The user: Je suis végétarien.", "The user: J'ai recommencé à manger de la viande."),
        ("The user: Soy vegetariana.", "The user: Volví a comer carne."),
        ("The user: Ich bin Vegetarier.", "The user: Ich esse wieder Fleisch."),
        ("The user: Sono vegano.", "The user: Ho ricominciato a mangiare carne."),
        ("The user: Sou vegetariano.", "The user: Voltei a comer carne."),
        ("The user: Я вегетарианец.", "The user: Я снова ем мясо."),
    ],
)
def test_a_diet_ended_replaces_the_diet(older: str, newer: str) -> None:
    assert _replaces(older, newer)


@pytest.mark.parametrize(
    "newer",
    [
        "The user's dog eats meat.",
        # A partner named through the possessive is the subject of what follows ...
        "The user's husband eats meat though.",
        "The user: Mi novio come carne.",
        "The user: Mein Freund isst Fleisch.",
    ],
)
def test_what_a_relative_or_partner_eats_is_no_diet_of_the_user(newer: str) -> None:
    assert not _replaces("The user is vegetarian.", newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # ... but a partner's name or the couple is the speaker's relationship.
        ("The user's partner's name is Sam.", "Sam and the user separated in the spring."),
        ("The user: Mi novio se llama Pablo.", "The user: Pablo y yo lo dejamos."),
        ("The user: Meine Freundin heißt Anna.", "The user: Anna und ich haben uns getrennt."),
    ],
)
def test_a_partners_name_stays_the_speakers_relationship(older: str, newer: str) -> None:
    assert _replaces(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: Estoy casada con Pedro.", "The user: Pedro y yo nos divorciamos el año pasado."),
        ("The user: Sono sposata con Marco.", "The user: Io e Marco siamo divorziati."),
        ("The user: Sou casada com o João.", "The user: Eu e o João nos divorciamos."),
    ],
)
def test_a_divorce_told_with_the_couple_as_subject_ends_the_marriage(older: str, newer: str) -> None:
    assert _replaces(older, newer)


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        (
            "The user is living in Austin at the moment.",
            "Last weekend (the weekend of 3 January 2026) we relocated to Denver for the user's husband's job.",
            True,
        ),
        ("The user lives in Leeds.", "We moved to Bristol in the spring.", True),
        ("The user lives in Leeds.", "Our new address is 4 Park Road, Bristol.", True),
        # "We" for anything but the home stays the group's: an outing is no move.
        ("The user lives in Leeds.", "We went hiking in the Lake District.", False),
        # Our pet's place is the pet's.
        ("The user lives in Leeds.", "Our dog lives with the user's parents now.", False),
    ],
)
def test_a_households_we_is_the_speaker_for_where_they_live(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer) is replaces


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        (
            "The user has been a barista at a café downtown for two years.",
            "The assistant: Congratulations on the new job as a bank teller! Arrive early.",
            True,
        ),
        (
            "The user: Je travaille chez Renault.",
            "The assistant: Félicitations pour le nouveau poste chez Airbus !",
            True,
        ),
        ("The user: Trabajo en un banco.", "The assistant: ¡Felicidades por el nuevo trabajo en Google!", True),
        # The user's congratulation is someone else's news, a named speaker's too.
        ("The user works as a teacher.", "The user: Congrats on the new job!", False),
        ("Tim works at a bank.", "Tim: Congrats on the new team.", False),
        # The assistant's own news about a job names nobody's job of the user's.
        (
            "The user has been a barista at a café downtown.",
            "The assistant: The new job board lists bank tellers.",
            False,
        ),
    ],
)
def test_a_congratulation_is_about_the_listener(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer) is replaces


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        ("The user: Je suis comptable dans une banque.", "The user: J'ai été embauchée chez Airbus.", True),
        ("The user: Soy contable en un banco.", "The user: Me contrataron en Google.", True),
        ("The user: Sono contabile presso una banca.", "The user: Sono stata assunta da Ferrari.", True),
        ("The user: Sou contador num banco.", "The user: Fui contratado pela Embraer.", True),
        # A compound past is no role; a mood where one is is no employer.
        ("The user: Je suis allée chez le médecin.", "The user: J'ai été embauchée chez Airbus.", False),
        ("The user: Soy feliz en Madrid.", "The user: Me contrataron en Google.", False),
    ],
)
def test_a_romance_profession_without_its_article_is_a_role(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer) is replaces


@pytest.mark.parametrize(
    ("older", "newer", "replaces"),
    [
        ("The user weighs 82 kg.", "The user: Down to 76 kg after the diet.", True),
        ("The user: Je pèse 82 kilos.", "The user: Je suis descendue à 76 kg.", True),
        ("The user: Peso 82 kilos.", "The user: Bajé a 76 kilos con la dieta.", True),
        ("The user's rent is $1,200 a month.", "The user's rent rose to $1,400 a month.", True),
        # A number told in words ("three coffees"), not an article ("a coffee").
        ("The user drinks three coffees a day.", "The user has cut down to one coffee a day.", True),
        ("The user: Tomo tres cafés al día.", "The user: Bajé a dos cafés al día.", True),
        # A script without spaces: the row ends the run before the number.
        ("The user: 我每个月房租3000元。", "The user: 房租涨到3500元了。", True),
        # No word says the quantity moved: another thing of the same unit.
        ("The user pays 45 dollars a month for the gym.", "The user's phone plan costs 30 dollars a month.", False),
        # An event's quantity is no value the user holds.
        ("The user ran 5 km on Saturday.", "The user: Down to 4 km on Sunday, my knee hurt.", False),
    ],
)
def test_a_quantity_said_to_move_replaces_its_units_older_value(older: str, newer: str, replaces: bool) -> None:
    assert _replaces(older, newer, 0.3) is replaces


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # "two" and "a lot of" are how many, not what: nothing else is shared.
        ("The user has two cats.", "The user bought two new bikes."),
        ("The user listens to a lot of pop music.", "The user has been reading a lot of sci-fi lately."),
        ("The user runs every weekend.", "The user now bakes bread every weekend."),
    ],
)
def test_a_value_word_is_no_shared_topic(older: str, newer: str) -> None:
    assert not _replaces(older, newer)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    engine = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    yield Memory(engine=engine)
    engine.close()


def _exchange(question: str, answer: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]


@pytest.mark.parametrize(
    ("first", "second", "query"),
    [
        ("I'm vegetarian.", "I started eating meat again last month.", "what does the user eat"),
        ("Je suis végétarien.", "J'ai recommencé à manger de la viande.", "végétarien viande"),
        ("I live in Leeds.", "Last month we relocated to Bristol for my wife's job.", "where does the user live"),
        ("I weigh 82 kg.", "Down to 76 kg after the diet.", "weight kg"),
        ("Peso 82 kilos.", "Bajé a 76 kilos con la dieta.", "kilos"),
        ("Je suis comptable dans une banque.", "Je viens d'être embauchée chez Airbus.", "travail"),
        (
            "I've been a barista at a café downtown for two years.",
            _exchange("Any tips for my first week?", "Congratulations on the new job as a bank teller!"),
            "job",
        ),
        (
            _exchange("What should I put on my CV?", "Since you work as a nurse at St Mary's, lead with patient care."),
            "I started a new job as a pharmacist at CVS.",
            "job",
        ),
    ],
)
def test_latest_only_search_shows_the_new_version(
    memory: Memory, first: str | list[dict[str, str]], second: str | list[dict[str, str]], query: str
) -> None:
    older = memory.add(first, user_id="kim", timestamp="2026-03-02T09:00:00Z")["results"]
    newer = memory.add(second, user_id="kim", timestamp="2026-03-06T09:00:00Z")["results"]
    assert older and newer
    found = {m["id"] for m in memory.search(query, user_id="kim", latest_only=True, threshold=0.0)["results"]}
    assert {m["id"] for m in newer} <= found
    assert not found & {m["id"] for m in older}


def test_an_answered_question_opens_the_answer(memory: Memory) -> None:
    said = memory.add(
        _exchange("What should I put on my CV?", "Since you work as a nurse, lead with patient care."), user_id="kim"
    )
    texts = [m["memory"] for m in said["results"]]
    assert len(texts) == 1, texts
    assert texts[0].startswith('The user asked "What should I put on my CV?"'), texts
    # Unanswered, the question still states what it states.
    alone = memory.add("Have you seen my new car?", user_id="lee")["results"]
    assert len(alone) == 1 and "new car" in alone[0]["memory"], alone


VOCABULARY = ("job", "nurse", "jazz", "music", "tea", "drink", "hike")


def _counts(texts: list[str]) -> np.ndarray:
    return np.array(
        [[text.lower().split().count(w) for w in VOCABULARY] for text in texts], dtype=np.float32
    ) + np.float32(1e-3)


ROWS = [
    ("occupation", "job nurse"),
    ("open", "hike"),
    (f"{TASTE}music", "music jazz"),
    (f"{TASTE}drink", "drink tea"),
]


def test_a_fact_of_no_attribute_is_read_for_its_kind_of_taste() -> None:
    reader = AttributeReader(_counts, ROWS)
    # An attribute comes first; a taste's kind only for a fact that names none.
    assert reader.of(["nurse job", "jazz music", "tea drink", "hike hike"]) == [
        "occupation",
        f"{TASTE}music",
        f"{TASTE}drink",
        None,
    ]
    # As near to two kinds: none.
    assert reader.attribute_of("jazz tea") is None


def test_the_lexicons_hold_kinds_of_taste() -> None:
    kinds = {kind for kind, _ in prototypes() if kind.startswith(TASTE)}
    assert {f"{TASTE}food", f"{TASTE}drink", f"{TASTE}music"} <= kinds


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        # A taste told of late replaces the older taste of its kind, though only one says so.
        (["I mostly listen to classical music.", "Lately I've been really into techno."], [1]),
        (["I eat a lot of Italian food.", "Lately I've been really into Korean food."], [1]),
        # The older states the taste, the newer a change of its kind in no taste word.
        (["I love rock music.", "These days I mostly listen to hip hop."], [1]),
        # Another kind, or a thing merely new, adds to the taste.
        (["I listen to a lot of pop music.", "I've been reading a lot of sci-fi lately."], [0, 1]),
        (["I like green tea.", "I bought a new coffee machine."], [0, 1]),
        (["I like green tea.", "I love my new espresso machine."], [0, 1]),
        (["I love Italian food.", "I'm really into jazz these days."], [0, 1]),
        (["I love rock music.", "I bought a new guitar."], [0, 1]),
        (["My favourite sport is tennis.", "These days I'm reading a lot of history books."], [0, 1]),
        # A speaker named past an opening phrase is the subject ("With the new baby the user ...").
        (["I sleep about 8 hours a night.", "With the new baby I'm lucky to get 5 hours of sleep."], [1]),
    ],
)
def test_a_taste_of_one_kind_told_as_changed_replaces_it(engine: Engine, adds: list[str], current: list[int]) -> None:
    assert current_adds(engine, f"t{abs(hash(tuple(adds)))}", adds) == current
