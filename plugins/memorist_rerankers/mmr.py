"""Maximal marginal relevance (MMR): diversity without a model.

Memory stores accumulate paraphrases of one fact ("Alice lives in Paris",
"alice lives in Paris."); a search that returns five of them wastes the
caller's ``top_k``. MMR picks results one at a time, each maximizing

    lambda * relevance - (1 - lambda) * max similarity to the results already picked

so a near-duplicate of something already chosen falls below a distinct,
still-relevant memory. It is the default reranker, so it must be cheap and
need no model: similarity is lexical (see :func:`text_similarity`).

Score semantics: the returned score of each hit is its *original* relevance
score (clamped to [0, 1]). MMR changes the order, not what a score means, so a
caller's ``threshold`` keeps its meaning; as a consequence the output is not
necessarily sorted by score. Callers must keep the returned order rather than
re-sort by score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from memorist.plugin_api import MemoryRecord, ProviderContext, ProviderOptions, Reranker, lexicon
from pydantic import ConfigDict, Field
from rapidfuzz import fuzz

from ._scores import Hit, clamp01

_WORD = re.compile(r"\w+")

# Function words carry no topic; left in, "the cat is in the hat" and "the dog
# is in the yard" would look half-identical to Jaccard.
# (The lexicon's ``similarity_stop_words``: the language layer holds the words.)
_STOPWORDS = lexicon().words("similarity_stop_words")

#: Character-level similarity at or above this counts as a near-duplicate even
#: when tokens differ (typos, plural/singular): "Pariss" vs "Paris".
NEAR_DUPLICATE_RATIO = 0.9


def content_tokens(text: str) -> frozenset[str]:
    """Case-folded word tokens without stop words (all tokens if only stop words)."""
    words = _WORD.findall(text.casefold())
    content = frozenset(w for w in words if w not in _STOPWORDS)
    return content or frozenset(words)


def text_similarity(a: str, b: str) -> float:
    """Lexical similarity in [0, 1]; 0 for unrelated texts, 1 for duplicates.

    The larger of two measures:

    * Jaccard overlap of content tokens: partial overlap gives a partial
      penalty, disjoint topics give exactly 0 (a raw character ratio would
      give unrelated short texts ~0.4 and penalize everything a little);
    * the character-level ratio of the normalized token sequences, counted
      only from :data:`NEAR_DUPLICATE_RATIO` up, so typo-level variants are
      recognized as duplicates without adding noise elsewhere.
    """
    return _similarity(content_tokens(a), content_tokens(b))


def _similarity(ta: frozenset[str], tb: frozenset[str]) -> float:
    if not ta and not tb:
        return 1.0
    if not ta or not tb:
        return 0.0
    jaccard = len(ta & tb) / len(ta | tb)
    if jaccard >= NEAR_DUPLICATE_RATIO:
        return jaccard
    ratio = fuzz.ratio(" ".join(sorted(ta)), " ".join(sorted(tb))) / 100.0
    return max(jaccard, ratio if ratio >= NEAR_DUPLICATE_RATIO else 0.0)


class MMRRerankerOptions(ProviderOptions):
    # ``lambda`` is a Python keyword: configuration files write ``lambda``,
    # Python code may pass ``lambda_``; both are accepted.
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    #: Relevance vs diversity: 1.0 keeps pure relevance order, 0.0 only
    #: maximizes diversity. 0.7 demotes near-duplicates below distinct
    #: memories at least about half as relevant as the top hit.
    lambda_: float = Field(0.7, ge=0.0, le=1.0, alias="lambda")


class MMRReranker(Reranker[MMRRerankerOptions]):
    """Diversity reranking by maximal marginal relevance over lexical similarity."""

    name: ClassVar[str] = "mmr"

    Options = MMRRerankerOptions

    def __init__(self, options: MMRRerankerOptions, context: ProviderContext) -> None:
        super().__init__(options, context)

    def rerank(self, query: str, hits: list[Hit], top_k: int) -> list[Hit]:
        """The ``top_k`` hits in MMR order, each with its original score.

        Relevance is the input score divided by the best input score, so
        ``lambda`` means the same whether a search's scores sit near 0.3 or
        near 0.9. Ties (equal MMR value) go to the more relevant hit, then to
        the earlier input position: the result depends only on the input.
        """
        if not hits or top_k <= 0:
            return []
        scores = [clamp01(score) for _, score in hits]
        best = max(scores)
        relevance = [s / best for s in scores] if best > 0 else [0.0] * len(scores)
        order = mmr_order([record for record, _ in hits], relevance, self.options.lambda_, top_k)
        return [(hits[i][0], scores[i]) for i in order]


def mmr_order(records: Sequence[MemoryRecord], relevance: Sequence[float], lambda_: float, top_k: int) -> list[int]:
    """Indices of the first ``top_k`` MMR picks (greedy, deterministic).

    ``max_sim[i]`` caches each candidate's similarity to its closest pick, so
    a pass costs one similarity per remaining candidate: O(n * top_k) in all.
    """
    tokens = [content_tokens(r.text) for r in records]
    remaining = list(range(len(records)))
    max_sim = [0.0] * len(records)
    picked: list[int] = []
    while remaining and len(picked) < top_k:
        choice = max(
            remaining,
            key=lambda i: (lambda_ * relevance[i] - (1.0 - lambda_) * max_sim[i], relevance[i], -i),
        )
        picked.append(choice)
        remaining.remove(choice)
        for i in remaining:
            sim = _similarity(tokens[i], tokens[choice])
            if sim > max_sim[i]:
                max_sim[i] = sim
    return picked
