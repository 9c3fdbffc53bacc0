"""Fusing an exported transformer graph into ONNX Runtime's transformer kernels.

Why: the graph ``torch.onnx.export`` writes for MiniLM has 536 nodes (~350 once ONNX
Runtime's load-time optimizations ran), ~130 of them shape arithmetic, and a short
text (a query, a chat turn) is so small that running operators one by one costs more
than the arithmetic. ONNX Runtime's transformer optimizer rewrites each layer's
attention into one ``Attention`` kernel and the embeddings, skip connections and
layer norms into fused ones: 63 nodes. Interleaved on LoCoMo texts (2 cores), a
question then embeds in ~3.4 ms instead of ~4.0 and a turn in ~6.0-6.5 instead of
~6.9-7.3; batches are unchanged, and so are the vectors (differences around 2e-7).
``benchmarks/embedding_graphs.py`` measures it.

The optimizer knows attention only in the form PyTorch's "eager" implementation
exports (the default SDPA kernel exports as a different pattern it does not match);
the exporter switches the model to eager for the export. Fusion is checked, not
trusted: the fused graph must give the plain graph's vectors on probe inputs, or the
plain graph is kept. A model the optimizer does not understand loses only the speed-up.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

#: The largest element difference between plain and fused vectors accepted as "the same".
TOLERANCE = 1e-4


def fuse_transformer(
    plain: Path, target: Path, probe: Mapping[str, np.ndarray], heads: int = 0, hidden: int = 0
) -> bool:
    """Write the fused form of ``plain`` to ``target`` if it gives ``plain``'s outputs on ``probe``.

    ``heads`` and ``hidden`` are the model's attention heads and hidden size (its config
    says; 0 lets the optimizer guess from the graph, which it cannot always do). Returns
    whether it did; on False nothing is written and the caller keeps ``plain``.
    """
    try:
        from onnxruntime.transformers import optimizer

        # opt_level 0: the optimizer's own fusions only; ONNX Runtime applies its graph
        # optimizations when a session loads the file, for the CPU it runs on. Its warning that
        # a graph assembled without PyTorch was not made by "pytorch" says nothing useful.
        optimizer_log = logging.getLogger(optimizer.__name__)
        level = optimizer_log.level
        optimizer_log.setLevel(logging.ERROR)
        try:
            fused = optimizer.optimize_model(
                str(plain), model_type="bert", num_heads=heads, hidden_size=hidden, opt_level=0
            )
        finally:
            optimizer_log.setLevel(level)
        if not fused.get_fused_operator_statistics().get("Attention"):
            log.info("embedder: no attention to fuse in %s; keeping the exported graph", plain.name)
            return False
        fused.save_model_to_file(str(target))
    except Exception as exc:  # an architecture the optimizer does not know
        log.info("embedder: graph fusion unavailable for %s (%s)", plain.name, exc)
        return False
    difference = _largest_difference(plain, target, probe)
    if difference > TOLERANCE:
        log.warning("embedder: fused graph differs from the export by %.2g; keeping the export", difference)
        target.unlink(missing_ok=True)
        return False
    return True


def _largest_difference(first: Path, second: Path, feed: Mapping[str, np.ndarray]) -> float:
    import onnxruntime

    outputs = []
    for graph in (first, second):
        session = onnxruntime.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
        names = {i.name for i in session.get_inputs()}
        outputs.append(session.run(None, {k: v for k, v in feed.items() if k in names})[0])
    if outputs[0].shape != outputs[1].shape:
        return float("inf")
    return float(np.abs(outputs[0] - outputs[1]).max())
