"""Memory decay (``memorist.engine.decay``): opt-in, bounded, shown in ``explain``, and off by
default with ranking exactly as before. Real engine (LanceDB + SQLite), hashing embedder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memorist.engine.decay import MAX, MIN, Usage, multiplier
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine

from tests.conftest import fast_settings
from tests.plugins import hashing

QUERY = "hiking trip in the mountains"
OLD = "The user took a hiking trip in the mountains."
FRESH = "The user went on a hiking trip."


def build(tmp_path: Path, **engine: object) -> Engine:
    settings = fast_settings(tmp_path, engine=engine) if engine else fast_settings(tmp_path)
    return Engine.from_config(settings, plugins=load_plugins({}, extra=[hashing]))


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Engine]:
    mem = build(tmp_path)
    old_day = (datetime.now(UTC) - timedelta(days=3 * 365)).isoformat()
    mem.add(OLD, user_id="ana", infer=False, timestamp=old_day)
    mem.add(FRESH, user_id="ana", infer=False)
    yield mem
    mem.close()


def ranked(memory: Engine, **kwargs: object) -> list[tuple[str, float]]:
    return [(h.record.text, h.score) for h in memory.search(QUERY, user_id="ana", threshold=0.0, **kwargs)]


def test_the_multiplier_is_bounded() -> None:
    now = datetime(2026, 3, 1, tzinfo=UTC)
    ancient = multiplier(now - timedelta(days=10_000), Usage(), now, 90.0)
    fresh_unused = multiplier(now, Usage(), now, 90.0)
    fresh_popular = multiplier(now - timedelta(days=400), Usage(1000, now), now, 90.0)
    assert MIN <= ancient < 0.31 and 1.0 <= fresh_unused < 1.05 and fresh_popular == pytest.approx(MAX)


def test_decay_ranks_an_old_unused_memory_below_a_fresh_one(memory: Engine) -> None:
    plain = ranked(memory)
    assert [text for text, _ in plain] == [OLD, FRESH]  # the old one says more of the query
    decaying = memory.search(QUERY, user_id="ana", threshold=0.0, decay=True, explain=True)
    assert [h.record.text for h in decaying] == [FRESH, OLD]
    factors = {h.record.text: h.details["decay"] for h in decaying if h.details}
    assert factors[OLD] < 0.35 and factors[FRESH] > 1.0


def test_an_exact_match_never_decays_below_the_threshold(memory: Engine) -> None:
    threshold = 0.5
    hits = memory.search(QUERY, user_id="ana", threshold=threshold, decay=True)
    old = next(h for h in hits if h.record.text == OLD)  # every query term is in it
    assert old.score >= threshold


def test_retrieval_use_raises_a_memory(memory: Engine) -> None:
    first = {h.record.text: h.score for h in memory.search(QUERY, user_id="ana", threshold=0.0, decay=True)}
    for _ in range(6):
        memory.search(QUERY, user_id="ana", threshold=0.0, decay=True)
    again = {h.record.text: h.score for h in memory.search(QUERY, user_id="ana", threshold=0.0, decay=True)}
    assert again[OLD] > first[OLD] * 2  # retrieved just now, several times: no longer stale


def test_decay_off_leaves_ranking_exactly_as_it_was(memory: Engine, tmp_path: Path) -> None:
    default = ranked(memory)
    assert ranked(memory, decay=False) == default
    for _ in range(3):  # searches with decay off count nothing: later ones are unchanged
        memory.search(QUERY, user_id="ana", threshold=0.0)
    assert memory._changes.usage.read([h.record.id for h in memory.search(QUERY, user_id="ana")]) == {}
    assert ranked(memory) == default


def test_the_yaml_setting_turns_it_on_for_the_server(tmp_path: Path) -> None:
    mem = build(tmp_path, decay=True)
    try:
        old_day = (datetime.now(UTC) - timedelta(days=3 * 365)).isoformat()
        mem.add(OLD, user_id="ana", infer=False, timestamp=old_day)
        mem.add(FRESH, user_id="ana", infer=False)
        assert [h.record.text for h in mem.search(QUERY, user_id="ana", threshold=0.0)] == [FRESH, OLD]
        assert [h.record.text for h in mem.search(QUERY, user_id="ana", threshold=0.0, decay=False)] == [OLD, FRESH]
    finally:
        mem.close()
