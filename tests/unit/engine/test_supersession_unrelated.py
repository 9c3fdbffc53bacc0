"""A change told in another language than English hides no unrelated fact (#36).

The default embedder (MiniLM, trained on English) gives two short unrelated statements in
Dutch, German or Swedish a cosine near 0.6 whatever they say, above the supersession rule's
English-set bars, so a move told with a change word hid any short fact of the user under
``latest_only``. The rule now counts such a cosine only as far as it is above the
language's chance level where no word of the two facts backs it
(:mod:`memorist.engine.chance_cosine`): the unrelated fact stays current, a real change in
the same language still replaces the older value (its words agree: "woon in" / "verhuisd
naar" are both residence), English reads as before, and an embedder whose chance is
English's in every language keeps the cosine as it is. The door: the engine's ``add`` and
``list(latest_only=True)`` (real LanceDB, SQLite, the heuristic extractor and the default
ONNX embedder).
"""

from __future__ import annotations

import numpy as np
import pytest
from memorist.engine.chance_cosine import ChanceCosine, fact_language, on_english_scale
from memorist.engine.supersession_reading import read
from memorist.engine.supersession_rule import supersedes
from memorist.language import lexicon
from memorist.python.engine import Engine

from tests.supersession_pairs import current_adds, record

UNRELATED = [
    ("nl", "Ik heb een kat.", "Ik ben verhuisd naar Groningen."),
    ("nl", "Ik speel graag schaak.", "Ik ben verhuisd naar Utrecht."),
    ("de", "Ich habe eine Katze.", "Ich bin nach Hamburg umgezogen."),
    ("de", "Ich spiele gern Schach.", "Ich bin nach Leipzig umgezogen."),
    ("sv", "Jag har en katt.", "Jag har flyttat till Göteborg."),
    ("sv", "Jag spelar gärna schack.", "Jag har flyttat till Malmö."),
    ("it", "Ho un gatto.", "Mi sono trasferito a Torino."),
    ("ru", "Я люблю играть в шахматы.", "Теперь я работаю в банке."),
    ("pt", "Tenho um cachorro.", "Me mudei para Curitiba."),
    ("it", "Mi piace cucinare la pasta.", "Adesso lavoro in una banca."),
]


@pytest.mark.parametrize(("code", "older", "newer"), UNRELATED)
def test_a_move_keeps_an_unrelated_fact_current(engine: Engine, code: str, older: str, newer: str) -> None:
    assert current_adds(engine, f"unrelated-{code}-{older}", [older, newer], every_add_stored=True) == [0, 1]


CHANGES = [
    ("nl", "Ik woon in Utrecht.", "Ik ben verhuisd naar Groningen."),
    ("nl", "Mijn telefoonnummer is 06-12345678.", "Mijn nieuwe telefoonnummer is 06-87654321."),
    ("de", "Ich wohne in München.", "Ich bin nach Hamburg umgezogen."),
    ("de", "Ich bin Verkäuferin bei einem Bäcker.", "Jetzt arbeite ich als Krankenpflegerin in einer Klinik."),
    ("sv", "Jag bor i Uppsala.", "Jag har flyttat till Göteborg."),
    ("fr", "Je suis boulanger à Lyon.", "J'ai quitté la boulangerie, je suis maintenant chauffeur de taxi."),
    ("it", "Mangio di tutto.", "Da un mese sono diventata vegana."),
    ("zh", "我的手机号是13812345678。", "我换了新号码，现在是13987654321。"),
]


@pytest.mark.parametrize(("code", "older", "newer"), CHANGES)
def test_a_real_change_still_replaces(engine: Engine, code: str, older: str, newer: str) -> None:
    assert current_adds(engine, f"change-{code}-{older}", [older, newer], every_add_stored=True) == [1]


