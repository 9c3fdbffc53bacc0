"""The language layer holds the words: the kernel holds no English word list, and a memory
names its speaker in its own language.

The scan reads the kernel's and the bundled plugins' source (``framework/memorist``,
``plugins``) as Python syntax, not as text,
and looks for the shapes a word list takes in code: a set, tuple or list of lower-case
words, a ``"...".split()`` of words, or a regex alternation (``is|am|are``). Such a shape
counts as an English word list when three of its words are English function words, stop
words, months, weekdays or number words, as the English lexicon lists them. Prose (a
docstring, an error message) is none of those shapes, and identifiers (``__all__``) are not
lower case, so the check fails on a list coming back, not on a sentence.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from memorist.engine.relative_time import anchored
from memorist.language import lexicon, lexicons_path
from memorist_heuristic.rewrite import framed, standalone

ROOT = Path(__file__).resolve().parents[3]
KERNEL = ROOT / "framework" / "memorist"
#: Three words of the English lexicon make a list: two can be an idiom ("and/or").
ENOUGH = 3


def _vocabulary() -> frozenset[str]:
    en = lexicon("en")
    found: set[str] = set()
    for name in ("function_words", "index_stop_words", "months", "weekdays"):
        found |= en.words(name)
    return frozenset(found | set(en.mapping("number_words")))


def _english(words: list[str], vocabulary: frozenset[str]) -> bool:
    return sum(w.casefold() in vocabulary for w in words) >= ENOUGH


def word_lists(source: str, vocabulary: frozenset[str]) -> Iterator[tuple[int, list[str]]]:
    """``(line, words)`` of each English word list written in ``source``."""
    for node in ast.walk(ast.parse(source)):
        words: list[str] = []
        if isinstance(node, ast.Set | ast.Tuple | ast.List):
            items = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            words = [s for s in items if s == s.lower() and len(s.split()) <= 2]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "split"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
        ):
            words = node.func.value.value.split()
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "|" in node.value:
            words = [a for a in re.split(r"[|()]|\?:|\\b|\\s[+*]?", node.value) if re.fullmatch(r"[A-Za-z']+", a)]
        if words and _english(words, vocabulary):
            yield node.lineno, words


def test_the_scan_finds_a_word_list_in_each_shape_and_passes_prose() -> None:
    vocabulary = _vocabulary()
    planted = """
MONTHS = "January February March April".split()
STOP = frozenset({"the", "a", "of", "and"})
ORDER = ("monday", "tuesday", "wednesday")
COPULA = re.compile(r"\\b(?:is|am|are|was) \\d+")
"""
    assert sorted(line for line, _ in word_lists(planted, vocabulary)) == [2, 3, 4, 5]
    prose = '''
def f() -> None:
    """The words of a text and the date it was said, for the rest of the add."""
    raise ValueError("the limit is 100 of them and the text has more")
__all__ = ["And", "Or", "Not", "Filter"]
'''
    assert list(word_lists(prose, vocabulary)) == []


def test_the_kernel_and_the_plugins_hold_no_english_word_list() -> None:
    vocabulary = _vocabulary()
    found = [
        f"{path.relative_to(ROOT)}:{line}: {words[:6]}"
        for folder in (KERNEL, ROOT / "plugins")
        for path in sorted(folder.rglob("*.py"))
        for line, words in word_lists(path.read_text(encoding="utf-8"), vocabulary)
    ]
    assert found == [], "word lists belong in framework/memorist/language/lexicons/<code>.yaml"


def test_word_lists_live_in_the_language_layer_only() -> None:
    """One lexicon: no component keeps a word file of its own beside the language layer's."""
    lexicons = lexicons_path()
    strays = [
        str(path.relative_to(ROOT))
        for folder in (KERNEL, ROOT / "plugins")
        for path in folder.rglob("*.yaml")
        if lexicons not in path.parents
    ]
    assert strays == []


# -- the speaker frame ------------------------------------------------------------------


def test_an_english_memory_keeps_its_frame() -> None:
    assert standalone("I live in Lisbon.", "the user") == "The user lives in Lisbon."
    assert standalone("The appointment moved to Monday.", "the user") == "The user: The appointment moved to Monday."
    assert framed("Where do you work?", "the assistant", "question_frame") == 'The assistant asked "Where do you work?"'


def test_a_lexicon_without_a_frame_keeps_the_default_one() -> None:
    """Only English has a frame today (see docs/language.md for why): a fact in another
    language reads as before, whatever its script."""
    assert standalone("私は大阪出身です。", "the user") == "The user: 私は大阪出身です。"
    assert standalone("Я живу в Москве и работаю врачом.", "Kei") == "Kei: Я живу в Москве и работаю врачом."


@pytest.fixture
def german_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    """A German lexicon with the rows a language adds to frame its memories."""
    from memorist.language import Lexicon
    from memorist_heuristic import rewrite

    german = lexicon("de")
    rows = {
        **german.data,
        "speakers": {"user": "der Nutzer", "assistant": "der Assistent"},
        "speaker_frame": "{speaker}: {text}",
    }
    framed_german = Lexicon("de", rows)
    monkeypatch.setattr(rewrite, "lexicon", lambda code="en": framed_german if code == "de" else lexicon(code))


@pytest.mark.usefixtures("german_frame")
def test_a_language_with_a_frame_names_the_speaker_in_its_own_words() -> None:
    said = "Ich wohne in Berlin und trinke gerne grünen Tee."
    assert standalone(said, "the user") == f"Der Nutzer: {said}"
    assert standalone(said, "the assistant") == f"Der Assistent: {said}"
    assert standalone(said, "Ana") == f"Ana: {said}"  # a name is no language's word
    # English and languages without the rows are untouched.
    assert standalone("The appointment moved to Monday.", "the user") == "The user: The appointment moved to Monday."
    assert standalone("私は大阪出身です。", "the user") == "The user: 私は大阪出身です。"


# -- relative dates read through the lexicon ----------------------------------------------

REFERENCE = datetime(2026, 3, 10)


@pytest.mark.parametrize(
    ("query", "written"),
    [
        ("What did I do a couple of weeks ago?", "What did I do a couple of weeks ago (the week of 23 February 2026)?"),
        ("Who called the day before yesterday?", "Who called the day before yesterday (8 March 2026)?"),
        (
            "What did I eat 3 days ago and last month?",
            "What did I eat 3 days ago (7 March 2026) and last month (February 2026)?",
        ),
    ],
)
def test_relative_dates_come_from_the_lexicon_rows(query: str, written: str) -> None:
    assert anchored(query, REFERENCE) == written
