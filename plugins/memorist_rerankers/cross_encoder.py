"""Cross-encoder reranking with sentence-transformers, loaded lazily and offline.

A cross-encoder reads the query and a memory together, so it judges relevance
better than the bi-encoder that retrieved the candidates, at the price of one
forward pass per candidate. It is therefore opt-in and loaded on the first
rerank, not at startup: configuring it costs nothing until a search asks for
reranking.

Loading never reaches the network: ``HF_HUB_OFFLINE=1`` is set and
``local_files_only=True`` is passed, so the model must be a local directory or
already be in the Hugging Face cache. A model that cannot be loaded is a
:class:`~memorist.errors.ConfigurationError` naming the option, raised by the
rerank that needed it (and again by later ones, without retrying the load).

Scores: raw logits are mapped to [0, 1] with a sigmoid (for two-label models,
the sigmoid of ``logit[1] - logit[0]``, i.e. the softmax probability of the
positive label), then blended with the original score:
``blend * model + (1 - blend) * original``.
"""

from __future__ import annotations

import os
import threading
from typing import Any, ClassVar

import numpy as np
from memorist.plugin_api import ConfigurationError, ProviderContext, ProviderError, ProviderOptions, Reranker
from memorist.plugin_api import resolve_model_path as resolve_packaged
from pydantic import Field

from ._scores import Hit, blend, rank, sigmoid

DEFAULT_MODEL = "cross-encoder/ms-marco-MiniLM-L-6-v2"


def resolve_model_path(model: str) -> str:
    """A loadable path for ``model`` (the packaged all-MiniLM-L6-v2 is a bi-encoder: loaded as a
    cross-encoder it gets an untrained one-label head, useful to smoke-test the plumbing only)."""
    return resolve_packaged(model, "reranker.options.model")


class CrossEncoderRerankerOptions(ProviderOptions):
    #: A local directory, or a model name already in the Hugging Face cache.
    model: str = DEFAULT_MODEL
    batch_size: int = Field(32, ge=1, le=4096)
    device: str = "cpu"
    #: Weight of the cross-encoder score; the original score gets ``1 - blend``.
    blend: float = Field(1.0, ge=0.0, le=1.0)
    #: Token limit of a (query, memory) pair; None keeps the model's own.
    max_length: int | None = Field(None, ge=8)


class CrossEncoderReranker(Reranker[CrossEncoderRerankerOptions]):
    """Scores (query, memory) pairs with a local cross-encoder."""

    name: ClassVar[str] = "cross-encoder"

    Options = CrossEncoderRerankerOptions

    def __init__(
        self, options: CrossEncoderRerankerOptions, context: ProviderContext, *, model: Any | None = None
    ) -> None:
        """``model`` injects an already built ``CrossEncoder`` (tests, embedding apps)."""
        super().__init__(options, context)
        self._model: Any | None = model
        self._load_error: ConfigurationError | None = None
        # Guards the lazy load and inference: tokenizers are not thread-safe.
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (False until the first rerank)."""
        return self._model is not None

    def describe(self) -> str:
        return f"{self.name}:{self.options.model}"

    def close(self) -> None:
        self._model = None

    def rerank(self, query: str, hits: list[Hit], top_k: int) -> list[Hit]:
        if not hits or top_k <= 0:
            return []
        model_scores = self.score(query, [record.text for record, _ in hits])
        weight = self.options.blend
        scores = [blend(m, original, weight) for m, (_, original) in zip(model_scores, hits, strict=True)]
        return rank(hits, scores, top_k)

    def score(self, query: str, texts: list[str]) -> list[float]:
        """Sigmoid-mapped cross-encoder scores of ``(query, text)`` pairs, in [0, 1]."""
        if not texts:
            return []
        import torch

        with self._lock:
            model = self._ensure_loaded()
            logits = model.predict(
                [(query, text) for text in texts],
                batch_size=self.options.batch_size,
                activation_fn=torch.nn.Identity(),
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return [sigmoid(x) for x in _positive_logits(np.asarray(logits, dtype=np.float64), len(texts))]

    def ensure_ready(self) -> None:
        """Load the model now (``POST /configure`` calls it so a model missing offline is a 400 there)."""
        with self._lock:
            self._ensure_loaded()

    def _ensure_loaded(self) -> Any:
        """The model, loaded on first call; a failed load is remembered, not retried."""
        if self._model is not None:
            return self._model
        if self._load_error is not None:
            raise self._load_error
        try:
            self._model = self._load()
        except ConfigurationError as exc:
            self._load_error = exc
            raise
        return self._model

    def _load(self) -> Any:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:  # the lean install: PyTorch is an extra
            raise ConfigurationError(
                "reranker.provider 'cross-encoder' runs on PyTorch, which is not installed: "
                "pip install -c constraints.txt 'memorist[torch]'"
            ) from None

        name = self.options.model
        path = resolve_model_path(name)
        kwargs: dict[str, Any] = {"device": self.options.device, "local_files_only": True}
        if self.options.max_length is not None:
            kwargs["max_length"] = self.options.max_length
        try:
            return CrossEncoder(path, **kwargs)
        except Exception as exc:  # noqa: BLE001 - any load failure is a configuration problem
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigurationError(
                f"reranker.options.model: cannot load cross-encoder '{name}' offline "
                f"(it must be a local directory or already in the Hugging Face cache): {detail}"
            ) from None


def _positive_logits(logits: np.ndarray, n: int) -> np.ndarray:
    """One relevance logit per pair from a one- or two-label model's output."""
    if logits.ndim == 1 and logits.shape[0] == n:
        return logits
    if logits.ndim == 2 and logits.shape[0] == n and logits.shape[1] == 1:
        return logits[:, 0]
    if logits.ndim == 2 and logits.shape[0] == n and logits.shape[1] == 2:
        margin: np.ndarray = logits[:, 1] - logits[:, 0]
        return margin
    raise ProviderError(
        f"cross-encoder returned scores of shape {logits.shape} for {n} pairs; "
        "only one- or two-label relevance models are supported"
    )
