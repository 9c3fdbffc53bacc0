"""A throwaway third-party plugin used as a test fixture.

It registers a tiny deterministic embedder (hashed bag of words) so HTTP and
engine tests do not pay for loading a real model, and a ``configure_app`` hook
that adds a route, proving plugins extend the app through the same door.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

import falcon
import numpy as np
from memorist.hookspecs import hookimpl
from memorist.providers import Embedder, ProviderContext, ProviderOptions
from pydantic import Field

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedderOptions(ProviderOptions):
    dimension: int = Field(64, ge=2, le=4096)


class HashingEmbedder(Embedder[HashingEmbedderOptions]):
    name: ClassVar[str] = "hashing"

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


class PingResource:
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"pong": True}


@hookimpl
def configure_app(app: falcon.App, context: Any) -> None:
    app.add_route("/test-plugin/ping", PingResource())
