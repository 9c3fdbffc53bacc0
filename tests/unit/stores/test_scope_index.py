"""The scope index: pinned searches from in-memory snapshots, ranked as the store ranks them,
coherent with writes made by any engine on the same data, bounded in memory."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist import Engine as Memory
from memorist.engine import scope_index
from memorist.engine.keywords import Postings, terms
from memorist.engine.scope_index import Pinned
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing

TOPICS = [
    "I love hiking in the mountains with my dog Max",
    "Caroline went to an LGBTQ support group yesterday",
    "Melanie painted a sunset over the lake last week",
    "We adopted a cat named Luna from the shelter",
    "I am training for the Boston marathon in April",
    "Caroline is researching adoption agencies for her family",
    "My favourite book is Dune by Frank Herbert",
    "Melanie took the kids camping at the beach",
    "I ran ten kilometres along the river this morning",
    "The pottery class on Saturday was so much fun",
    "Running shoes wear out after about eight hundred kilometres",
    "Caroline's grandmother gave her a necklace from Sweden",
]
QUERIES = [
    "What did Caroline research?",
    "hiking with the dog",
    "When is the marathon?",
    "pottery class",
    "Who is Luna?",
    "running running kilometres",
    "Sweden necklace grandmother",
]


def engine(data_dir: Path, **engine_settings: Any) -> Memory:
    # The expansion through the best hits is a second pass over a snapshot only (a search the
    # store answers is not expanded, see tests/unit/engine/test_expansion.py): these tests
    # compare what the snapshot's retrievers rank with what the store's rank.
    engine_settings = {"linked_weight": 0.0, "feedback_weight": 0.0, "session_weight": 0.0, **engine_settings}
    settings = fast_settings(data_dir, engine=engine_settings)
    return Memory.from_config(settings, plugins=load_plugins({}, extra=[hashing]))


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[Memory, Memory]]:
    """Two engines on one data directory, as two processes would be: index on, index off."""
    on, off = engine(tmp_path), engine(tmp_path, scope_index=False)
    yield on, off
    on.close()
    off.close()


def remember(memory: Memory, text: str, user: str = "u1", **kwargs: Any) -> str:
    stored = memory.add([{"role": "user", "content": text, "name": "Caroline"}], user_id=user, infer=False, **kwargs)
    assert len(stored) == 1
    return stored[0].id


def fill(memory: Memory, user: str = "u1", rounds: int = 3) -> None:
    for i in range(rounds):
        for j, text in enumerate(TOPICS):
            remember(
                memory,
                f"{text} (round {i})",
                user,
                metadata={"round": i, "kind": "even" if j % 2 == 0 else "odd"},
                timestamp=f"2024-0{1 + i}-{10 + j:02d}T10:00:00Z",
                custom_categories={"hobbies": ""} if j % 3 == 0 else None,
            )


def ranked(memory: Memory, query: str, **kwargs: Any) -> list[tuple[str, float, dict[str, Any]]]:
    kwargs.setdefault("user_id", "u1")
    hits = memory.search(query, top_k=50, threshold=0, explain=True, **kwargs)
    return [(h.record.id, h.score, h.details or {}) for h in hits]


def warm(memory: Memory, user: str = "u1") -> None:
    """Two searches of the user's scope: the index loads a scope on its second search."""
    for _ in range(2):
        memory.search("warm up", user_id=user, threshold=0)


def assert_same(a: list[tuple[str, float, dict[str, Any]]], b: list[tuple[str, float, dict[str, Any]]]) -> None:
    """The same hits with the same scores and signals, in the same order except within ties
    (scores equal up to float rounding: two paths' float32 sums may order those either way)."""
    assert len(a) == len(b)
    by_id = {hit[0]: hit for hit in b}
    assert by_id.keys() == {hit[0] for hit in a}
    for (id_a, score_a, details_a), (id_b, score_b, _) in zip(a, b, strict=True):
        assert id_a == id_b or score_a == pytest.approx(score_b, abs=1e-6)
        _, expected, expected_details = by_id[id_a]
        assert score_a == pytest.approx(expected, abs=1e-5)
        for signal in ("semantic", "keyword", "keyword_bm25", "entity", "temporal", "context"):
            assert details_a[signal] == pytest.approx(expected_details[signal], abs=1e-4), signal


