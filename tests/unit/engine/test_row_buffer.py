"""A scope snapshot grows by appending its new vectors into spare rows, never by copying the
scope's, and a snapshot a search is still reading never sees its rows change."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from memorist import Engine
from memorist.engine.row_buffer import MIN_SPARE, RowBuffer
from memorist.engine.scope_index import Pinned
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing


def rows(start: int, count: int, width: int = 4) -> np.ndarray:
    return np.arange(start * width, (start + count) * width, dtype=np.float32).reshape(count, width)


def test_the_newest_view_grows_in_place_and_older_views_keep_their_rows() -> None:
    buffer = RowBuffer()
    first = buffer.appended(rows(0, 3), rows(3, 1))
    second = buffer.appended(first, rows(4, 2))
    third = buffer.appended(second, rows(6, 1))
    np.testing.assert_array_equal(third, rows(0, 7))
    np.testing.assert_array_equal(first, rows(0, 4))  # what an older snapshot's search reads
    np.testing.assert_array_equal(second, rows(0, 6))
    assert np.shares_memory(first, third)  # no copy of the scope while there is room


def test_appending_to_an_older_view_copies_and_leaves_the_newer_one_alone() -> None:
    buffer = RowBuffer()
    base = buffer.appended(rows(0, 2), rows(2, 1))
    newer = buffer.appended(base, rows(3, 1))
    other = buffer.appended(base, rows(100, 1))  # two extensions of one snapshot (a race)
    np.testing.assert_array_equal(newer, rows(0, 4))
    np.testing.assert_array_equal(other, np.vstack([rows(0, 3), rows(100, 1)]))
    assert not np.shares_memory(newer, other)
    # The newer view is no longer the buffer's newest: growing it copies too, and stays right.
    grown = buffer.appended(newer, rows(4, 1))
    np.testing.assert_array_equal(grown, rows(0, 5))
    np.testing.assert_array_equal(other, np.vstack([rows(0, 3), rows(100, 1)]))


def test_running_out_of_room_moves_to_a_larger_buffer() -> None:
    buffer = RowBuffer()
    view = buffer.appended(np.zeros((0, 4), dtype=np.float32), rows(0, 1))
    kept = [view]
    for i in range(1, MIN_SPARE * 3):
        view = buffer.appended(view, rows(i, 1))
        kept.append(view)
    np.testing.assert_array_equal(view, rows(0, MIN_SPARE * 3))
    for count, old in enumerate(kept, 1):
        np.testing.assert_array_equal(old, rows(0, count))


def test_a_scope_grown_by_many_adds_holds_the_stored_vectors(tmp_path: Path) -> None:
    memory = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    try:
        texts = [f"Note {i}: the heron by the pond number {i} ate fish {i * 7}" for i in range(100)]
        memory.add(texts[0], user_id="u1", infer=False)
        for _ in range(2):  # the index loads a scope on its second search
            memory.search("heron", user_id="u1", threshold=0)
        index = memory.scope_index
        assert index is not None
        pinned = Pinned("default", "default", "user_id", "u1")
        seen = []
        for text in texts[1:]:
            memory.add(text, user_id="u1", infer=False)
            snapshot = index.get(pinned)
            assert snapshot is not None
            seen.append((snapshot, snapshot.vectors.copy()))
        assert index.loads == 1  # every add extended the snapshot in place
        last = seen[-1][0]
        expected = memory.components.embedder.embed([r.text for r in last.records], "document")
        np.testing.assert_allclose(last.vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True), atol=1e-5)
        # Appended, not copied: a copy only when the spare rows run out (a quarter of the scope).
        copies = sum(not np.shares_memory(a.vectors, b.vectors) for (a, _), (b, _) in zip(seen, seen[1:], strict=False))
        assert 0 < copies <= 12
        for snapshot, vectors in seen:  # no later add wrote into an earlier snapshot's rows
            np.testing.assert_array_equal(snapshot.vectors, vectors)
        best = memory.search("heron pond number 70", user_id="u1", top_k=1, threshold=0)
        assert best[0].record.text == texts[70]
    finally:
        memory.close()
