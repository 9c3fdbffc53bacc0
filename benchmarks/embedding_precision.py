"""What each precision of the default embedder's graph costs and gives, on LoCoMo turns.

    python benchmarks/embedding_precision.py [--data DIR] [--turns 400] [--single 150] [--rounds 3]

Runs all-MiniLM-L6-v2 on ONNX Runtime three ways over the same turns:

- ``float``: the exported float graph (the default configuration);
- ``int8, one scale per matrix``: dynamic quantization with one scale for each weight
  matrix (what ``quantize: int8`` ran before per-channel scales), made here in a
  temporary directory;
- ``int8, per channel``: what ``embedder.options.quantize: int8`` runs now
  (``configs/fast.yaml``): one scale for each output channel of each weight matrix.

For each it prints how far its vectors are from the float ones (1 - cosine, mean and
worst over the turns), a lone turn's embedding time (p50 over ``--single`` turns: what one
add at a time pays) and the texts/s of calls of 128 (what ``add_many`` and ``memorist import``
pay). The variants take turns within each round, a whole measurement at a time, so all see
the same moments of a host whose speed drifts, and none evicts another's weights from
the caches text by text.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from embedding_batches import rate  # noqa: E402
from ingest_stages import engine, turns  # noqa: E402
from locomo import DEFAULT_DATA, turn_text  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def float_graph_copy(encoder: Any, into: Path) -> Path:
    """A copy in ``into`` of the float graph ``encoder`` runs.

    On a fresh cache the session runs the plain graph while its fused form is prepared in the
    background (here or in another process); the fused graph then replaces the plain file, so
    the file the session was opened from may be gone. Either form gives the same vectors.
    """
    if encoder.preparing is not None:
        encoder.preparing.join()
    plain: Path = encoder.graph
    fused = plain.with_name(plain.name.replace("-plain.onnx", ".onnx"))
    target = into / "float.onnx"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        for candidate in (fused, plain):
            try:
                shutil.copyfile(candidate, target)
                return target
            except FileNotFoundError:  # replaced between the look and the copy
                continue
        time.sleep(0.2)
    raise FileNotFoundError(f"neither {fused} nor {plain} appeared within 300 s")


def one_scale_per_matrix(float_graph: Path, into: Path) -> Path:
    """The float graph quantized the way ``quantize: int8`` did before per-channel scales."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target = into / "per-matrix-int8.onnx"
    quantize_dynamic(
        float_graph,
        target,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=["MatMul", "Attention"],
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    return target


def lone_p50_ms(encoder: Any, texts: list[str]) -> float:
    spent = []
    for text in texts:
        began = time.perf_counter()
        encoder.encode([text], 1)
        spent.append(time.perf_counter() - began)
    return statistics.median(spent) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--single", type=int, default=150, help="turns embedded one at a time per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    said = [turn_text(turn) for _, turn, _ in turns(args.data, args.turns)]
    if not said:
        print(f"no LoCoMo files in {args.data}", file=sys.stderr)
        return 2
    from memorist_sentence_transformers.embedder import resolve_model_path
    from memorist_sentence_transformers.onnx_runtime import OnnxSentenceEncoder, SessionTuning

    default, fast = engine(None), engine(CONFIGS / "fast.yaml")
    float_encoder = getattr(default.components.embedder, "_onnx", None)
    per_channel = getattr(fast.components.embedder, "_onnx", None)
    if float_encoder is None or per_channel is None:
        print("the default embedder is not running on ONNX Runtime here", file=sys.stderr)
        return 2
    batch_size = default.components.embedder.options.batch_size
    with tempfile.TemporaryDirectory(prefix="memorist-precision-") as scratch:
        per_matrix = OnnxSentenceEncoder(
            resolve_model_path(default.components.embedder.options.model),
            one_scale_per_matrix(float_graph_copy(float_encoder, Path(scratch)), Path(scratch)),
            SessionTuning(),
        )
        encoders = {"float": float_encoder, "int8, one scale per matrix": per_matrix, "int8, per channel": per_channel}
        exact = float_encoder.encode(said, batch_size)
        lone: dict[str, list[float]] = {label: [] for label in encoders}
        batched: dict[str, list[float]] = {label: [] for label in encoders}
        for _ in range(args.rounds):
            for label, encoder in encoders.items():
                lone[label].append(lone_p50_ms(encoder, said[: args.single]))
                batched[label].append(rate(partial(encoder.encode, batch_size=batch_size), said, 128))
        print(f"{len(said)} LoCoMo turns, {args.rounds} rounds; a lone turn p50 per round, calls of 128 per round")
        print(f"{'graph':<28} {'1-cos mean':>10} {'1-cos max':>10}  {'lone turn (ms)':<22} batched (texts/s)")
        for label, encoder in encoders.items():
            gap = 1.0 - np.sum(exact * encoder.encode(said, batch_size), axis=1)
            ms = " ".join(f"{x:.2f}" for x in lone[label])
            rates = " ".join(f"{x:.0f}" for x in batched[label])
            print(f"{label:<28} {gap.mean():10.5f} {gap.max():10.5f}  {ms:<22} {rates}")
    default.close()
    fast.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