def test_english_reads_as_before(engine: Engine) -> None:
    assert current_adds(engine, "en-unrelated", ["I have a cat.", "I moved to Boston."]) == [0, 1]
    assert current_adds(engine, "en-change", ["I live in Denver.", "I moved to Boston."]) == [1]
    chance = ChanceCosine(lambda texts: np.asarray(engine.components.embedder.embed(texts, "document")), "t-en")
    for similarity in (0.1, 0.45, 0.6, 0.93):
        assert chance.relative(similarity, "The user lives in Denver.", "The user moved to Boston.") == similarity
    assert chance.relative(None, "Ik heb een kat.", "Ik ben verhuisd.") is None


def test_the_cosine_counts_where_words_do_not_back_it() -> None:
    """The rule itself: a cosine above the bar links a Dutch move to a cat as it is, and not
    once read against chance; a Dutch move after a fact of where one lives links either way."""
    cat, home, move = (
        "The user: Ik heb een kat.",
        "The user: Ik woon in Utrecht.",
        "The user: Ik ben verhuisd naar Groningen.",
    )
    assert supersedes(record(move, 6), record(cat, 2), 0.62)
    assert not supersedes(record(move, 6), record(cat, 2), 0.62, above_chance=0.2)
    assert supersedes(record(move, 6), record(home, 2), 0.72, above_chance=0.2)


def _spread(n: int, dims: int = 64, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, dims))


def test_an_embedder_that_knows_every_language_keeps_its_cosines() -> None:
    """A multilingual embedder scores unrelated statements alike in every language: its cosines
    read as they are. One that gives a language's statements a shared direction (as MiniLM
    does Dutch) has them read lower there, and English stays as it is."""

    def even(texts: list[str]) -> np.ndarray:
        return _spread(len(texts), seed=len(texts))

    def inflated(texts: list[str]) -> np.ndarray:
        vectors = _spread(len(texts), seed=len(texts))
        shared = np.ones(vectors.shape[1]) * 3.0
        return np.asarray([v + shared if fact_language(t) == "nl" else v for t, v in zip(texts, vectors, strict=True)])

    # The statements of each lexicon are embedded one language at a time: the fake reads the
    # language from the texts it is given.
    dutch = ("The user: Ik ben verhuisd naar Groningen.", "The user: Ik heb een kat.")
    assert ChanceCosine(even, "t-even").relative(0.62, *dutch) == pytest.approx(0.62, abs=0.06)
    read_lower = ChanceCosine(inflated, "t-inflated")
    assert read_lower.relative(0.62, *dutch) < 0.45
    assert read_lower.relative(0.62, "The user lives in Denver.", "The user moved to Boston.") == 0.62


def test_the_english_scale() -> None:
    english = 0.14
    assert on_english_scale(0.6, english, english) == pytest.approx(0.6)
    assert on_english_scale(0.62, 0.62, english) == pytest.approx(english)  # chance reads as chance
    assert on_english_scale(1.0, 0.55, english) == pytest.approx(1.0)
    # An embedder that embeds every statement of a script alike says nothing there.
    assert on_english_scale(1.0, 0.999, english) == english


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("The user: Ich bin Verkäuferin bei Aldi.", "employer"),
        ("The user: bin lehrerin an einer grundschule in bonn", "employer"),
        ("The user: Faccio la commessa in una libreria.", "employer"),
        ("The user: Mangio di tutto, anche il pesce.", "diet"),
        ("The user: 我换了新号码。", "phone"),
    ],
)
def test_the_language_names_the_attribute_by_words(text: str, attribute: str) -> None:
    assert attribute in read(text).attributes


@pytest.mark.parametrize(
    "text", ["The user: Ich bin oft bei meinen Eltern.", "The user: Ich bin gestern bei meiner Oma gewesen."]
)
def test_a_visit_is_no_german_role(text: str) -> None:
    assert "employer" not in read(text).attributes


def test_a_speaker_label_is_not_the_facts_language() -> None:
    assert fact_language("The user: Ik ben verhuisd naar Groningen.") == "nl"
    assert fact_language("The user moved to Boston.") == "en"


def test_every_lexicon_with_statements_has_several() -> None:
    for code in ("en", "de", "nl", "sv", "fr", "it", "es", "ja", "zh", "ko", "ru"):
        statements = lexicon(code).get("unrelated_statements")
        assert statements and len(statements) >= 6, code
