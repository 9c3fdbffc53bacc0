"""The contract every ``Reranker`` must meet, as a pytest suite a plugin's tests subclass.

Why: search hands a reranker its fused candidates and shows what comes back as is. So the
engine relies on a reranker returning at most ``top_k`` of the candidates it was given (no
record invented, none twice), scores that stay in [0, 1] (they are shown and thresholded),
an order that is the ranking (a shorter answer is the head of a longer one, and the same
input gives the same order), and candidates in any language. A subclass provides one fixture,
``reranker`` (a built provider), and gets every check below::

    from memorist.testing.reranker import RerankerContract

    class TestMyReranker(RerankerContract):
        @pytest.fixture
        def reranker(self, tmp_path):
            return MyReranker(MyReranker.Options(), ProviderContext(data_dir=tmp_path))
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pydantic
import pytest

from ..plugin.contracts import Reranker
from ..records import MemoryRecord, normalized_hash

WHEN = datetime(2024, 5, 1, tzinfo=UTC)
QUERY = "Where does Alice live?"
#: (text, fused score): candidates as search hands them over, best first, in several languages.
CANDIDATES = [
    ("Alice lives in Paris.", 0.91),
    ("Bob likes green tea.", 0.83),
    ("Alice moved to Berlin last year.", 0.77),
    ("Alice lives in Paris.", 0.74),
    ("Alice wohnt seit 2019 in Berlin.", 0.66),
    ("アリスはパリに住んでいます。", 0.52),
    ("The meeting is on Monday 🗓️", 0.31),
    ("Carol plays the violin.", 0.0),
]


def candidates(pairs: list[tuple[str, float]] = CANDIDATES) -> list[tuple[MemoryRecord, float]]:
    """``pairs`` as (record, score) hits; each record its own id (equal texts stay two records)."""
    return [
        (
            MemoryRecord(
                id=f"m{i}", text=text, hash=normalized_hash(text), observed_at=WHEN, created_at=WHEN, updated_at=WHEN
            ),
            score,
        )
        for i, (text, score) in enumerate(pairs)
    ]


def ids(hits: list[tuple[MemoryRecord, float]]) -> list[str]:
    return [record.id for record, _ in hits]


class RerankerContract:
    """Subclass it in a test module and provide the ``reranker`` fixture."""

    @pytest.fixture
    def reranker(self) -> Reranker[Any]:
        raise NotImplementedError("provide a `reranker` fixture returning a built Reranker")

    def test_is_a_reranker_with_a_name(self, reranker: Reranker[Any]) -> None:
        assert isinstance(reranker, Reranker)
        name = type(reranker).name
        assert isinstance(name, str) and name and name in reranker.describe()

    def test_options_refuse_unknown_keys(self, reranker: Reranker[Any]) -> None:
        with pytest.raises(pydantic.ValidationError):
            type(reranker).Options.model_validate({"no_such_option_anywhere": 1})

    @pytest.mark.parametrize("top_k", [1, 3, len(CANDIDATES), len(CANDIDATES) + 5])
    def test_returns_at_most_top_k_of_the_candidates_each_once(self, reranker: Reranker[Any], top_k: int) -> None:
        hits = candidates()
        given = {record.id: record for record, _ in hits}
        result = reranker.rerank(QUERY, hits, top_k)
        assert len(result) == min(top_k, len(hits))
        assert len(set(ids(result))) == len(result)
        for record, score in result:
            assert given[record.id] == record  # a candidate, unchanged
            assert isinstance(score, float) and 0.0 <= score <= 1.0, (record.text, score)

    def test_no_candidates_give_no_hits(self, reranker: Reranker[Any]) -> None:
        assert reranker.rerank(QUERY, [], 5) == []

    def test_one_candidate_comes_back(self, reranker: Reranker[Any]) -> None:
        [(record, score)] = reranker.rerank(QUERY, candidates()[:1], 5)
        assert record.id == "m0" and 0.0 <= score <= 1.0

    def test_the_order_is_a_ranking(self, reranker: Reranker[Any]) -> None:
        """The same input gives the same order, and fewer asked for is the head of that order."""
        full = reranker.rerank(QUERY, candidates(), len(CANDIDATES))
        assert ids(reranker.rerank(QUERY, candidates(), len(CANDIDATES))) == ids(full)
        assert ids(reranker.rerank(QUERY, candidates(), 3)) == ids(full)[:3]

    def test_the_candidates_are_left_as_they_came(self, reranker: Reranker[Any]) -> None:
        hits = candidates()
        before = [(record.model_copy(deep=True), score) for record, score in hits]
        reranker.rerank(QUERY, hits, 3)
        assert hits == before

    @pytest.mark.parametrize("query", ["Wo wohnt Alice?", "アリスはどこに住んでいますか？", "tea", ""])
    def test_any_query_is_reranked(self, reranker: Reranker[Any], query: str) -> None:
        result = reranker.rerank(query, candidates(), 4)
        assert len(result) == 4 and all(0.0 <= score <= 1.0 for _, score in result)
