"""The embedder's exported graph, plain against fused, on LoCoMo texts: latency, throughput, vectors.

    python benchmarks/embedding_graphs.py [--data DIR] [--turns 400] [--questions 150] [--rounds 2]

Exports the default model (all-MiniLM-L6-v2) twice into a temporary directory the
way the embedder does (``torch.onnx.export`` with eager attention): once as is,
once fused by ONNX Runtime's transformer optimizer (what the embedder caches and
runs). Both graphs then embed the same LoCoMo turns and questions one text at a
time, *interleaved* text by text (so both see the same moment of a host whose
speed drifts), and in batches of 16 and 64. Prints, per round, the p50 and mean of
one turn and one question, batch throughput, the node counts of both graphs and
the largest vector difference between them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from locomo import DEFAULT_DATA, turn_text, turns_of  # noqa: E402


def texts(data: Path, turns: int, questions: int) -> tuple[list[str], list[str]]:
    """The first ``turns`` turns and ``questions`` questions (categories 1-4) of the conversations."""
    said: list[str] = []
    asked: list[str] = []
    for path in sorted(data.glob("*.json")):
        conversation = json.loads(path.read_text())
        said.extend(turn_text(turn) for turn, _ in turns_of(conversation))
        asked.extend(q["question"] for q in conversation.get("qa", []) if q.get("category") in (1, 2, 3, 4))
        if len(said) >= turns and len(asked) >= questions:
            break
    return said[:turns], asked[:questions]


def graphs(directory: Path) -> tuple[Path, Path]:
    """The plain and the fused export of the default model, both written under ``directory``."""
    from memorist_sentence_transformers.embedder import resolve_model_path
    from memorist_sentence_transformers.fusion import fuse_transformer
    from memorist_sentence_transformers.onnx_runtime import _INPUT_NAMES
    from memorist_sentence_transformers.torch_export import export_plain, transformer_of
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu")
    inputs = list(_INPUT_NAMES)
    plain, fused = directory / "plain.onnx", directory / "fused.onnx"
    export_plain(model, inputs, plain)
    sample = model.tokenizer(["a probe sentence", "and a longer second one to pad"], padding=True, return_tensors="np")
    config = transformer_of(model).config
    probe = {name: np.asarray(sample[name], dtype=np.int64) for name in inputs}
    if not fuse_transformer(plain, fused, probe, config.num_attention_heads, config.hidden_size):
        raise SystemExit("the optimizer did not fuse the graph")
    return plain, fused


def nodes(graph: Path) -> int:
    import onnx

    return len(onnx.load(str(graph)).graph.node)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--questions", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    from memorist_sentence_transformers.embedder import resolve_model_path
    from memorist_sentence_transformers.onnx_runtime import OnnxSentenceEncoder, SessionTuning

    said, asked = texts(args.data, args.turns, args.questions)
    with tempfile.TemporaryDirectory(prefix="memorist-graphs-") as tmp:
        plain_graph, fused_graph = graphs(Path(tmp))
        path = resolve_model_path("all-MiniLM-L6-v2")
        encoders = {
            "plain": OnnxSentenceEncoder(path, plain_graph, SessionTuning()),
            "fused": OnnxSentenceEncoder(path, fused_graph, SessionTuning()),
        }
        print(f"graph nodes: plain {nodes(plain_graph)}, fused {nodes(fused_graph)}")
        difference = np.abs(encoders["plain"].encode(said, 32) - encoders["fused"].encode(said, 32)).max()
        print(f"largest vector difference over {len(said)} turns: {difference:.2g}")
        for round_ in range(1, args.rounds + 1):
            for kind, items in (("turn", said), ("question", asked)):
                spent: dict[str, list[float]] = {name: [] for name in encoders}
                for text in items:  # interleaved: both graphs see the same moment of the host
                    for name, encoder in encoders.items():
                        began = time.perf_counter()
                        encoder.encode([text], 1)
                        spent[name].append((time.perf_counter() - began) * 1000)
                line = ", ".join(
                    f"{name} p50 {statistics.median(ms):.2f} ms (mean {statistics.mean(ms):.2f})"
                    for name, ms in spent.items()
                )
                print(f"round {round_}, one {kind} at a time ({len(items)}): {line}")
            for batch in (16, 64):
                rates = []
                for name, encoder in encoders.items():
                    began = time.perf_counter()
                    encoder.encode(said, batch)
                    rates.append(f"{name} {len(said) / (time.perf_counter() - began):.0f} texts/s")
                print(f"round {round_}, batches of {batch}: {', '.join(rates)}")


if __name__ == "__main__":
    main()
