"""The lifecycle half of the :class:`~memorist.testing.vector_store.VectorStoreContract`.

What a store must keep across its openings: data after a close and a reopen, nothing
but what its opening created when it is discarded (``discard_created``), and a refusal
to reopen for vectors of another dimension. These tests use ``make_store`` (opening
the same location again), where the rest of the contract needs one open ``store``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memorist.errors import DimensionMismatchError
from memorist.plugin.contracts import VectorStore

from .contract_data import ContractBase, filter_dataset, make_record


class LifecycleContract(ContractBase):
    """Data persists across openings; a discarded store gives back only what it created."""

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

    def test_discard_created_keeps_a_store_that_holds_records(self, make_store: Callable[[int], VectorStore]) -> None:
        """``discard_created`` undoes a refused reconfiguration's opening, but never at the
        cost of a record: a store written to keeps everything, then closes as usual."""
        first = make_store(self.dimension)
        self.load(first, [make_record("a"), make_record("b")])
        first.discard_created()
        first.close()
        again = make_store(self.dimension)
        assert sorted(r.id for r in again.get(["a", "b"])) == ["a", "b"]

    def test_a_discarded_fresh_store_opens_again_empty_and_usable(
        self, make_store: Callable[[int], VectorStore]
    ) -> None:
        first = make_store(self.dimension)
        first.discard_created()
        first.close()
        again = make_store(self.dimension)
        assert again.count() == 0
        self.load(again, [make_record("a")])
        assert [r.id for r in again.get(["a"])] == ["a"]

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