FILTERS: list[dict[str, Any]] = [
    {},
    {"filters": {"metadata.kind": "even"}},
    {"filters": {"AND": [{"user_id": "u1"}, {"metadata.round": {"in": [0, 2]}}]}},
    {"filters": {"created_at": {"gte": "2024-02-01T00:00:00Z"}}},
    {"filters": {"observed_at": {"lt": "2024-01-15T00:00:00Z"}, "metadata.kind": {"ne": "odd"}}},
]


@pytest.mark.parametrize("extra", FILTERS, ids=lambda f: str(f.get("filters", "scope only")))
def test_index_ranks_exactly_as_the_store_path(pair: tuple[Memory, Memory], extra: dict[str, Any]) -> None:
    on, off = pair
    fill(on)
    on.components.vector_store.optimize()  # the store's BM25 over one index (its statistics are the scope's)
    for query in QUERIES:
        assert_same(ranked(on, query, **extra), ranked(off, query, **extra))
    index = on.scope_index
    assert index is not None and index.loads == 1  # one load, then every search from memory
    assert off.scope_index is None


def test_bm25_scores_match_the_lancedb_index(pair: tuple[Memory, Memory]) -> None:
    on, _ = pair
    fill(on, rounds=1)
    store = on.components.vector_store
    store.optimize()
    records = store.list(None, 0, 100)
    postings = Postings(r.text for r in records)
    for query in [*QUERIES, "very", "cafés"]:
        expected = {h.record.id: h.score for h in store.search_keyword(query, 100)}
        scores = postings.scores(query)
        found = {r.id: float(scores[i]) for i, r in enumerate(records) if scores[i] > 0}
        assert found.keys() == expected.keys(), query
        for record_id, score in expected.items():
            assert found[record_id] == pytest.approx(score, rel=1e-4)
    assert terms("The runners were running very far, cafés!") == ["runner", "run", "veri", "far", "cafe"]


def test_writes_from_another_engine_are_seen_at_once(pair: tuple[Memory, Memory]) -> None:
    reader, writer = engine_pair = pair
    del engine_pair
    fill(writer, rounds=1)
    warm(reader)
    index = reader.scope_index
    assert index is not None
    loads = index.loads
    fresh = remember(writer, "I bought a kayak called Blue Heron")
    assert ranked(reader, "kayak Blue Heron")[0][0] == fresh
    # An add alone: the reader's snapshot took just the new memory (no reload).
    assert (index.loads, index.catch_ups) == (loads, 1)
    writer.update(fresh, text="I sold my kayak and bought a canoe", org_id="default", project_id="default")
    top = reader.search("canoe", user_id="u1", top_k=1, threshold=0)[0]
    assert top.record.id == fresh and "canoe" in top.record.text
    writer.delete(fresh)
    assert fresh not in [hit[0] for hit in ranked(reader, "canoe kayak")]
    writer.delete_all(user_id="u1")
    assert ranked(reader, "pottery") == []
    remember(writer, "A new start with penguins")
    assert [h.record.text for h in reader.search("penguins", user_id="u1", threshold=0)] == [
        "A new start with penguins"
    ]
    writer.reset()
    assert ranked(reader, "penguins") == []
    # The update, the two deletes and the reset are not adds: each made the reader reload.
    # The penguin came after the reload that followed delete_all: the reader caught up with it.
    assert (index.loads - loads, index.catch_ups) == (4, 2)


