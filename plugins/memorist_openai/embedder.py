"""Embeddings through ``/embeddings`` of any OpenAI-compatible endpoint.

The vector size is never assumed from the model name: it is either stated
(``dimensions``, which is also sent to models that can shorten vectors) or
measured by embedding one probe text on first use. Responses are re-ordered
by their ``index`` field because the protocol does not promise input order,
and vectors are L2-normalized here since not every server normalizes.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from memorist.plugin_api import Embedder, ProviderContext, ProviderError
from pydantic import Field

from .client import ClientOptions, InvalidReply, RetryPolicy, build_client, call_with_retries

_PROBE_TEXT = "dimension probe"


class OpenAIEmbedderOptions(ClientOptions):
    model: str = "text-embedding-3-small"
    #: Texts per request (OpenAI accepts up to 2048; local servers often far fewer).
    batch_size: int = Field(default=128, ge=1, le=2048)
    #: Requested vector size, sent as ``dimensions``; None: the model's own size.
    dimensions: int | None = Field(default=None, ge=1)
    #: Prepended to documents / queries, for models trained with prefixes
    #: (e.g. nomic-embed-text: "search_document: " / "search_query: ").
    document_prefix: str = ""
    query_prefix: str = ""
    #: The languages the model reads (ISO 639-1 codes); None: every language (OpenAI's
    #: embedding models are multilingual). Name them for an English-only model served
    #: locally (``[en]``): the engine then ranks an agent's turn by meaning alone only in
    #: those languages (``engine.query_kind``).
    languages: list[str] | None = None


class OpenAIEmbedder(Embedder[OpenAIEmbedderOptions]):
    """Batched, order-preserving, normalized embeddings."""

    name: ClassVar[str] = "openai"

    Options = OpenAIEmbedderOptions

    def __init__(self, options: OpenAIEmbedderOptions, context: ProviderContext) -> None:
        super().__init__(options, context)
        self._client = build_client(
            options, context.extras.get("outbound_guard"), context.extras.get("provider_key_origins")
        )
        self.retry_policy = RetryPolicy(options)
        self._dimension: int | None = options.dimensions
        self._lock = threading.Lock()

    def describe(self) -> str:
        return f"openai:{self.options.model}"

    @property
    def languages(self) -> frozenset[str] | None:
        codes = frozenset(c.strip().lower().split("-")[0] for c in self.options.languages or () if c.strip())
        return codes or None

    def close(self) -> None:
        self._client.close()

    @property
    def dimension(self) -> int:
        """``options.dimensions``, else measured once with a probe request."""
        if self._dimension is None:
            with self._lock:
                if self._dimension is None:
                    vector = self._embed_batch([_PROBE_TEXT])
                    self._dimension = int(vector.shape[1])
        return self._dimension

    def embed(self, texts: Sequence[str], purpose: Literal["document", "query"] = "document") -> np.ndarray:
        prefix = self.options.query_prefix if purpose == "query" else self.options.document_prefix
        # The API rejects empty strings; a space embeds as "nothing" without failing a batch.
        inputs = [f"{prefix}{text}" if text.strip() else (prefix or " ") for text in texts]
        if not inputs:
            return np.zeros((0, self.dimension), dtype=np.float32)
        size = self.options.batch_size
        parts = [self._embed_batch(inputs[i : i + size]) for i in range(0, len(inputs), size)]
        return np.concatenate(parts, axis=0)

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        params: dict[str, Any] = {
            "model": self.options.model,
            "input": batch,
            # Explicit: some servers default to base64 or reject the parameter missing.
            "encoding_format": "float",
        }
        if self.options.dimensions is not None:
            params["dimensions"] = self.options.dimensions

        def request() -> Any:
            return self._client.embeddings.create(**params)

        def accept(response: Any) -> np.ndarray:
            data = sorted(response.data or [], key=lambda item: item.index)
            if [item.index for item in data] != list(range(len(batch))):
                raise InvalidReply(
                    f"expected embeddings for indexes 0..{len(batch) - 1}, got {[item.index for item in data]}"
                )
            try:
                matrix = np.asarray([item.embedding for item in data], dtype=np.float32)
            except (TypeError, ValueError) as exc:
                raise InvalidReply(f"embeddings are not equal-length float lists: {exc}") from None
            if matrix.ndim != 2 or matrix.shape[1] == 0:
                raise InvalidReply(f"embeddings have shape {matrix.shape}")
            expected = self._dimension
            if expected is not None and matrix.shape[1] != expected:
                # Deterministic (e.g. a server ignoring ``dimensions``): retrying cannot help.
                raise ProviderError(
                    f"{self.describe()} returned {matrix.shape[1]}-dimensional vectors, "
                    f"expected {expected}; check the model and the dimensions option"
                )
            if not np.isfinite(matrix).all():
                raise InvalidReply("embeddings contain NaN or infinity")
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            return matrix / np.where(norms > 0, norms, 1.0)

        vectors = call_with_retries(self.retry_policy, f"{self.describe()} embeddings", request, accept)
        if self._dimension is None:
            self._dimension = int(vectors.shape[1])
        return vectors.astype(np.float32, copy=False)
