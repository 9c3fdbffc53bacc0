"""The records, vectors and filter cases of the vector-store contract, and its reference helpers.

Split from :mod:`memorist.testing.vector_store` (which re-exports every name here):
the contract's tests there, what they write and compare against here. Public for a
backend's own, store-specific tests: :func:`make_record`, :func:`unit`,
:func:`random_vectors`, :func:`filter_dataset` with ``FILTER_CASES`` (each filter
case runs over that dataset), ``NASTY_VALUES``, :func:`newest_first` and
:func:`selected` (what :func:`memorist.filters.evaluate`, the reference semantics,
accepts).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import numpy as np

from memorist.filters import Filter, evaluate
from memorist.plugin.contracts import VectorStore
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


def selected(records: list[MemoryRecord], where: Filter) -> set[str]:
    """Ids of ``records`` that ``where`` accepts (a helper for backend-specific tests)."""
    return {r.id for r in records if evaluate(where, r)}


@dataclass(frozen=True)
class LoadedStore:
    """A store holding :func:`filter_dataset`: the records and the vectors it was written with."""

    store: VectorStore
    records: list[MemoryRecord]
    vectors: np.ndarray


class ContractBase:
    """What every part of the vector-store contract shares: the vectors' dimension, and
    writing records with reproducible random vectors."""

    dimension: ClassVar[int] = 8

    def load(self, store: VectorStore, records: list[MemoryRecord], seed: int = 7) -> np.ndarray:
        vectors = random_vectors(len(records), self.dimension, seed)
        store.upsert(records, vectors)
        return vectors
