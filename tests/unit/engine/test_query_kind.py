"""The kind of a query (issue 35, part 2): a lookup by words, or an agent's turn.

A query naming no entity of the scope has its keyword and context weights scaled by its
lookup share, the share of its terms its best keyword hit holds (``engine.query_kind``):
an agent's turn, whose words a memory shares only by accident, is ranked by meaning.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from memorist import Engine as Memory
from memorist.engine.query_kind import lookup_share, scaled_keyword_weight


@pytest.mark.parametrize(
    ("query", "best_hit", "share"),
    [
        # An agent's turn: one word of three in common, by accident.
        ("What should I bring to the office potluck?", "Our company moved to a new office building.", 1 / 3),
        ("Recommend a good book for my holiday.", "I always book hotels that have a pool.", 1 / 4),
        # A lookup: every term the query has is in the memory.
        ("peanuts", "I am allergic to peanuts.", 1.0),
        ("book sale Saturday", "The library's book sale is on Saturday.", 1.0),
        # Other languages, read as the keyword index reads them (their stemmers, their stop words).
        ("¿Qué llevo a la comida de la oficina?", "La oficina nueva tiene una cocina enorme.", 1 / 4),
        ("Was soll ich zum Mittagessen im Büro mitbringen?", "Das neue Büro hat eine große Küche.", 1 / 4),
        ("ジム", "火曜日はジムに行きます。", 1.0),
    ],
)
def test_the_lookup_share_is_the_share_of_the_querys_terms_its_best_hit_holds(
    query: str, best_hit: str, share: float
) -> None:
    assert lookup_share(query, best_hit) == pytest.approx(share)


def test_no_keyword_hit_is_no_lookup_and_a_query_of_stop_words_keeps_its_signals() -> None:
    assert lookup_share("Can you suggest a dinner recipe for tonight?", None) == 0.0
    assert lookup_share("Who am I?", None) == 1.0  # nothing to tell its kind by


def test_the_keyword_weight_is_scaled_and_the_weights_still_sum_to_one() -> None:
    weights = np.array([0.7, 0.2, 0.1])
    assert scaled_keyword_weight(weights, 1.0) == pytest.approx(weights)
    assert scaled_keyword_weight(weights, 0.5) == pytest.approx(np.array([0.7, 0.1, 0.1]) / 0.9)
    assert scaled_keyword_weight(np.array([0.0, 0.2, 0.0]), 0.0) == pytest.approx([1.0, 0.0, 0.0])


#: One user's memories: the fact a reading request needs, and others that share its words.
SAID = (
    "I mostly read crime novels.",
    "I always book hotels that have a pool.",
    "The library's book sale is on Saturday.",
    "My sister is on holiday in Greece.",
    "Tom booked a holiday cottage in Wales.",
    "I'm allergic to cats.",
)


@pytest.fixture(params=[True, False], ids=["scope-index", "store"])
def memory(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Memory]:
    """The default engine (real MiniLM and LanceDB; ``engine.query_kind`` is on by default),
    searching from the scope's in-memory snapshot or from the store (where the best keyword
    hit's text is read from the table)."""
    engine = Memory.from_config({"data_dir": str(tmp_path), "engine": {"scope_index": request.param}})
    try:
        for text in SAID:
            engine.add([{"role": "user", "content": text}], user_id="maya")
        yield engine
    finally:
        engine.close()


def test_turned_off_a_shared_word_still_counts(tmp_path: Path) -> None:
    """``query_kind: false`` ranks the turn with the configured weights, as before it existed."""
    engine = Memory.from_config({"data_dir": str(tmp_path), "engine": {"query_kind": False}})
    try:
        for text in SAID:
            engine.add([{"role": "user", "content": text}], user_id="maya")
        hits = engine.search("Recommend a good book for my holiday.", user_id="maya", top_k=3)
        assert hits[0].record.text == "The user: Tom booked a holiday cottage in Wales."
    finally:
        engine.close()


def test_an_agents_turn_is_ranked_by_meaning_not_by_a_shared_word(memory: Memory) -> None:
    # "book" and "holiday" are in three other memories; none of them is about reading.
    hits = memory.search("Recommend a good book for my holiday.", user_id="maya", top_k=3)
    assert hits[0].record.text == "The user mostly read crime novels.", [(h.record.text, h.score) for h in hits]
    assert hits[0].score >= 0.5  # and it scores as an answer on the calibrated scale


def test_a_lookup_by_words_keeps_the_keyword_signal(memory: Memory) -> None:
    hits = memory.search("book sale", user_id="maya", top_k=3, explain=True)
    assert hits[0].record.text == "The user: The library's book sale is on Saturday."
    details = hits[0].details
    assert details is not None and details["keyword"] > 0
    # Every term of the query is in the memory (share 1): the configured weights hold, keyword
    # (0.2 of the 0.9 the two signals found have) and context (0.15) included.
    base = (0.7 * details["semantic"] + 0.2 * details["keyword"]) / 0.9
    assert details["raw_score"] == pytest.approx(0.85 * base + 0.15 * details["context"], abs=1e-5)
