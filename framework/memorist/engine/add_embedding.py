"""How an add embeds its facts: beside the reads that do not need their vectors.

Why: an add into a scope this process holds no snapshot of loads one first (one store query
over the scope: ~9 ms on a 100k-memory LanceDB store), and a batch over many users loads a
scope per user. Embedding waited for those loads; both wait mostly outside the GIL, so the
embedding now runs on a helper thread meanwhile, as a search embeds its query while its
scope loads. An add into a scope already held has nothing to overlap and embeds in its own
thread, after its lookups, only the facts they left.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .components import Components
from .scope_index import Pinned, ScopeIndex

#: ``embed(texts)``: document vectors of ``texts``, one row each, in their order.
Embed = Callable[[list[str]], np.ndarray]


class FactEmbedder:
    """The add pipeline's embedding calls, some of them on helper threads."""

    def __init__(self, components: Components, index: ScopeIndex | None) -> None:
        self._c = components
        self._index = index
        self._helpers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memorist-add")

    def close(self) -> None:
        """Stop the helper threads (the engine is being replaced or closed)."""
        self._helpers.shutdown(wait=False)

    def now(self, texts: list[str]) -> np.ndarray:
        """Document vectors of ``texts``, embedded in the calling thread."""
        return np.asarray(self._c.embedder.embed(texts, "document"))

    def aside(self, texts: list[str]) -> Callable[[], np.ndarray]:
        """The document vectors of ``texts``, embedded on a helper thread; call to wait for them
        (an embedder error is raised there)."""
        if not texts:
            return lambda: np.zeros((0, 0), dtype=np.float32)
        try:
            ahead = self._helpers.submit(self.now, texts)
        except RuntimeError:  # closed: an engine retired after a reconfiguration finishes its last adds
            matrix = self.now(texts)
            return lambda: matrix
        return ahead.result

    def for_add(self, pinned: Pinned | None, distinct_facts: Callable[[], list[str]]) -> Embed:
        """How one add embeds the fresh ones among its distinct facts (the texts ``distinct_facts``
        returns, asked for only here): all of them at once on a helper thread when its scope is
        about to load (a fact found already stored was then embedded for nothing, once per scope
        and process), else only the fresh ones, when asked."""
        if self._index is None or pinned is None or not self._index.will_load(pinned):
            return self.now
        facts = distinct_facts()
        if not facts:
            return self.now
        embedding = self.aside(facts)
        row = {text: i for i, text in enumerate(facts)}

        def embedded(wanted: list[str]) -> np.ndarray:
            picked: np.ndarray = embedding()[np.array([row[text] for text in wanted], dtype=int)]
            return picked

        return embedded
