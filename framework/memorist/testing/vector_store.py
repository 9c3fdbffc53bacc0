"""The contract every :class:`memorist.providers.VectorStore` must meet, as a reusable pytest suite.

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
:func:`filter_dataset`, ``FILTER_CASES``, ``NASTY_VALUES``) are public for a
backend's own, store-specific tests.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import numpy as np
import pytest

from memorist.errors import DimensionMismatchError
from memorist.filters import Filter, evaluate, parse_filter
from memorist.providers import VectorStore
from memorist.records import MemoryRecord, normalized_hash

T0 = datetime(2024, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


def make_record(id: str, text: str | None = None, minutes: int = 0, **fields: Any) -> MemoryRecord:
    """A record created ``minutes`` after ``T0`` with ``fields`` overriding defaults."""
    text = text if text is not None else f"memory {id}"
    at = T0 + timedelta(minutes=minutes)
    base: dict[str, Any] = {
        "id": id,
        "text": text,
        "hash": normalized_hash(text),
        "observed_at": at,
        "created_at": at,
        "updated_at": at,
    }
    base.update(fields)
    return MemoryRecord(**base)


def unit(dimension: int, *components: float) -> np.ndarray:
    """A normalized vector whose leading components are ``components``."""
    v = np.zeros(dimension, dtype=np.float32)
    v[: len(components)] = components
    return v / np.linalg.norm(v)


def random_vectors(n: int, dimension: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, dimension)).astype(np.float32)
    normalized: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return normalized


def newest_first(records: list[MemoryRecord]) -> list[str]:
    """Ids in the order ``list`` must return: newest ``created_at`` first, ties by id."""
    return [r.id for r in sorted(records, key=lambda r: (-r.created_at.timestamp(), r.id))]


def filter_dataset() -> list[MemoryRecord]:
    """Records varied along every filterable field, including awkward values."""
    day = timedelta(days=1)
    return [
        make_record(
            "a1",
            "Alice likes green tea in the morning",
            minutes=0,
            user_id="alice",
            agent_id="planner",
            categories=["food", "habits"],
            metadata={
                "topic": "drinks",
                "priority": 2,
                "tags": ["tea", "green"],
                "nested": {"level": 1},
            },
            attributed_to="user",
            speaker="Alice",
            source_message=0,
        ),
        make_record(
            "a2",
            "Alice runs marathons",
            minutes=10,
            user_id="alice",
            run_id="r-1",
            categories=["sports"],
            metadata={"topic": "sport", "priority": 5, "active": True},
            attributed_to="user",
            expires_at=T0 + 30 * day,
        ),
        make_record(
            "a3",
            "Alice's cat is named O'Malley",
            minutes=10,
            user_id="alice",
            categories=[],
            metadata={"topic": "pets", "priority": 1.0, "owner": "o'malley"},
            attributed_to="assistant",
            speaker="STRAßE",
        ),
        make_record(
            "b1",
            "Bob prefers coffee to tea",
            minutes=20,
            user_id="bob",
            agent_id="planner",
            categories=["food"],
            metadata={"topic": "drinks", "priority": 3, "tags": ["coffee"]},
            attributed_to="user",
            speaker="Bob",
        ),
        make_record(
            "b2",
            "Bob works at 100% capacity_on Mondays",
            minutes=30,
            user_id="bob",
            app_id="app;--x",
            categories=["work", "Habits"],
            metadata={"topic": "work", "priority": "high", "ratio": 0.5, "note": "50%_off"},
            expires_at=T0 - day,
        ),
        make_record(
            "c1",
            "Carol studies rust programming",
            minutes=40,
            user_id="carol",
            org_id="acme",
            project_id="p1",
            categories=["learning"],
            metadata={"nested": {"level": 2, "name": "x"}},
            speaker="carol\\b",
        ),
        make_record(
            "c2",
            "Carol plays the cello",
            minutes=50,
            user_id="carol",
            org_id="acme",
            project_id="p2",
            categories=["music", "habits"],
            metadata={"active": False, "tags": []},
            observed_at=T0 - 2 * day,
        ),
        make_record(
            "n1",
            "The planner agent keeps notes",
            minutes=60,
            agent_id="planner",
            categories=["meta"],
            metadata={"priority": 0, "topic": None},
        ),
        make_record("n2", "A memory without any scope ids", minutes=60, metadata={}),
        make_record(
            "u1",
            "Unicode: café crème und Straße",
            minutes=70,
            user_id="üser",
            categories=["straße"],
            metadata={"topic": "Straße", "tags": ["ÄÖ"]},
            speaker="Ω",
        ),
    ]


#: (id, raw filter) pairs; each must select some but not all of the dataset.
FILTER_CASES: list[tuple[str, dict[str, Any]]] = [
    # scope and other string fields
    ("eq", {"user_id": "alice"}),
    ("eq-none", {"user_id": None}),
    ("ne", {"user_id": {"ne": "alice"}}),
    ("ne-includes-null", {"agent_id": {"ne": "planner"}}),
    ("in", {"user_id": {"in": ["alice", "carol"]}}),
    ("in-with-null", {"user_id": {"in": ["bob", None]}}),
    ("nin", {"user_id": {"nin": ["alice", "bob"]}}),
    ("gt-string", {"id": {"gt": "b1"}}),
    ("gte-lte-string", {"id": {"gte": "a2", "lte": "b2"}}),
    ("lt-string", {"user_id": {"lt": "bob"}}),
    ("contains", {"user_id": {"contains": "li"}}),
    # the memory's text (``memory`` on the wire): the dashboard's full-text mode
    ("memory-contains", {"memory": {"contains": "Carol"}}),
    ("memory-icontains", {"memory": {"icontains": "CAROL pl"}}),
    ("memory-icontains-casefold", {"memory": {"icontains": "STRASSE"}}),
    ("memory-icontains-and-words", {"AND": [{"memory": {"icontains": "bob"}}, {"memory": {"icontains": "TEA"}}]}),
    ("text-eq", {"text": "Bob prefers coffee to tea"}),
    ("not-memory-icontains", {"NOT": {"memory": {"icontains": "alice"}}}),
    ("icontains", {"speaker": {"icontains": "ALI"}}),
    ("icontains-casefold", {"speaker": {"icontains": "strasse"}}),
    ("not-icontains-casefold", {"NOT": {"speaker": {"icontains": "strasse"}}}),
    ("wildcard", {"agent_id": "*"}),
    ("exists-run", {"run_id": {"eq": "*"}}),
    ("org", {"org_id": "acme"}),
    ("project-ne", {"project_id": {"ne": "p1"}}),
    ("id-in", {"id": {"in": ["a1", "c2", "missing"]}}),
    ("attributed", {"attributed_to": "assistant"}),
    ("hash", {"hash": normalized_hash("Bob prefers coffee to tea")}),
    # dates
    ("created-gte", {"created_at": {"gte": "2024-03-01T12:30:00.123456Z"}}),
    (
        "created-range",
        {"created_at": {"gt": "2024-03-01T12:10:00.123456+00:00", "lt": "2024-03-01T13:00:00Z"}},
    ),
    ("created-eq", {"created_at": "2024-03-01T12:10:00.123456Z"}),
    ("created-offset-tz", {"created_at": {"lte": "2024-03-01T14:20:00.123456+02:00"}}),
    ("expires-exists", {"expires_at": "*"}),
    ("expires-lt", {"expires_at": {"lt": "2024-03-02T00:00:00Z"}}),
    ("expires-ne", {"expires_at": {"ne": "2024-02-29T12:00:00.123456Z"}}),
    ("observed-lt", {"observed_at": {"lt": "2024-03-01T00:00:00Z"}}),
    (
        "updated-in",
        {"updated_at": {"in": ["2024-03-01T12:00:00.123456Z", "2024-03-01T12:50:00.123456Z"]}},
    ),
    # categories
    ("cat-eq", {"categories": "food"}),
    ("cat-ne", {"categories": {"ne": "food"}}),
    ("cat-in", {"categories": {"in": ["sports", "music"]}}),
    ("cat-nin", {"categories": {"nin": ["food", "habits"]}}),
    ("cat-exists", {"categories": "*"}),
    ("cat-contains", {"categories": {"contains": "ab"}}),
    ("cat-icontains", {"categories": {"icontains": "HABIT"}}),
    ("cat-icontains-casefold", {"categories": {"icontains": "STRASSE"}}),
    ("cat-gt", {"categories": {"gt": "music"}}),
    ("cat-lt", {"categories": {"lt": "food"}}),
    # metadata
    ("md-eq", {"metadata.topic": "drinks"}),
    ("md-dict-form", {"metadata": {"topic": "drinks", "priority": 3}}),
    ("md-eq-int-float", {"metadata.priority": 1}),
    ("md-eq-bool", {"metadata.active": True}),
    ("md-eq-none", {"metadata.topic": None}),
    ("md-ne", {"metadata.topic": {"ne": "drinks"}}),
    ("md-in", {"metadata.topic": {"in": ["pets", "work"]}}),
    ("md-nin", {"metadata.topic": {"nin": ["pets", "work"]}}),
    ("md-gt", {"metadata.priority": {"gt": 1}}),
    ("md-lte", {"metadata.priority": {"lte": 2}}),
    ("md-list-any", {"metadata.tags": "tea"}),
    ("md-list-ne", {"metadata.tags": {"ne": "tea"}}),
    ("md-nested", {"metadata.nested.level": 2}),
    ("md-nested-exists", {"metadata.nested.level": "*"}),
    ("md-exists", {"metadata.tags": "*"}),
    ("md-contains", {"metadata.note": {"contains": "%_"}}),
    ("md-icontains", {"metadata.topic": {"icontains": "STRASSE"}}),
    ("md-eq-unicode", {"metadata.topic": "Straße"}),
    ("md-list-unicode", {"metadata.tags": {"in": ["ÄÖ", "coffee"]}}),
    ("md-quote", {"metadata.owner": "o'malley"}),
    ("md-number-contains", {"metadata.ratio": {"contains": "5"}}),
    # nesting
    ("and", {"AND": [{"user_id": "alice"}, {"categories": "food"}]}),
    ("or", {"OR": [{"user_id": "carol"}, {"metadata.topic": "drinks"}]}),
    ("not", {"NOT": {"user_id": "alice"}}),
    ("not-list", {"NOT": [{"user_id": "alice"}, {"categories": "food"}]}),
    ("not-metadata", {"NOT": {"metadata.topic": "drinks"}}),
    ("not-or-mixed", {"NOT": {"OR": [{"metadata.priority": {"gte": 3}}, {"categories": "music"}]}}),
    ("not-not", {"NOT": {"NOT": {"metadata.tags": "coffee"}}}),
    (
        "or-and-not",
        {
            "OR": [
                {"AND": [{"user_id": "alice"}, {"NOT": {"metadata.priority": {"gt": 1}}}]},
                {
                    "AND": [
                        {"categories": {"contains": "ea"}},
                        {"created_at": {"gte": "2024-03-01T12:40:00Z"}},
                    ]
                },
            ]
        },
    ),
    ("and-implicit", {"user_id": {"in": ["alice", "bob"]}, "metadata.topic": {"ne": "drinks"}}),
    ("not-exists", {"NOT": {"expires_at": "*"}}),
    ("not-cat-icontains", {"NOT": {"categories": {"icontains": "straße"}}}),
]

#: SQL metacharacters a value must never smuggle into a backend's query.
NASTY_VALUES = [
    "o'brien",
    "x%_y",
    "a\\b",
    "semi;--",
    'q"uote',
    "%",
    "_",
    "' OR '1'='1",
    "new\nline",
]


class VectorStoreContract:
    """Contract tests every :class:`VectorStore` must pass (see module docstring)."""

    dimension: ClassVar[int] = 8

    # fixtures the subclass provides: ``store`` and ``make_store``

    def load(self, store: VectorStore, records: list[MemoryRecord], seed: int = 7) -> np.ndarray:
        vectors = random_vectors(len(records), self.dimension, seed)
        store.upsert(records, vectors)
        return vectors

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

    def test_list_paginates_after_exact_filtering(self, store: VectorStore) -> None:
        records = filter_dataset()
        self.load(store, records)
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

    def test_vector_search_returns_full_records(self, store: VectorStore) -> None:
        records = filter_dataset()
        vectors = self.load(store, records)
        (hit,) = store.search_vector(vectors[0], 1)
        assert hit.record == records[0]
        assert hit.score == pytest.approx(1.0, abs=1e-4)

    def test_vector_search_with_filter(self, store: VectorStore) -> None:
        records = filter_dataset()
        vectors = self.load(store, records)
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
    def test_keyword_search_does_not_interpret_query_syntax(self, store: VectorStore, query: str) -> None:
        self.load(store, filter_dataset())
        hits = store.search_keyword(query, 5)
        assert isinstance(hits, list)
        if "tea" in query:
            assert {"a1", "b1"} <= {h.record.id for h in hits}

    def test_keyword_search_with_filter(self, store: VectorStore) -> None:
        records = filter_dataset()
        self.load(store, records)
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
        self, store: VectorStore, raw: dict[str, Any] | None
    ) -> None:
        records = filter_dataset()
        vectors = self.load(store, records)
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

    # -- filters -----------------------------------------------------------------------------

    @pytest.mark.parametrize(("case", "raw"), FILTER_CASES, ids=[c for c, _ in FILTER_CASES])
    def test_filter_matches_reference_semantics(self, store: VectorStore, case: str, raw: dict[str, Any]) -> None:
        records = filter_dataset()
        vectors = self.load(store, records)
        where = parse_filter(raw)
        expected = {r.id for r in records if evaluate(where, r)}
        assert 0 < len(expected) < len(records), f"case {case} must be selective to be a test"
        assert store.count(where) == len(expected)
        listed = store.list(where, limit=1000)
        assert [r.id for r in listed] == newest_first([r for r in records if r.id in expected])
        hits = store.search_vector(vectors[0], len(records), where)
        assert {h.record.id for h in hits} == expected
        page = store.list(where, offset=1, limit=2)
        assert [r.id for r in page] == newest_first([r for r in records if r.id in expected])[1:3]

    @pytest.mark.parametrize(("case", "raw"), FILTER_CASES, ids=[c for c, _ in FILTER_CASES])
    def test_delete_where_matches_reference_semantics(self, store: VectorStore, case: str, raw: dict[str, Any]) -> None:
        records = filter_dataset()
        self.load(store, records)
        where = parse_filter(raw)
        expected = {r.id for r in records if evaluate(where, r)}
        assert store.delete_where(where) == len(expected)
        assert {r.id for r in store.list(limit=1000)} == {r.id for r in records} - expected

    def test_keyword_search_respects_every_filter_kind(self, store: VectorStore) -> None:
        records = filter_dataset()
        self.load(store, records)
        mentions_tea = {"a1", "b1"}
        checked = 0
        for _, raw in FILTER_CASES:
            where = parse_filter(raw)
            expected = {r.id for r in records if r.id in mentions_tea and evaluate(where, r)}
            assert {h.record.id for h in store.search_keyword("tea", 10, where)} == expected
            checked += bool(expected) and expected != mentions_tea
        assert checked > 5

    @pytest.mark.parametrize("value", NASTY_VALUES)
    def test_sql_metacharacters_in_values_are_literal(self, store: VectorStore, value: str) -> None:
        records = [
            make_record("nasty", user_id=value, categories=[value], metadata={"v": value}, speaker=value),
            make_record("plain", user_id="plain", categories=["plain"], metadata={"v": "plain"}),
            make_record("other", user_id="o", categories=["x"], metadata={"v": "x"}),
        ]
        self.load(store, records)
        for raw in (
            {"user_id": value},
            {"categories": value},
            {"metadata.v": value},
            {"speaker": {"contains": value}},
            {"user_id": {"in": [value, "zzz"]}},
            {"categories": {"icontains": value}},
            {"metadata.v": {"contains": value}},
        ):
            where = parse_filter(raw)
            assert [r.id for r in store.list(where)] == ["nasty"], raw
            assert store.count(parse_filter({"NOT": raw})) == 2, raw
        assert store.count(parse_filter({"user_id": {"ne": value}})) == 2
        assert store.count() == 3  # nothing was injected or dropped

    def test_like_wildcards_are_not_wildcards(self, store: VectorStore) -> None:
        self.load(
            store,
            [
                make_record("pct", user_id="100%", speaker="a_b"),
                make_record("any", user_id="1000", speaker="axb"),
            ],
        )
        assert [r.id for r in store.list(parse_filter({"user_id": {"contains": "0%"}}))] == ["pct"]
        assert [r.id for r in store.list(parse_filter({"speaker": {"contains": "_"}}))] == ["pct"]
        assert [r.id for r in store.list(parse_filter({"speaker": {"icontains": "A_B"}}))] == ["pct"]
        assert store.list(parse_filter({"user_id": "%"})) == []

    # -- persistence and dimensions ----------------------------------------------------------

    def test_data_persists_across_reopen(self, make_store: Callable[[int], VectorStore]) -> None:
        records = filter_dataset()
        first = make_store(self.dimension)
        vectors = self.load(first, records)
        first.close()
        second = make_store(self.dimension)
        assert second.count() == len(records)
        assert {r.id: r for r in second.get([r.id for r in records])} == {r.id: r for r in records}
        assert second.search_vector(vectors[2], 1)[0].record.id == records[2].id
        assert {h.record.id for h in second.search_keyword("tea", 5)} == {"a1", "b1"}

    def test_reopening_with_another_dimension_fails(self, make_store: Callable[[int], VectorStore]) -> None:
        first = make_store(self.dimension)
        self.load(first, [make_record("a")])
        first.close()
        with pytest.raises(DimensionMismatchError) as raised:
            make_store(self.dimension * 2)
        message = str(raised.value)
        assert str(self.dimension) in message and str(self.dimension * 2) in message
        again = make_store(self.dimension)
        assert again.count() == 1


def selected(records: list[MemoryRecord], where: Filter) -> set[str]:
    """Ids of ``records`` that ``where`` accepts (a helper for backend-specific tests)."""
    return {r.id for r in records if evaluate(where, r)}
