"""The filter half of the :class:`~memorist.testing.vector_store.VectorStoreContract`.

Every filter a search, list, count or delete takes must select exactly the records
:func:`memorist.filters.evaluate` selects, and a value must never be read as query
syntax (SQL metacharacters, LIKE wildcards). Kept apart from the contract's reads and
writes because it is the largest part of it and the one a new backend fails first.
"""

from __future__ import annotations

from typing import Any

import pytest

from memorist.filters import evaluate, parse_filter
from memorist.plugin.contracts import VectorStore

from .contract_data import (
    FILTER_CASES,
    NASTY_VALUES,
    ContractBase,
    LoadedStore,
    filter_dataset,
    make_record,
    newest_first,
)


class FilterContract(ContractBase):
    """Filters select what :func:`memorist.filters.evaluate` selects, in every store operation."""

    @pytest.fixture
    def filter_dataset_store(self, store: VectorStore) -> LoadedStore:
        """``store`` holding :func:`filter_dataset`, for the tests that only read it.

        Why a fixture of its own: the filter sweep runs every case of ``FILTER_CASES`` over the
        same records, and none of those tests writes. By default each test still loads a fresh
        ``store``; a backend whose stores are slow to open or fill may override this fixture with
        a wider scope (``scope="class"``, one store per variant of the backend) that every such
        test then reads. Tests that write (``delete_where``, upserts) keep using ``store``.
        """
        records = filter_dataset()
        return LoadedStore(store, records, self.load(store, records))

    # -- filters -----------------------------------------------------------------------------

    @pytest.mark.parametrize(("case", "raw"), FILTER_CASES, ids=[c for c, _ in FILTER_CASES])
    def test_filter_matches_reference_semantics(
        self, filter_dataset_store: LoadedStore, case: str, raw: dict[str, Any]
    ) -> None:
        store, records, vectors = filter_dataset_store.store, filter_dataset_store.records, filter_dataset_store.vectors
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

    def test_keyword_search_respects_every_filter_kind(self, filter_dataset_store: LoadedStore) -> None:
        store, records = filter_dataset_store.store, filter_dataset_store.records
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