def test_an_engines_own_writes_are_seen_by_its_next_search(tmp_path: Path) -> None:
    memory = engine(tmp_path)
    try:
        fill(memory, rounds=1)
        warm(memory)
        fresh = remember(memory, "The zebra at the zoo was named Stripes")
        assert ranked(memory, "zebra Stripes")[0][0] == fresh
        memory.delete(fresh)
        assert fresh not in [hit[0] for hit in ranked(memory, "zebra Stripes")]
    finally:
        memory.close()


def test_expired_memories_disappear_when_their_time_comes(pair: tuple[Memory, Memory]) -> None:
    on, off = pair
    remember(on, "The old parking pass for lot B", expiration_date="2020-01-01")
    kept = remember(on, "The new parking pass for lot C")
    assert [hit[0] for hit in ranked(on, "parking pass")] == [kept]
    assert [hit[0] for hit in ranked(on, "parking pass", show_expired=True)] == [
        hit[0] for hit in ranked(off, "parking pass", show_expired=True)
    ]
    assert len(ranked(on, "parking pass", show_expired=True)) == 2


def test_eviction_keeps_the_row_budget_and_large_scopes_use_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scope_index, "EAGER_ROWS", 4)  # scopes above 4 memories load on their second search
    memory = engine(tmp_path, scope_index_rows=10, scope_index_max_rows=6)
    reference = engine(tmp_path, scope_index=False)
    try:
        for user, count in (("a", 5), ("b", 4), ("c", 3), ("big", 7)):
            for i in range(count):  # written by the other engine: this one loads only for its searches
                remember(reference, f"{TOPICS[i]} for {user}", user)
        index = memory.scope_index
        assert index is not None
        assert ranked(memory, "hiking dog", user_id="a")  # adds loaded the small scopes (write-through since)
        for user in ("a", "b", "c"):
            warm(memory, user)
            assert index.rows <= 10
        assert index.cached() == [Pinned("default", "default", "user_id", u).key for u in ("b", "c")]
        assert index.rows == 7
        # Above the per-scope cap: answered by the store (the same ranking), never cached.
        warm(memory, "big")
        assert_same(ranked(memory, "hiking dog", user_id="big"), ranked(reference, "hiking dog", user_id="big"))
        assert Pinned("default", "default", "user_id", "big").key not in index.cached()
        loads = index.loads
        ranked(memory, "hiking dog", user_id="big")
        assert index.loads == loads  # remembered as too large until the scope changes
        # Not pinned to one scope (two users): the store's path.
        both = memory.search("hiking", filters={"user_id": {"in": ["a", "b"]}}, top_k=20, threshold=0)
        assert {h.record.user_id for h in both} == {"a", "b"}
        assert index.loads == loads
    finally:
        memory.close()
        reference.close()


def test_duplicate_lookups_of_an_add_use_a_current_snapshot(pair: tuple[Memory, Memory]) -> None:
    on, off = pair
    first = remember(on, "I keep bees on the roof of my bakery")
    warm(on)  # the scope is now held in memory
    index = on.scope_index
    assert index is not None
    view = index.current(Pinned("default", "default", "user_id", "u1"))
    assert view is not None
    vector = on.components.embedder.embed(["I keep bees on the roof of my bakery"], "document")[0]
    assert [h.record.id for h in view.search_vector(vector, 1)] == [first]
    outcome = on.add_outcome(
        [{"role": "user", "content": "I keep bees on the roof of my bakery"}], user_id="u1", infer=False
    )
    assert outcome.stored == [] and outcome.merged[0].memory_id == first
    pinned = Pinned("default", "default", "user_id", "u1")
    assert index.current(pinned) is not None
    other = remember(off, "Someone else's note")  # another engine's add: the snapshot catches up with it
    caught = index.current(pinned)
    assert caught is not None and other in caught.snapshot.rows and index.loads == 1
    off.update(other, text="Someone else's changed note")  # not an add: stale until a search reloads it
    assert index.current(pinned) is None


