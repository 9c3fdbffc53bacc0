"""A deterministic, dependency-free embedder for tests that are not about retrieval quality.

Why: the default sentence-transformers model takes seconds to load in every
process; a hashed bag of words loads instantly, gives identical vectors on
every machine, and still puts texts that share words near each other, which is
all that HTTP, queue, storage and plugin tests need.

Load it as a plugin module without packaging it::

    MEMORIST_PLUGIN_MODULES=memorist.testing.hashing MEMORIST_EMBEDDER__PROVIDER=hashing memorist serve

or in-process: ``load_plugins(extra=[memorist.testing.hashing])``. It is not
an entry point of the distribution, so production installs never list it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from ..plugin.contracts import Embedder, ProviderContext, ProviderOptions
from ..plugin.hookspecs import hookimpl

_WORD = re.compile(r"[a-z0-9]+")

#: The provider name to put in ``embedder.provider``.
PROVIDER = "hashing"


class HashingEmbedderOptions(ProviderOptions):
    dimension: int = Field(64, ge=2, le=4096)


class HashingEmbedder(Embedder[HashingEmbedderOptions]):
    """Hashed bag of words: each word is a fixed pseudo-random +-1 vector; a text is their normalized sum."""

    name: ClassVar[str] = PROVIDER

    Options = HashingEmbedderOptions

    def __init__(self, options: HashingEmbedderOptions, context: ProviderContext) -> None:
        super().__init__(options, context)

    @property
    def dimension(self) -> int:
        return self.options.dimension

    def _word(self, word: str) -> np.ndarray:
        """A fixed pseudo-random +-1 vector per word: distinct words are near-orthogonal."""
        seed = int(hashlib.md5(word.encode()).hexdigest()[:8], 16)
        return np.random.default_rng(seed).choice([-1.0, 1.0], size=self.dimension).astype(np.float32)

    def embed(self, texts: Sequence[str], purpose: Literal["document", "query"] = "document") -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                out[row] += self._word(word)
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
            else:
                out[row, 0] = 1.0
        return out


@hookimpl
def register_embedders(register: Callable[[type[Embedder]], None]) -> None:
    register(HashingEmbedder)
