"""The ``context`` signal of a search (memorist.engine.candidates): a memory's score mixed with
the best score of the memory stored just before or after it.

A turn can be relevant only next to the turns around it ("How about this series?" beside a
photo of books), so a neighbour's score lifts it; but in an agent's store the facts are added
one after another, and the fact stored right after an answer is usually about something else.
A lift is therefore bounded by the memory's own query similarity over ``CONTEXT_FLOOR``: the
fact that does not resemble the question keeps its own score, and a score still says how
well the memory itself answers (the calibrated scale: an unrelated memory < 0.2).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memorist import Engine
from memorist.config.settings import load_settings
from memorist.engine.candidates import CONTEXT_FLOOR, Candidate, context_signal
from memorist.records import StoreMatch

WHEN = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def _cand(memory_id: str, semantic: float, score: float) -> Candidate:
    return Candidate(StoreMatch(memory_id, semantic, WHEN, None, None), semantic=semantic, score=score)


def test_a_neighbour_lifts_a_memory_by_at_most_its_own_similarity_over_the_floor() -> None:
    """Three memories stored in a row: the best hit in the middle, one that resembles the
    query a little on one side, one that does not resemble it at all on the other."""
    candidates = {
        "related": _cand("related", CONTEXT_FLOOR + 0.02, 0.2),
        "hit": _cand("hit", 0.8, 0.8),
        "unrelated": _cand("unrelated", CONTEXT_FLOOR - 0.05, 0.2),
    }
    context_signal(["related", "hit", "unrelated"], candidates, 0.0, 0.15)
    assert candidates["unrelated"].context == pytest.approx(0.8)  # the signal itself is reported
    assert candidates["unrelated"].score == pytest.approx(0.2)  # no resemblance: not lifted
    # 0.15 of the way to the hit would be +0.09; its resemblance over the floor allows +0.02.
    assert candidates["related"].score == pytest.approx(0.22)
    # A memory that resembles the query well enough takes the whole share.
    close = {"a": _cand("a", 0.6, 0.4), "b": _cand("b", 0.8, 0.8)}
    context_signal(["a", "b"], close, 0.0, 0.15)
    assert close["a"].score == pytest.approx(0.4 + 0.15 * 0.4)


def test_a_weaker_neighbour_still_weighs_on_a_memory() -> None:
    """The bound is on lifts only: a memory among weaker neighbours is still mixed with them
    (what the signal did before), so the order among strong hits keeps its context."""
    candidates = {"a": _cand("a", 0.1, 0.2), "b": _cand("b", 0.8, 0.8)}
    context_signal(["a", "b"], candidates, 0.0, 0.15)
    assert candidates["b"].score == pytest.approx(0.85 * 0.8 + 0.15 * 0.2)


def test_the_fact_stored_right_after_the_answer_keeps_a_low_score(tmp_path: Path) -> None:
    """An agent stores a user's facts seconds apart; the one after the answer is about
    something else and must not get an answer's score from being its neighbour. The session
    pass of :mod:`memorist.engine.expansion`, which reaches further with a bound of its own,
    is off: this is the context signal's share. English: the default embedder
    (all-MiniLM-L6-v2) reads English; the bound itself is checked language-free above."""
    facts = [
        "I just adopted a greyhound named Comet.",
        "My sister Noor lives in Utrecht.",
        "I am allergic to peanuts.",
        "Work meetings are on Tuesdays at 10.",
        "I drive a blue Volvo station wagon.",
    ]
    memory = Engine.from_settings(load_settings(None, {"data_dir": str(tmp_path), "engine": {"session_weight": 0}}))
    try:
        for second, text in enumerate(facts):
            when = f"2024-05-01T09:00:{second:02d}Z"
            memory.add([{"role": "user", "content": text}], user_id="maya", infer=False, timestamp=when)
        for question in ("Which dog did I adopt?", "greyhound named Comet"):
            hits = memory.search(question, user_id="maya", top_k=10, threshold=0.0)
            scores = {h.record.text: h.score for h in hits}
            assert hits[0].record.text == facts[0] and scores[facts[0]] >= 0.5, (question, scores)
            assert scores[facts[1]] < 0.2, (question, scores)
    finally:
        memory.close()


@pytest.mark.parametrize("context_weight", [0.0, 0.15])
def test_a_reply_that_resembles_the_question_a_little_is_lifted_by_its_neighbour(
    tmp_path: Path, context_weight: float
) -> None:
    """What the signal is for, kept by the bound: a reply that says little on its own ("She
    chews every shoe", MiniLM cosine 0.31 to the question) ranks above a fact that resembles
    the question as much (cosine 0.33) because it answers the turn that names the puppy. With
    the signal off (weight 0) it does not; both orders are asserted so the test can fail."""
    settings = {"data_dir": str(tmp_path), "engine": {"context_weight": context_weight}}
    memory = Engine.from_settings(load_settings(None, settings))
    try:

        def say(text: str, speaker: str = "Caroline") -> None:
            message = {"role": "user", "content": text, "name": speaker}
            memory.add([message], user_id="u1", timestamp="2023-05-08T13:56:00Z")

        say("I adopted a puppy named Biscuit last week.")
        say("She chews every shoe in the house.", "Melanie")
        say("I repaired the old fence in the garden.")
        say("I baked sourdough bread for the market.")
        hits = memory.search("Tell me about the puppy Biscuit", user_id="u1", top_k=10, threshold=0.0)
        ranked = [h.record.text for h in hits]
        assert "Biscuit" in ranked[0]
        reply = next(i for i, text in enumerate(ranked) if "chews every shoe" in text)
        bread = next(i for i, text in enumerate(ranked) if "sourdough" in text)
        assert (reply < bread) == (context_weight > 0), ranked
    finally:
        memory.close()