def test_snapshot_vectors_are_normalized_copies_of_the_stored_ones(pair: tuple[Memory, Memory]) -> None:
    on, _ = pair
    fill(on, rounds=1)
    index = on.scope_index
    assert index is not None
    pinned = Pinned("default", "default", "user_id", "u1")
    snapshot = index.get(pinned)  # a small scope is loaded on its first search
    assert snapshot is not None and len(snapshot) == len(TOPICS)
    np.testing.assert_allclose(np.linalg.norm(snapshot.vectors, axis=1), 1.0, atol=1e-5)
    expected = on.components.embedder.embed([r.text for r in snapshot.records], "document")
    np.testing.assert_allclose(snapshot.vectors, expected, atol=1e-5)
    assert snapshot.order == on.components.vector_store.sequence(Pinned("default", "default", "user_id", "u1").filter())


def test_two_engines_over_postgresql_see_each_others_writes(tmp_path: Path, pg_fresh_url: str) -> None:
    def node(name: str) -> Memory:
        settings = fast_settings(tmp_path / name, database={"url": pg_fresh_url}, vector_store={"provider": "pgvector"})
        return Memory.from_config(settings, plugins=load_plugins({}, extra=[hashing]))

    a, b = node("a"), node("b")
    try:
        fill(a, rounds=1)
        warm(b)  # b holds the scope in memory now
        index = b.scope_index
        assert index is not None
        loads = index.loads
        fresh = remember(a, "I bought a kayak called Blue Heron")
        assert ranked(b, "kayak Blue Heron")[0][0] == fresh
        assert (index.loads, index.catch_ups) == (loads, 1)  # b took just the new memory
        a.update(fresh, text="I sold my kayak and bought a canoe")
        assert "canoe" in b.search("canoe", user_id="u1", top_k=1, threshold=0)[0].record.text
        a.delete(fresh)
        assert fresh not in [hit[0] for hit in ranked(b, "canoe kayak")]
        a.delete_all(user_id="u1")
        assert ranked(b, "pottery") == []
        assert (index.loads, index.catch_ups) == (loads + 3, 1)  # the update and the deletes: reloads
    finally:
        a.close()
        b.close()


@pytest.mark.process
def test_a_served_add_is_found_by_the_next_search_on_either_worker(tmp_path: Path) -> None:
    from memorist.testing.server import ADMIN, Server

    server = Server(tmp_path / "data", workers=2).start()
    try:
        for i in range(12):
            text = f"Note {i}: the meeting moved to room {100 + i} on the {i + 2}th floor"
            added = server.post(
                "/memories",
                headers=ADMIN,
                json={"messages": [{"role": "user", "content": text}], "user_id": "ida", "infer": False},
            ).json()["results"]
            # Two searches: with two workers at least one lands on the process that did not add.
            for _ in range(2):
                found = server.post(
                    "/search", headers=ADMIN, json={"query": f"room {100 + i}", "user_id": "ida", "top_k": 3}
                ).json()["results"]
                assert added[0]["id"] in [hit["id"] for hit in found]
            if i % 4 == 3:
                assert server.request("DELETE", f"/memories/{added[0]['id']}", headers=ADMIN).status_code == 200
                found = server.post(
                    "/search", headers=ADMIN, json={"query": f"room {100 + i}", "user_id": "ida", "top_k": 20}
                ).json()["results"]
                assert added[0]["id"] not in [hit["id"] for hit in found]
    finally:
        server.stop()


def test_an_engines_own_adds_are_written_through_without_a_reload(pair: tuple[Memory, Memory]) -> None:
    on, off = pair
    fill(on, rounds=1)
    warm(on)
    index = on.scope_index
    assert index is not None
    loads = index.loads
    fresh = [remember(on, f"The zebra number {i} at the zoo was named Stripes {i}") for i in range(3)]
    on.add_many([on.add_request("A walrus named Wally", user_id="u1", infer=False)])
    for query in ["zebra Stripes", "walrus Wally", *QUERIES]:
        assert_same(ranked(on, query), ranked(off, query))
    assert ranked(on, "zebra Stripes")[0][0] in fresh
    assert index.loads == loads  # every add applied in place, none reloaded
    remember(off, "Another engine's otter")  # another engine's add: the next search catches up with it
    assert "otter" in on.search("otter", user_id="u1", top_k=1, threshold=0)[0].record.text
    assert (index.loads, index.catch_ups) == (loads, 1)
    for query in ["otter", "walrus Wally", *QUERIES]:
        assert_same(ranked(on, query), ranked(off, query))


