"""The contract every :class:`memorist.plugin.contracts.VectorStore` must meet, as a reusable pytest suite.

A backend's test module (built-in or a third-party plugin's) subclasses
:class:`VectorStoreContract` and provides two fixtures::

    from memorist.testing.vector_store import VectorStoreContract

    class TestMyStoreContract(VectorStoreContract):
        @pytest.fixture
        def make_store(self, tmp_path): ...   # dimension -> an open store at one fresh location

        @pytest.fixture
        def store(self, make_store):
            return make_store(self.dimension)

* ``make_store(dimension)``: opens (or re-opens) the store at one location
  that is fresh and empty for each test, for vectors of ``dimension``;
  calling it again after ``close()`` must see the same data.
* ``store``: an open store of ``VectorStoreContract.dimension``, normally
  ``make_store(dimension)``.

Only behaviour the contract promises is tested, so the same suite runs
unchanged against every backend. Filter results are checked against
:func:`memorist.filters.evaluate` over the records the test wrote, which is
the reference semantics every store must reproduce exactly. The helpers
(:func:`make_record`, :func:`unit`, :func:`random_vectors`,
:func:`filter_dataset`, ``FILTER_CASES``, ``NASTY_VALUES``; they live in
:mod:`memorist.testing.contract_data`) are public for a backend's own,
store-specific tests. The contract's filter tests (:class:`FilterContract`) and
lifecycle tests (:class:`LifecycleContract`) live in modules of their own.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from memorist.errors import DimensionMismatchError
from memorist.filters import evaluate, parse_filter
from memorist.plugin.contracts import VectorStore

from .contract_data import (
    FILTER_CASES,
    NASTY_VALUES,
    T0,
    ContractBase,
    LoadedStore,
    filter_dataset,
    make_record,
    newest_first,
    random_vectors,
    selected,
    unit,
)
from .filter_contract import FilterContract
from .lifecycle_contract import LifecycleContract

__all__ = [
    "FILTER_CASES",
    "NASTY_VALUES",
    "T0",
    "ContractBase",
    "FilterContract",
    "LifecycleContract",
    "LoadedStore",
    "VectorStoreContract",
    "filter_dataset",
    "make_record",
    "newest_first",
    "random_vectors",
    "selected",
    "unit",
]


class VectorStoreContract(FilterContract, LifecycleContract):
    """Contract tests every :class:`VectorStore` must pass (see module docstring): writes,
    reads and searches here; filter semantics and the store's life across openings in the
    two bases."""

    # fixtures the subclass provides: ``store`` and ``make_store``

    # -- round trip and writes ---------------------------------------------------------------

    def test_roundtrip_every_field(self, store: VectorStore) -> None:
        full = make_record(
            "full",
            "Alice's favourite city is Kraków",
            minutes=5,
            org_id="org-1",
            project_id="proj-1",
            user_id="alice",
            agent_id="agent-1",
            run_id="run-1",
            app_id="app-1",
            categories=["travel", "personal"],
            metadata={
                "city": "Kraków",
                "visits": 3,
                "score": 0.25,
                "ok": True,
                "none": None,
                "nested": {"deep": {"list": [1, "two", {"three": 3}]}},
            },
            attributed_to="user",
            speaker="Alice",
            source_message=2,
            expires_at=datetime(2031, 1, 2, 3, 4, 5, 678901, tzinfo=UTC),
        )
        sparse = make_record("sparse", "minimal", minutes=6)
        store.upsert([full, sparse], random_vectors(2, self.dimension))
        got = {r.id: r for r in store.get(["full", "sparse", "absent"])}
        assert set(got) == {"full", "sparse"}
        assert got["full"] == full
        assert got["sparse"] == sparse
        for record in got.values():
            for date in (record.created_at, record.updated_at, record.observed_at):
                assert date.utcoffset() == timedelta(0)
        assert got["sparse"].user_id is None and got["sparse"].categories == []
        assert got["sparse"].metadata == {} and got["sparse"].expires_at is None

    def test_dates_in_other_timezones_come_back_as_the_same_instant_in_utc(self, store: VectorStore) -> None:
        from datetime import timezone

        local = datetime(2024, 6, 1, 9, 30, 0, 1, tzinfo=timezone(timedelta(hours=-5)))
        store.upsert([make_record("tz", created_at=local)], random_vectors(1, self.dimension))
        (got,) = store.get(["tz"])
        assert got.created_at == local
        assert got.created_at.utcoffset() == timedelta(0)
        assert got.created_at.hour == 14

    def test_upsert_replaces_by_id(self, store: VectorStore) -> None:
        store.upsert([make_record("x", "the old text about zebras", user_id="u")], np.stack([unit(self.dimension, 1)]))
        store.upsert(
            [make_record("x", "the new text about giraffes", user_id="v", categories=["c"])],
            np.stack([unit(self.dimension, 0, 1)]),
        )
        assert store.count() == 1
        (got,) = store.get(["x"])
        assert got.text == "the new text about giraffes" and got.user_id == "v" and got.categories == ["c"]
        assert store.search_keyword("zebras", 5) == []
        assert [h.record.id for h in store.search_keyword("giraffes", 5)] == ["x"]
        (hit,) = store.search_vector(unit(self.dimension, 0, 1), 1)
        assert hit.score == pytest.approx(1.0, abs=1e-4)

    def test_upsert_batch_mixes_inserts_and_replacements(self, store: VectorStore) -> None:
        store.upsert([make_record("a"), make_record("b")], random_vectors(2, self.dimension))
        store.upsert([make_record("b", "b again"), make_record("c")], random_vectors(2, self.dimension, 3))
        assert store.count() == 3
        assert {r.id: r.text for r in store.get(["a", "b", "c"])} == {
            "a": "memory a",
            "b": "b again",
            "c": "memory c",
        }

    def test_upsert_rejects_vectors_of_another_dimension(self, store: VectorStore) -> None:
        with pytest.raises(DimensionMismatchError):
            store.upsert([make_record("a")], random_vectors(1, self.dimension + 1))

    def test_delete_by_id_counts_existing_only(self, store: VectorStore) -> None:
        self.load(store, [make_record(i) for i in ("a", "b", "c")])
        assert store.delete(["a", "c", "missing", "a"]) == 2
        assert [r.id for r in store.list()] == ["b"]
        assert store.delete(["a"]) == 0
        assert store.delete([]) == 0

    def test_delete_where_counts_and_is_not_capped(self, store: VectorStore) -> None:
        records = [make_record(f"m{i:04d}", user_id="bulk" if i % 3 else "keep") for i in range(450)]
        self.load(store, records)
        assert store.delete_where(parse_filter({"user_id": "bulk"})) == 300
        assert store.count() == 150
        assert store.delete_where(parse_filter({"user_id": "bulk"})) == 0
        assert store.count(parse_filter({"user_id": "keep"})) == 150

    def test_reset_empties_and_stays_usable(self, store: VectorStore) -> None:
        self.load(store, filter_dataset())
        store.reset()
        assert store.count() == 0 and store.list() == []
        assert store.search_keyword("Alice", 5) == []
        store.upsert([make_record("again", "a fresh start with penguins")], random_vectors(1, self.dimension))
        assert [r.id for r in store.list()] == ["again"]
        assert [h.record.id for h in store.search_keyword("penguins", 5)] == ["again"]
        assert [h.record.id for h in store.search_vector(random_vectors(1, self.dimension)[0], 5)] == ["again"]

    # -- list and count ----------------------------------------------------------------------

    def test_list_orders_newest_first_ties_by_id_and_paginates(self, store: VectorStore) -> None:
        records = [make_record(f"r{i:02d}", minutes=(i * 7) % 5) for i in range(23)]
        self.load(store, records)
        expected = newest_first(records)
        assert [r.id for r in store.list(limit=100)] == expected
        pages = [store.list(offset=o, limit=5) for o in range(0, 25, 5)]
        assert [r.id for page in pages for r in page] == expected
        assert [r.id for r in store.list(offset=20, limit=10)] == expected[20:]
        assert store.list(offset=23) == []
        assert store.list(limit=0) == []

    def test_list_paginates_after_exact_filtering(self, filter_dataset_store: LoadedStore) -> None:
        store, records = filter_dataset_store.store, filter_dataset_store.records
        for raw in ({"metadata.topic": {"ne": "drinks"}}, {"user_id": {"ne": "bob"}}):
            where = parse_filter(raw)
            expected = newest_first([r for r in records if evaluate(where, r)])
            assert len(expected) > 4
            got = [r.id for o in range(0, len(expected) + 3, 3) for r in store.list(where, offset=o, limit=3)]
            assert got == expected
            assert store.count(where) == len(expected)

    def test_sequence_is_oldest_first_ties_by_write_time_then_id_after_filtering(self, store: VectorStore) -> None:
        # Same created_at (one session's timestamp) for several: the write time orders them.
        records = [
            make_record(f"r{i:02d}", minutes=(i * 7) % 5, updated_at=T0 + timedelta(seconds=(23 - i) // 2))
            for i in range(23)
        ]
        self.load(store, records)
        expected = [r.id for r in sorted(records, key=lambda r: (r.created_at, r.updated_at, r.id))]
        assert store.sequence() == expected
        assert store.sequence(limit=23) == expected
        assert store.sequence(limit=22) is None  # more match than the caller will read
        late = make_record("r99", minutes=9)
        self.load(store, [late])  # a write shows in the next answer (nothing stale is served)
        assert store.sequence() == [*expected, "r99"]
        assert store.sequence(limit=23) is None
        data = filter_dataset()
        store.reset()
        self.load(store, data)
        for raw in ({"user_id": "alice"}, {"metadata.topic": {"ne": "drinks"}}, {"user_id": "nobody"}):
            where = parse_filter(raw)
            kept = sorted((r for r in data if evaluate(where, r)), key=lambda r: (r.created_at, r.updated_at, r.id))
            assert store.sequence(where) == [r.id for r in kept]

    def test_snapshot_returns_the_records_with_their_vectors_or_none_when_too_many(self, store: VectorStore) -> None:
        data = filter_dataset()
        vectors = random_vectors(len(data), self.dimension)
        store.upsert(data, vectors)
        by_id = {r.id: (r, vectors[i]) for i, r in enumerate(data)}
        for raw in ({"user_id": "alice"}, {"metadata.topic": {"ne": "drinks"}}, {"user_id": "nobody"}):
            where = parse_filter(raw)
            snapshot = store.snapshot(where, len(data))
            if snapshot is None:  # the store cannot (the contract's default): nothing else to check
                return
            records, matrix = snapshot
            assert sorted(r.id for r in records) == sorted(r.id for r in data if evaluate(where, r))
            assert matrix.shape == (len(records), self.dimension)
            for record, row in zip(records, matrix, strict=True):
                assert record == by_id[record.id][0]
                np.testing.assert_allclose(row, by_id[record.id][1], atol=1e-6)
        alice = parse_filter({"user_id": "alice"})
        assert store.snapshot(alice, 3) is not None
        assert store.snapshot(alice, 2) is None  # more match than the caller will hold

    def test_count(self, store: VectorStore) -> None:
        assert store.count() == 0
        self.load(store, filter_dataset())
        assert store.count() == len(filter_dataset())
        assert store.count(parse_filter({"user_id": "alice"})) == 3
        assert store.count(parse_filter({"user_id": "nobody"})) == 0

    # -- vector search -----------------------------------------------------------------------

    def test_vector_search_orders_by_cosine_similarity(self, store: VectorStore) -> None:
        d = self.dimension
        cosines = {"same": 1.0, "close": 0.8, "orthogonal": 0.0, "away": -0.6, "opposite": -1.0}
        vectors = {
            "same": unit(d, 1),
            "close": unit(d, 0.8, 0.6),
            "orthogonal": unit(d, 0, 1),
            "away": unit(d, -0.6, 0, 0.8),
            "opposite": unit(d, -1),
        }
        ids = ["orthogonal", "opposite", "same", "away", "close"]
        store.upsert([make_record(i) for i in ids], np.stack([vectors[i] for i in ids]))
        hits = store.search_vector(unit(d, 1), 5)
        assert [h.record.id for h in hits] == ["same", "close", "orthogonal", "away", "opposite"]
        for hit in hits:
            assert -1.0 <= hit.score <= 1.0
            assert hit.score == pytest.approx(cosines[hit.record.id], abs=1e-4)
        assert [h.record.id for h in store.search_vector(unit(d, 1), 2)] == ["same", "close"]
        # cosine ignores length: an unnormalized query ranks the same
        assert [h.record.id for h in store.search_vector(unit(d, 1) * 3, 1)] == ["same"]
        assert store.search_vector(unit(d, 1), 0) == []

    def test_vector_search_returns_full_records(self, filter_dataset_store: LoadedStore) -> None:
        store, records, vectors = filter_dataset_store.store, filter_dataset_store.records, filter_dataset_store.vectors
        (hit,) = store.search_vector(vectors[0], 1)
        assert hit.record == records[0]
        assert hit.score == pytest.approx(1.0, abs=1e-4)

    def test_vector_search_with_filter(self, filter_dataset_store: LoadedStore) -> None:
        store, records, vectors = filter_dataset_store.store, filter_dataset_store.records, filter_dataset_store.vectors
        query = vectors[3]  # b1, which the filter excludes
        for raw in ({"user_id": "alice"}, {"metadata.topic": {"ne": "drinks"}}):
            where = parse_filter(raw)
            allowed = [i for i, r in enumerate(records) if evaluate(where, r)]
            sims = {records[i].id: float(vectors[i] @ query) for i in allowed}
            expected = sorted(sims, key=lambda i: -sims[i])[:2]
            hits = store.search_vector(query, 2, where)
            assert [h.record.id for h in hits] == expected
            assert all(evaluate(where, h.record) for h in hits)

    def test_vector_search_filter_finds_far_matches_past_near_misses(self, store: VectorStore) -> None:
        d = self.dimension
        near = [make_record(f"near{i:02d}", metadata={"keep": False}) for i in range(60)]
        far = [make_record(f"far{i}", metadata={"keep": True}) for i in range(3)]
        near_vectors = np.stack([unit(d, 1, 0.01 * i) for i in range(60)])
        far_vectors = np.stack([unit(d, -1, 0.1 * i, 1) for i in range(3)])
        store.upsert(near + far, np.concatenate([near_vectors, far_vectors]))
        where = parse_filter({"metadata.keep": True})
        hits = store.search_vector(unit(d, 1), 2, where)
        assert len(hits) == 2 and {h.record.id for h in hits} <= {"far0", "far1", "far2"}
        assert len(store.search_vector(unit(d, 1), 10, where)) == 3

    # -- keyword search ----------------------------------------------------------------------

    def test_keyword_search_finds_fresh_rows_immediately(self, store: VectorStore) -> None:
        store.upsert([make_record("k1", "The quick brown fox")], random_vectors(1, self.dimension))
        assert [h.record.id for h in store.search_keyword("fox", 5)] == ["k1"]
        for i in range(5):
            store.upsert(
                [make_record(f"w{i}", f"word{i} appears in walrus note {i}")],
                random_vectors(1, self.dimension, i),
            )
            assert [h.record.id for h in store.search_keyword(f"word{i}", 5)] == [f"w{i}"]
        assert {h.record.id for h in store.search_keyword("walrus", 10)} == {f"w{i}" for i in range(5)}

    def test_keyword_search_ranks_exact_term_matches_first(self, store: VectorStore) -> None:
        self.load(
            store,
            [
                make_record("one-term", "Bob enjoys programming in his spare time"),
                make_record("both-terms", "Alice loves python programming"),
                make_record("unrelated", "Carol likes gardening and tomatoes"),
                make_record("other-term", "A python was seen in the zoo yesterday afternoon"),
            ],
        )
        hits = store.search_keyword("python programming", 10)
        ids = [h.record.id for h in hits]
        assert ids[0] == "both-terms"
        assert set(ids) == {"both-terms", "one-term", "other-term"}
        assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))
        assert all(h.score > 0 for h in hits)
        assert [h.record.id for h in store.search_keyword("python programming", 1)] == ["both-terms"]

    @pytest.mark.parametrize(
        "query",
        [
            '"tea" AND (morning',
            "*:",
            "tea~2",
            "tea^3 OR",
            "'; DROP TABLE memories; --",
            "%_\\",
            '+-&&||!(){}[]^"~*?:\\/',
            "NOT",
            "((((",
            "tea)",
            "",
            "   ",
            "\x00tea",
        ],
    )
    def test_keyword_search_does_not_interpret_query_syntax(
        self, filter_dataset_store: LoadedStore, query: str
    ) -> None:
        store = filter_dataset_store.store
        hits = store.search_keyword(query, 5)
        assert isinstance(hits, list)
        if "tea" in query:
            assert {"a1", "b1"} <= {h.record.id for h in hits}

    def test_keyword_search_with_filter(self, filter_dataset_store: LoadedStore) -> None:
        store = filter_dataset_store.store
        assert [h.record.id for h in store.search_keyword("tea", 5, parse_filter({"user_id": "bob"}))] == ["b1"]
        where = parse_filter({"NOT": {"metadata.tags": "coffee"}})
        assert [h.record.id for h in store.search_keyword("tea", 5, where)] == ["a1"]
        assert store.search_keyword("tea", 5, parse_filter({"user_id": "carol"})) == []

    # -- lean matches (what search ranks) and fetch ---------------------------------------------

    @pytest.mark.parametrize(
        "raw",
        [None, {"user_id": "alice"}, {"metadata.topic": {"ne": "drinks"}}, {"user_id": "bob", "agent_id": "*"}],
        ids=["all", "scope", "metadata", "scope-and-wildcard"],
    )
    def test_matches_agree_with_searches_and_fetch_returns_whole_records(
        self, filter_dataset_store: LoadedStore, raw: dict[str, Any] | None
    ) -> None:
        store, records, vectors = filter_dataset_store.store, filter_dataset_store.records, filter_dataset_store.vectors
        by_id = {r.id: r for r in records}
        where = parse_filter(raw) if raw is not None else None
        for query in (vectors[0], vectors[5]):
            hits = store.search_vector(query, 4, where)
            matches = store.match_vector(query, 4, where)
            assert [m.id for m in matches] == [h.record.id for h in hits]
            assert [m.score for m in matches] == pytest.approx([h.score for h in hits], abs=1e-5)
            assert [m.observed_at for m in matches] == [by_id[m.id].observed_at for m in matches]
            assert store.fetch(matches) == {m.id: by_id[m.id] for m in matches}
        hits = store.search_keyword("tea morning", 5, where)
        matches = store.match_keyword("tea morning", 5, where)
        assert [m.id for m in matches] == [h.record.id for h in hits]
        assert [m.score for m in matches] == pytest.approx([h.score for h in hits], rel=1e-5)
        for match in matches:  # keyword matches carry their vectors, as keyword hits may
            if match.vector is not None:
                index = next(i for i, r in enumerate(records) if r.id == match.id)
                assert np.asarray(match.vector) == pytest.approx(vectors[index], abs=1e-6)
        assert store.fetch(matches) == {m.id: by_id[m.id] for m in matches}
        assert store.match_keyword("  ", 5, where) == []
        assert store.match_vector(vectors[0], 0, where) == []

    def test_fetch_after_a_delete_returns_the_rest(self, store: VectorStore) -> None:
        records = filter_dataset()
        vectors = self.load(store, records)
        matches = store.match_vector(vectors[0], 5)
        gone = matches[1]
        assert store.delete([gone.id]) == 1
        fetched = store.fetch(matches)
        # A match that carried its record may hand it back; a lean one cannot find it.
        assert {m.id for m in matches} - {gone.id} <= set(fetched) <= {m.id for m in matches}
        if gone.record is None:
            assert gone.id not in fetched
        assert all(fetched[m.id] == next(r for r in records if r.id == m.id) for m in matches if m.id != gone.id)
