"""How much a query looks a stored memory up by its words, and so how far word evidence counts.

Two kinds of search reach the engine. A question about a fact ("What did Caroline
research?", "peanuts") shares its rare words or names with the memory that answers it:
the keyword, entity and conversational-context signals are strong evidence there. An
agent's turn ("Can you suggest a dinner recipe for tonight?") asks for help with the
user's task: its words are the task's, and a memory shares one of them only by accident
("Our company moved to a new office building." for "What should I bring to the office
potluck?"), while the fact it needs ("I'm vegetarian.") shares none. Fixed weights let
such an accident outvote the cosine, and the engine ranked agent turns below plain
cosine similarity.

The kind is read from the scope's own index, not from the query's phrasing: a query
that names an entity of the scope's graph is a lookup; otherwise its *lookup share* is
the share of its indexed terms that the best keyword hit holds. The keyword weight and
the context weight are scaled by that share: a query whose best keyword match holds all
its terms keeps every signal as before, one whose words no memory holds together is
ranked by meaning. The terms are the keyword index's (:func:`.keywords.index_terms`), in
every language it reads.

Ranking by meaning needs an embedder that reads the query's language. The default
English MiniLM on Arabic, Chinese, Japanese or Korean puts every memory of the language
near the query, and there the keyword index carries the ranking: weighing those queries by
their lookup share cost ``benchmarks/multilingual.py``'s default run 6 of its 90
same-language cases. So the kind is weighed only for a query in a language the space's
embedder declares it reads (:attr:`~memorist.plugin.contracts.Embedder.languages`: the
model card's languages for a local model, USE's sixteen, every language for a hosted one
unless configured), told by :func:`memorist.language.language_of`; any other query keeps
every signal. Telling from the similarities alone whether the embedder reads a query was
tried first (the median cosine of the nearest memories) and fails in small scopes, where a
few related memories are the median.
"""

from __future__ import annotations

from collections.abc import Set

import numpy as np

from ..language import language_of
from .keywords import index_terms


def embedder_reads(languages: Set[str] | None, query: str) -> bool:
    """Whether an embedder that reads ``languages`` (None: every language) reads ``query``:
    only then may the query's kind move weight from its words to its meaning."""
    return languages is None or language_of(query) in languages


def lookup_share(query: str, best_keyword_text: str | None) -> float:
    """The share of ``query``'s distinct indexed terms that ``best_keyword_text`` (the text of
    the query's best keyword hit; None: no memory shares a term) holds, in [0, 1].

    A query with no indexed term at all (only stop words: "What do I like?") is left as it
    was searched before (1.0): there is nothing to tell its kind by.
    """
    wanted = set(index_terms(query))
    if not wanted:
        return 1.0
    if best_keyword_text is None:
        return 0.0
    return len(wanted & set(index_terms(best_keyword_text))) / len(wanted)


def scaled_keyword_weight(weights: np.ndarray, share: float) -> np.ndarray:
    """The (semantic, keyword, entity) ``weights`` with the keyword part scaled by ``share``,
    normalized to sum to 1 again (semantic alone when nothing is left)."""
    out = np.array(weights, dtype=float, copy=True)
    out[1] *= share
    total = float(out.sum())
    return out / total if total > 0 else np.array([1.0, 0.0, 0.0])