def test_id_and_hash_lookups_accept_exactly_what_evaluate_accepts() -> None:
    """An add's ``hash in (...)`` and the queue's ``id nin (...)`` are answered from the
    snapshot's dicts, never evaluated row by row: the rows must be those ``evaluate`` keeps,
    on a loaded snapshot and on one extended by this process's own adds."""
    from memorist.engine.scope_snapshot import Snapshot
    from memorist.filters import And, Condition, evaluate
    from memorist.records import MemoryRecord, normalized_hash, utcnow

    def record(i: int, text: str) -> MemoryRecord:
        now = utcnow()
        return MemoryRecord(
            id=f"m{i}",
            text=text,
            hash=normalized_hash(text),
            user_id="u1",
            observed_at=now,
            created_at=now,
            updated_at=now,
        )

    texts = ["Bees on the roof", "bees on the roof", "A cat named Luna", "Dune", "Dune", "Sweden"]
    loaded = [record(i, t) for i, t in enumerate(texts[:4])]
    added = [record(i + 4, t) for i, t in enumerate(texts[4:])]
    pinned = Pinned("default", "default", "user_id", "u1")
    first = Snapshot.build(pinned, (0, 1), loaded, np.eye(4, 8, dtype=np.float32))
    grown = first.extended((0, 2), added, np.eye(2, 8, k=4, dtype=np.float32))
    hashes = {r.hash for r in loaded + added}
    cases = [
        Condition("hash", "in", (normalized_hash("Dune"), "nothing")),
        Condition("hash", "in", tuple(hashes)),
        Condition("hash", "eq", normalized_hash("bees on the roof")),
        Condition("hash", "nin", (normalized_hash("Sweden"),)),
        Condition("id", "in", ("m1", "m5", "m9")),
        Condition("id", "nin", ("m0", "m4")),
        Condition("id", "eq", "m3"),
        Condition("id", "in", ()),
        And((pinned.filter(), Condition("hash", "in", (normalized_hash("A cat named Luna"),)))),
    ]
    for snapshot in (first, grown):
        for where in cases:
            expected = [evaluate(where, r) for r in snapshot.records]
            assert snapshot.accepted(where).tolist() == expected, where
    assert grown.accepted(Condition("hash", "in", (normalized_hash("Dune"),))).tolist() == [
        False, False, False, True, True, False
    ]  # fmt: skip
    assert first.by_hash[normalized_hash("Dune")] == (3,)  # extending copied, never changed, the older snapshot
    # The stored order (created, updated, id): a newer add goes at the end, an older one (an add
    # with a past ``timestamp``) into its place.
    older = record(9, "From last year").model_copy(update={"created_at": loaded[0].created_at - timedelta(days=365)})
    for snapshot in (grown, grown.extended((0, 4), [older], np.eye(1, 8, dtype=np.float32))):
        assert snapshot.order == [
            r.id for r in sorted(snapshot.records, key=lambda r: (r.created_at, r.updated_at, r.id))
        ]
    assert grown.extended((0, 4), [older], np.eye(1, 8, dtype=np.float32)).order[0] == "m9"
    # A filter another search cached on the older snapshot carries over, extended to the new rows.
    dune = Condition("text", "eq", "Dune")
    assert first.accepted(dune).tolist() == [False, False, False, True]
    third = first.extended((0, 3), added, np.eye(2, 8, k=4, dtype=np.float32))
    assert dune in third.masks
    assert third.accepted(dune).tolist() == [False, False, False, True, True, False]


