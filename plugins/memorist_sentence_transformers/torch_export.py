"""Exporting a loaded sentence-transformers model to ONNX through PyTorch.

Why a module of its own: only a model outside the BERT recipe (:mod:`.bert_graph` assembles
those without PyTorch) takes this path, and it is the one place that imports torch; the
runtime (:mod:`.onnx_runtime`) stays free of it. The file lands under a temporary name and
is renamed, so processes starting together never read half a graph.
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .fusion import fuse_transformer

log = logging.getLogger(__name__)

_OPSET = 17


def export_pipeline(model: Any, inputs: Sequence[str], path: Path) -> None:
    """Export the full encode pipeline to ``path`` (atomically), fused where that is exact."""
    sample = model.tokenizer(
        ["an example sentence to trace", "a second one", "and a third, longer than the others, to pad the rest"],
        padding=True,
        return_tensors="np",
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    plain, fused = (_temporary(path, suffix) for suffix in (".plain.tmp", ".fused.tmp"))
    try:
        export_plain(model, inputs, plain)
        probe = {name: np.asarray(sample[name], dtype=np.int64) for name in inputs}
        config = getattr(transformer_of(model), "config", None)
        heads, hidden = (int(getattr(config, key, 0) or 0) for key in ("num_attention_heads", "hidden_size"))
        chosen = fused if fuse_transformer(plain, fused, probe, heads, hidden) else plain
        os.replace(chosen, path)
        log.info("exported %s to ONNX at %s (%s)", path.stem, path, "fused" if chosen is fused else "unfused")
    finally:
        for leftover in (plain, fused):
            leftover.unlink(missing_ok=True)


def _temporary(path: Path, suffix: str) -> Path:
    """An empty file beside ``path`` (same filesystem, so the final rename is atomic)."""
    fd, name = tempfile.mkstemp(prefix=path.stem, suffix=suffix, dir=path.parent)
    os.close(fd)
    return Path(name)


def export_plain(model: Any, inputs: Sequence[str], target: Path) -> None:
    """``torch.onnx.export`` of tokens -> normalized sentence embedding, attention in its eager form
    (the form :func:`fuse_transformer` recognizes; the vectors are the same)."""
    import torch

    class Pipeline(torch.nn.Module):
        def __init__(self, wrapped: Any) -> None:
            super().__init__()
            self.wrapped = wrapped

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            embedding: torch.Tensor = self.wrapped(dict(zip(inputs, tensors, strict=True)))["sentence_embedding"]
            return embedding

    sample = model.tokenizer(["an example sentence to trace", "a second one"], padding=True, return_tensors="pt")
    args = tuple(sample[name] for name in inputs)
    axes = {name: {0: "batch", 1: "tokens"} for name in inputs} | {"embedding": {0: "batch"}}
    transformer = transformer_of(model)
    restore = _use_eager_attention(transformer)
    try:
        module = Pipeline(model).eval()
        with torch.inference_mode(False), torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                module,
                args,
                str(target),
                input_names=list(inputs),
                output_names=["embedding"],
                dynamic_axes=axes,
                opset_version=_OPSET,
                dynamo=False,
            )
    finally:
        if restore is not None and transformer is not None:
            transformer.set_attn_implementation(restore)


def transformer_of(model: Any) -> Any:
    """The Hugging Face model inside a ``SentenceTransformer`` (its first module's), or None."""
    return getattr(model[0], "auto_model", None) if len(model) else None


def _use_eager_attention(transformer: Any) -> str | None:
    """Switch a Hugging Face model to eager attention; the implementation to restore, or None."""
    switch = getattr(transformer, "set_attn_implementation", None)
    current = getattr(getattr(transformer, "config", None), "_attn_implementation", None)
    if switch is None or not isinstance(current, str) or current == "eager":
        return None
    try:
        switch("eager")
    except Exception:  # a model without an eager implementation: export what it has
        return None
    return current
