"""A stored memory's vector as a blend of its text's and the user's own words'.

Why: the extractor rewrites what a user said into a third-person statement ("I'm
vegetarian." becomes "The user is vegetarian."), and an agent searches with the user's
next message ("Can you suggest a dinner recipe for tonight?"), whose words sit closer to
the user's own than to the rewrite. A memory's vector that mixes the fact's vector with
the vector of the message it came from keeps what the rewrite made explicit (the subject,
a resolved date) and what the user's own phrasing carries. Only the stored vector changes:
the duplicate check compares the fact's own vector, and the text, history and keyword
index keep the fact's text.

The source is the message's text as sent: a memory without one (a direct write, an
update, a language model that names no source) keeps its own vector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..records import ExtractedFact
from .add_request import AddRequest


def source_of(request: AddRequest, fact: ExtractedFact) -> str | None:
    """The text of the message ``fact`` came from, or None when it names no message."""
    index = fact.source_message
    if index is None or not 0 <= index < len(request.messages):
        return None
    text = request.messages[index].content
    return text if text and text.strip() and text.strip() != fact.text.strip() else None


def blend(
    vectors: np.ndarray,
    sources: Sequence[str | None],
    embedded: Mapping[str, np.ndarray],
    weight: float,
) -> np.ndarray:
    """``vectors`` (one fact each, unit length) mixed with their sources' vectors
    (``embedded``: a source's text to its vector, from the facts' own embedder call):
    ``(1 - weight) * fact + weight * source``, renormalized. A row without a source is
    returned as it is."""
    if weight <= 0 or not len(vectors):
        return vectors
    mixed = np.array(vectors, dtype=np.float32, copy=True)
    for i, source in enumerate(sources):
        if source is None:
            continue
        v = (1.0 - weight) * mixed[i] + weight * np.asarray(embedded[source], dtype=np.float32)
        norm = float(np.linalg.norm(v))
        if norm > 0:
            mixed[i] = v / norm
    return mixed