def _graph_state(graph: Any) -> tuple[Any, ...]:
    return (
        graph.aliases,
        graph.names,
        sorted(graph.proper),
        {e: sorted(m) for e, m in graph.links.items()},
        graph.total,
    )


def _held_scope(memory: Memory) -> tuple[Any, Pinned, Any]:
    """``u1``'s scope filled, searched and held in memory: the index, its pin and snapshot."""
    fill(memory, rounds=1)
    warm(memory)
    index = memory.scope_index
    assert index is not None
    pinned = Pinned("default", "default", "user_id", "u1")
    snapshot = index.get(pinned)
    assert snapshot is not None
    return index, pinned, snapshot


def test_a_graph_grown_by_own_adds_equals_the_partition_read_again(pair: tuple[Memory, Memory]) -> None:
    """Write-through adds extend the snapshot's entity graph from their own links (new
    entities, an alias of a known one, a rename) instead of reading the whole partition."""
    from memorist.engine.scope_graph import ScopeGraph

    on, off = pair
    index, pinned, snapshot = _held_scope(on)
    assert index.graph(snapshot) is not None
    loads = index.loads
    remember(on, "Melanie Smith adopted a walrus named Wally")  # a rename of Melanie, new entities
    remember(on, "Mel and Wally swam to Sweden")  # an alias of a known one, two known
    grown = index.get(pinned)
    assert grown is not None and grown.graph is None and grown.graph_base is not None
    assert index.loads == loads  # written through, not reloaded
    graph = index.graph(grown)
    assert _graph_state(graph) == _graph_state(ScopeGraph.load(on.db, pinned.key))
    for query in ["What did Mel adopt?", "Wally", "Melanie Smith in Sweden", *QUERIES]:
        assert_same(ranked(on, query), ranked(off, query))


def test_a_graph_read_after_the_adds_committed_is_not_counted_twice(pair: tuple[Memory, Memory]) -> None:
    """A search may load the older snapshot's graph between an add's commit and its
    write-through: the grown graph then already holds that add's links."""
    from memorist.engine.scope_graph import ScopeGraph

    on, _ = pair
    index, pinned, before = _held_scope(on)
    before.graph = None  # as if no search had read it yet ...
    real_added = index.added

    def late_search_then_added(*args: Any, **kwargs: Any) -> None:
        index.graph(before)  # ... and one reads it after the commit, before the write-through
        real_added(*args, **kwargs)

    index.added = late_search_then_added  # type: ignore[method-assign]
    try:
        remember(on, "Caroline and Melanie visited Sweden together")
    finally:
        index.added = real_added  # type: ignore[method-assign]
    grown = index.get(pinned)
    assert grown is not None and grown is not before
    assert _graph_state(index.graph(grown)) == _graph_state(ScopeGraph.load(on.db, pinned.key))


def test_a_snapshot_catches_up_with_another_engines_adds_as_a_reload_would(
    pair: tuple[Memory, Memory], tmp_path: Path
) -> None:
    """Several adds by another process (one of them back-dated, one storing two memories, new
    entities among them) reach a held snapshot through the additions log: the searches then
    rank, score and explain exactly as a freshly loaded snapshot does (and, unfiltered, as
    the store path does), with no reload of the scope or of its graph partition."""
    on, off = pair
    index, _, _ = _held_scope(on)
    loads, graph_loads = index.loads, index.graph_loads
    remember(off, "My sister Beatrice moved to Oslo in March")
    remember(off, "Beatrice adopted a husky named Storm", timestamp="2023-05-01T09:00:00Z")  # the oldest memory
    off.add_many(
        [
            off.add_request("Caroline met Beatrice at the pottery class", user_id="u1", infer=False),
            off.add_request("The Oslo apartment has a view of the fjord", user_id="u1", infer=False),
        ]
    )
    queries = ["Beatrice", "Where did Beatrice move?", "husky Storm", "fjord view", *QUERIES]
    for query in queries:
        assert_same(ranked(on, query), ranked(off, query))
    assert (index.loads, index.graph_loads, index.catch_ups) == (loads, graph_loads, 1)
    # A filtered search scores keywords over the snapshot's own statistics: compare it with a
    # snapshot loaded whole by a third engine (a process that started after the adds).
    fresh = engine(tmp_path)
    try:
        warm(fresh)
        for extra in FILTERS:
            for query in ("Beatrice Oslo", "pottery class"):
                assert_same(ranked(on, query, **extra), ranked(fresh, query, **extra))
        assert fresh.scope_index is not None and fresh.scope_index.catch_ups == 0
    finally:
        fresh.close()


