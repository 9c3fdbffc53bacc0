"""A memory's stored vector blends the fact's vector with the user's own message
(``engine.source_vector_weight``), identically in the store, in the scope snapshot and
through the batched add, and without changing what the duplicate rule merges."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist import Engine as Memory
from memorist.engine.scope_index import Pinned
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing

#: What a user says, in several languages and styles; the heuristic extractor restates some.
SAID = [
    "I'm vegetarian.",
    "My daughter Ines just started university in Porto.",
    "I work from home on Mondays and Fridays.",
    "Je suis allergique aux arachides.",
    "Ich habe einen Hund namens Bruno.",
]
USER = Pinned("default", "default", "user_id", "u1")


def engine(data_dir: Path, **engine_settings: Any) -> Memory:
    # The fact's side of the blend is its stored text here: the heuristic's own-words vector
    # (tests/unit/engine/test_own_words.py) is switched off so the blend is measured alone.
    heuristic = {"provider": "heuristic", "options": {"own_words": False}}
    settings = fast_settings(data_dir, engine=engine_settings, language_model=heuristic)
    return Memory.from_config(settings, plugins=load_plugins({}, extra=[hashing]))


def unit(v: np.ndarray) -> np.ndarray:
    out: np.ndarray = v / np.linalg.norm(v)
    return out


def expected(memory: Memory, text: str, message: str, weight: float) -> np.ndarray:
    embed = memory.components.embedder.embed
    fact, said = embed([text], "document")[0], embed([message], "document")[0]
    if text.strip() == message.strip():
        return unit(fact)
    return unit((1 - weight) * fact + weight * said)


def stored_vectors(memory: Memory) -> dict[str, np.ndarray]:
    found = memory.components.vector_store.snapshot(USER.filter(), 100)
    assert found is not None
    records, vectors = found
    return {r.text: unit(v) for r, v in zip(records, vectors, strict=True)}


def add_each(memory: Memory) -> dict[str, str]:
    """Adds every message of :data:`SAID` alone; returns each stored memory's message."""
    source: dict[str, str] = {}
    for message in SAID:
        for record in memory.add([{"role": "user", "content": message}], user_id="u1"):
            source[record.text] = message
    return source


@pytest.mark.parametrize("weight", [0.0, 0.5, 0.8])
def test_store_and_snapshot_hold_the_blend_of_fact_and_message(tmp_path: Path, weight: float) -> None:
    memory = engine(tmp_path, source_vector_weight=weight)
    try:
        source = add_each(memory)
        assert len(source) >= len(SAID)
        assert any(text != message for text, message in source.items()), "the extractor restated nothing"
        in_store = stored_vectors(memory)
        index = memory.scope_index
        assert index is not None
        snapshot = index.get(USER)
        assert snapshot is not None
        in_snapshot = {r.text: v for r, v in zip(snapshot.records, snapshot.vectors, strict=True)}
        for text, message in source.items():
            want = expected(memory, text, message, weight)
            np.testing.assert_allclose(in_store[text], want, atol=1e-5)
            np.testing.assert_allclose(in_snapshot[text], want, atol=1e-5)
    finally:
        memory.close()


def test_a_batched_add_stores_the_vectors_single_adds_store(tmp_path: Path) -> None:
    one, bulk = engine(tmp_path / "one", source_vector_weight=0.5), engine(tmp_path / "bulk", source_vector_weight=0.5)
    try:
        add_each(one)
        bulk.add_many([bulk.add_request([{"role": "user", "content": m}], user_id="u1") for m in SAID])
        a, b = stored_vectors(one), stored_vectors(bulk)
        assert a.keys() == b.keys()
        for text in a:
            np.testing.assert_allclose(a[text], b[text], atol=1e-5)
    finally:
        one.close()
        bulk.close()


def test_a_search_by_the_users_own_words_finds_the_memory_at_once(tmp_path: Path) -> None:
    """Read-your-writes: the next search (snapshot and store path alike) ranks the memory by its blended vector."""
    on, off = engine(tmp_path, source_vector_weight=0.5), engine(tmp_path, source_vector_weight=0.5, scope_index=False)
    try:
        source = add_each(on)
        for text, message in source.items():
            for memory in (on, off):
                hits = memory.search(message, user_id="u1", top_k=1, threshold=0)
                assert [h.record.text for h in hits] == [text]
    finally:
        on.close()
        off.close()


def test_saying_the_same_again_is_still_merged(tmp_path: Path) -> None:
    memory = engine(tmp_path, source_vector_weight=0.5)
    try:
        first = add_each(memory)
        outcome = memory.add([{"role": "user", "content": SAID[1]}], user_id="u1")
        assert outcome == []
        assert len(stored_vectors(memory)) == len(first)
    finally:
        memory.close()


def test_the_weight_is_bounded() -> None:
    from memorist.config.engine_settings import EngineSettings
    from pydantic import ValidationError

    assert EngineSettings().source_vector_weight >= 0
    with pytest.raises(ValidationError, match="source_vector_weight"):
        EngineSettings(source_vector_weight=1.5)