def test_a_snapshot_too_far_behind_reloads_and_the_log_stays_short(pair: tuple[Memory, Memory]) -> None:
    from memorist.db.schema import scope_additions
    from memorist.engine.generations import _PRUNE_EVERY, ADDITIONS_KEPT
    from sqlalchemy import func, select

    on, off = pair
    index, _, _ = _held_scope(on)
    loads = index.loads
    for i in range(ADDITIONS_KEPT + 1):
        remember(off, f"Reading log entry {i}: chapter {i} of a long book")
    assert_same(ranked(on, "chapter 7 of a long book"), ranked(off, "chapter 7 of a long book"))
    assert (index.loads, index.catch_ups) == (loads + 1, 0)  # more adds than the log keeps: a reload
    with on.db.connect() as conn:
        kept = conn.execute(select(func.count()).select_from(scope_additions)).scalar()
    assert 0 < kept <= ADDITIONS_KEPT + _PRUNE_EVERY


def test_a_batch_bumps_its_scope_once_and_lands_in_one_step_everywhere(pair: tuple[Memory, Memory]) -> None:
    """``add_many`` commits its requests' rows in one transaction with one generation per
    scope: the adding engine's snapshot takes the whole batch in place, another engine's
    catches up with all of it at once, and both rank as the store path does."""
    on, off = pair
    writer_index, pinned, _ = _held_scope(on)
    reader = engine(on.settings.data_dir)
    try:
        warm(reader)
        reader_index = reader.scope_index
        assert reader_index is not None
        key = pinned.key
        before = on.generations.read(key)
        loads = (writer_index.loads, reader_index.loads)
        texts = ["A heron nests by the canal", "The canal froze in January", "Skating on the frozen canal"]
        stored = on.add_many([on.add_request(t, user_id="u1", infer=False) for t in texts])
        assert [len(s.stored) for s in stored] == [1, 1, 1]
        assert on.generations.read(key) == (before[0] + 1, before[1])  # one bump for the batch
        for query in ["frozen canal", "heron", *QUERIES]:
            expected = ranked(off, query)
            assert_same(ranked(on, query), expected)
            assert_same(ranked(reader, query), expected)
        assert (writer_index.loads, reader_index.loads) == loads
        assert (writer_index.catch_ups, reader_index.catch_ups) == (0, 1)
    finally:
        reader.close()


def _embeds_during_the_load(memory: Memory, embedding_for: str = "query") -> list[bool]:
    """Make the store's scope loads wait (10 s at most) for an embedding (of a query, or of an
    add's ``"document"``) to begin; the list says, per load, whether one did."""
    embedder, store = memory.components.embedder, memory.components.vector_store
    embedding = threading.Event()
    waited: list[bool] = []
    embed, snapshot = embedder.embed, store.snapshot

    def embed_query(texts: Any, purpose: Any = "document") -> Any:
        if purpose == embedding_for:
            embedding.set()
        return embed(texts, purpose)

    def load(where: Any, limit: int) -> Any:
        waited.append(embedding.wait(10))  # never set if the embedding waits for this load
        return snapshot(where, limit)

    embedder.embed, store.snapshot = embed_query, load  # type: ignore[method-assign]
    return waited


def test_a_scopes_first_search_embeds_the_query_while_the_scope_loads(tmp_path: Path) -> None:
    """The query's embedding needs nothing from the scope, so a search that loads the scope
    embeds meanwhile; it ranks as the next search, on the scope now held, does (queries
    with and without a focused form: names common in the scope)."""
    writer = engine(tmp_path)
    fill(writer)
    writer.close()
    for query in QUERIES:
        memory = engine(tmp_path)
        waited = _embeds_during_the_load(memory)
        first = ranked(memory, query)
        assert waited == [True], query
        assert_same(ranked(memory, query), first)
        index = memory.scope_index
        assert index is not None and index.loads == 1
        memory.close()


def test_a_scopes_first_add_embeds_its_facts_while_the_scope_loads(tmp_path: Path) -> None:
    """The first add to a scope the engine holds no snapshot of embeds its facts while the scope
    loads for the duplicate lookups (a search does the same with its query); it decides what the
    store path decides: a repeated fact merged, a paraphrase merged, a new fact stored. An add to
    a scope already held loads nothing."""
    facts = [
        # Stored by fill: same text. The last round's: an earlier round's version was replaced
        # by the next, and told again it would be current again, stored anew.
        "The pottery class on Saturday was so much fun (round 2)",
        "The pottery class on Saturday was so much fun! (round 2)",  # a paraphrase of it
        "Caroline's brother is moving to Oslo next spring",  # new
    ]

    def outcome(memory: Memory) -> tuple[list[str], list[tuple[str, str, str]]]:
        added = memory.add_outcome(
            [{"role": "user", "content": fact, "name": "Caroline"} for fact in facts], user_id="u1", infer=False
        )
        return [r.text for r in added.stored], [(m.text, m.matched_memory or "", m.reason) for m in added.merged]

    expected_dir, cold_dir = tmp_path / "store-path", tmp_path / "cold"
    for data_dir in (expected_dir, cold_dir):
        writer = engine(data_dir)
        fill(writer)
        writer.close()
    reference = engine(expected_dir, scope_index=False)
    expected = outcome(reference)
    reference.close()
    assert expected[0] == [facts[2]] and [reason for _, _, reason in expected[1]] == ["same_text", "paraphrase"]

    cold = engine(cold_dir)
    waited = _embeds_during_the_load(cold, "document")
    assert outcome(cold) == expected
    assert waited == [True]
    again = cold.add_outcome("Caroline's brother plays the cello", user_id="u1", infer=False)
    assert [r.text for r in again.stored] == ["Caroline's brother plays the cello"]
    assert waited == [True]  # the scope was held: no second load
    cold.close()


def test_a_batch_over_scopes_not_held_is_embedded_while_they_load(tmp_path: Path) -> None:
    """``add_many`` over users whose scopes the engine does not hold embeds the batch while it
    loads them (a bulk import over many users loads a scope per user); the outcomes are those of
    one add after another."""
    writer = engine(tmp_path)
    fill(writer, "u1", rounds=1)
    fill(writer, "u2", rounds=1)
    writer.close()
    memory = engine(tmp_path)
    embedder, store = memory.components.embedder, memory.components.vector_store
    loading = threading.Event()
    saw_a_load: list[bool] = []
    embed, snapshot = embedder.embed, store.snapshot

    def embed_documents(texts: Any, purpose: Any = "document") -> Any:
        if purpose == "document":
            saw_a_load.append(loading.wait(10))  # never set if the loads wait for the embedding
        return embed(texts, purpose)

    def load(where: Any, limit: int) -> Any:
        loading.set()
        return snapshot(where, limit)

    embedder.embed, store.snapshot = embed_documents, load  # type: ignore[method-assign]
    texts = {"u1": "I love hiking in the mountains with my dog Max (round 0)", "u2": "Caroline learned to surf"}
    requests = [memory.add_request(text, user_id=user, infer=False) for user, text in texts.items()]
    outcomes = memory.add_many(requests)
    assert saw_a_load == [True]
    assert [(len(o.stored), [m.reason for m in o.merged]) for o in outcomes] == [(0, ["same_text"]), (1, [])]
    memory.close()
