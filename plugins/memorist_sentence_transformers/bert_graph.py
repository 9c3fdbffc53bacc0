"""Assembling a BERT sentence encoder's ONNX graph from its weights, without PyTorch.

Why: the graph used to be exported by ``torch.onnx.export``, so every install carried
torch and sentence-transformers (~2 GB) to run a step that happens once, and a first
start spent ~55 s in it. A BERT encoder is a short, fixed recipe (embeddings, N
identical layers of attention and a feed-forward block, pooling), so the graph is
written here node by node with ``onnx``'s helpers from ``config.json``, the
safetensors weights and the sentence-transformers module files: about a second, and
the same vectors (``tests/contracts/test_embedder.py`` compares them with sentence-transformers'
own, cosine ≥ 0.9999).

The nodes follow the form PyTorch's "eager" attention exports (Q/K/V MatMul + Add,
Reshape/Transpose per head, MatMul, Div by √d, Add of the extended mask, Softmax), the
form ONNX Runtime's transformer optimizer recognizes, so :func:`.fusion.fuse_transformer`
fuses this graph as it fused the export. A model outside the recipe (another
architecture, a Dense module after pooling, max pooling) raises :class:`UnsupportedModel`
and is exported through PyTorch instead, where that is installed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

#: Part of the graph cache key: bumped when the assembled graph's form changes.
BUILDER_VERSION = "1"
_OPSET = 17
_MODULE_PREFIX = "sentence_transformers.models."


class UnsupportedModel(Exception):
    """The model is not a BERT encoder with mean or CLS pooling this builder knows how to write."""


def build_bert_graph(model_root: Path, inputs: tuple[str, ...]) -> Any:
    """The ``onnx.ModelProto`` taking ``inputs`` (int64, [batch, tokens]) to ``embedding`` [batch, hidden]:
    the pooled, L2-normalized sentence embedding ``SentenceTransformer.encode`` returns."""
    config = _read_json(model_root / "config.json")
    if config.get("model_type") != "bert" or config.get("position_embedding_type", "absolute") != "absolute":
        raise UnsupportedModel(f"{model_root}: model_type {config.get('model_type')!r} is not a plain BERT")
    if config.get("hidden_act", "gelu") != "gelu":
        raise UnsupportedModel(f"{model_root}: activation {config.get('hidden_act')!r} (only gelu)")
    pooling, normalize = _pipeline(model_root)
    weights = _weights(model_root)
    return _Builder(config, weights, inputs, pooling, normalize).model()


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UnsupportedModel(f"{path}: {exc}") from None
    if not isinstance(value, dict):
        raise UnsupportedModel(f"{path}: not a JSON object")
    return value


def _pipeline(model_root: Path) -> tuple[str, bool]:
    """``(pooling, normalize)`` from the sentence-transformers module list (no list: mean, normalized)."""
    modules_file = model_root / "modules.json"
    if not modules_file.exists():
        return "mean", True
    modules = json.loads(modules_file.read_text())
    kinds = [str(m.get("type", "")).removeprefix(_MODULE_PREFIX) for m in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        raise UnsupportedModel(f"{model_root}: modules {kinds} (only Transformer, Pooling[, Normalize])")
    if str(modules[0].get("path", "")).strip("./"):
        raise UnsupportedModel(f"{model_root}: the transformer is in {modules[0]['path']!r}, not beside modules.json")
    pooling_config = _read_json(model_root / modules[1].get("path", "1_Pooling") / "config.json")
    modes = [
        k.removeprefix("pooling_mode_").removesuffix("_token").removesuffix("_tokens")
        for k, v in pooling_config.items()
        if k.startswith("pooling_mode_") and v
    ]
    if modes not in (["mean"], ["cls"]):
        raise UnsupportedModel(f"{model_root}: pooling {modes} (only mean or cls)")
    # Normalization happens again after the graph (OnnxSentenceEncoder.encode); in the graph it
    # keeps the output the same as the export's for any caller of the file.
    return modes[0], len(kinds) == 3


def _weights(model_root: Path) -> dict[str, np.ndarray]:
    files = sorted(model_root.glob("*.safetensors"))
    if not files:
        raise UnsupportedModel(f"{model_root}: no safetensors weights")
    from safetensors.numpy import load_file

    weights: dict[str, np.ndarray] = {}
    for file in files:
        for name, value in load_file(str(file)).items():
            weights[name.removeprefix("bert.")] = value
    return weights


class _Builder:
    """Writes the nodes; each helper returns its output's name."""

    def __init__(
        self,
        config: dict[str, Any],
        weights: dict[str, np.ndarray],
        inputs: tuple[str, ...],
        pooling: str,
        normalize: bool,
    ) -> None:
        self.config = config
        self.weights = weights
        self.inputs = inputs
        self.pooling = pooling
        self.normalize = normalize
        self.nodes: list[Any] = []
        #: (name, contiguous array): written straight into the model's initializers at the end
        #: (each ``TensorProto`` built apart and then copied into the graph, then the graph into
        #: the model, copied the 90 MB of weights four times: ~2 s of a first start).
        self.initializers: list[tuple[str, np.ndarray]] = []
        self._count = 0

    # -- plumbing -----------------------------------------------------------------------

    def _name(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def op(self, kind: str, *inputs: str, hint: str | None = None, **attributes: Any) -> str:
        from onnx import helper

        out = self._name(hint or kind.lower())
        self.nodes.append(helper.make_node(kind, list(inputs), [out], name=out, **attributes))
        return out

    def const(self, value: Any, hint: str, dtype: Any = np.float32) -> str:
        name = self._name(hint)
        # np.require keeps a scalar 0-dimensional (ascontiguousarray would make it shape (1,)).
        self.initializers.append((name, np.require(np.asarray(value, dtype=dtype), requirements="C")))
        return name

    def weight(self, key: str, transpose: bool = False) -> str:
        try:
            value = self.weights[key]
        except KeyError:
            raise UnsupportedModel(f"weight {key!r} missing") from None
        value = np.ascontiguousarray(value.T if transpose else value, dtype=np.float32)
        return self.const(value, key.replace(".", "_"))

    def linear(self, x: str, prefix: str) -> str:
        """``x @ W.T + b`` as MatMul then Add (the form the optimizer fuses)."""
        product = self.op("MatMul", x, self.weight(f"{prefix}.weight", transpose=True))
        return self.op("Add", product, self.weight(f"{prefix}.bias"))

    def layer_norm(self, x: str, prefix: str) -> str:
        eps = float(self.config.get("layer_norm_eps", 1e-12))
        scale, bias = self.weight(f"{prefix}.weight"), self.weight(f"{prefix}.bias")
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=eps)

    # -- the model ----------------------------------------------------------------------

    def model(self) -> Any:
        from onnx import TensorProto, helper

        hidden = int(self.config["hidden_size"])
        heads = int(self.config["num_attention_heads"])
        if hidden % heads:
            raise UnsupportedModel(f"hidden_size {hidden} is not a multiple of {heads} heads")
        x = self.embeddings()
        mask = self.op("Cast", "attention_mask", to=TensorProto.FLOAT)
        extended = self.extended_mask()
        for index in range(int(self.config["num_hidden_layers"])):
            x = self.layer(x, extended, f"encoder.layer.{index}", heads, hidden // heads)
        pooled = self.pool(x, mask)
        if self.normalize:
            norm = self.op("ReduceL2", pooled, axes=[1], keepdims=1)  # opset 17: axes is an attribute
            norm = self.op("Max", norm, self.const(1e-12, "norm_floor"))
            pooled = self.op("Div", pooled, norm)
        self.nodes.append(helper.make_node("Identity", [pooled], ["embedding"], name="embedding"))
        graph_inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"]) for n in self.inputs]
        output = helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])
        graph = helper.make_graph(self.nodes, "sentence_embedding", graph_inputs, [output])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)], producer_name="memorist")
        model.ir_version = 8
        for name, array in self.initializers:
            tensor = model.graph.initializer.add()
            tensor.name = name
            tensor.data_type = helper.np_dtype_to_tensor_dtype(array.dtype)
            tensor.dims.extend(array.shape)
            tensor.raw_data = array.tobytes()
        return model

    def embeddings(self) -> str:
        words = self.op("Gather", self.weight("embeddings.word_embeddings.weight"), "input_ids", axis=0)
        shape = self.op("Shape", "input_ids")
        length = self.op("Gather", shape, self.const(1, "one", np.int64), axis=0)
        positions = self.op("Range", self.const(0, "zero", np.int64), length, self.const(1, "step", np.int64))
        positions = self.op("Unsqueeze", positions, self.const([0], "axis0", np.int64))
        position = self.op("Gather", self.weight("embeddings.position_embeddings.weight"), positions, axis=0)
        total = self.op("Add", words, position)
        table = self.weight("embeddings.token_type_embeddings.weight")
        if "token_type_ids" in self.inputs:
            types = self.op("Gather", table, "token_type_ids", axis=0)
        else:  # a tokenizer without segment ids: every token is of type 0, as in the model's forward
            types = self.op("Gather", table, self.const(0, "type0", np.int64), axis=0)
        total = self.op("Add", total, types)
        return self.layer_norm(total, "embeddings.LayerNorm")

    def extended_mask(self) -> str:
        """``(1 - mask) * finfo.min`` over [batch, 1, 1, tokens], added to every attention score.

        Written as the export writes it (Unsqueeze, Unsqueeze, Cast, Sub, Mul): the optimizer
        finds the mask of its fused attention by that path.
        """
        unsqueezed = self.op("Unsqueeze", "attention_mask", self.const([1], "axis1m", np.int64))
        unsqueezed = self.op("Unsqueeze", unsqueezed, self.const([2], "axis2m", np.int64))
        cast = self.op("Cast", unsqueezed, to=1)  # TensorProto.FLOAT
        inverted = self.op("Sub", self.const(1.0, "one_f"), cast)
        return self.op("Mul", inverted, self.const(np.finfo(np.float32).min, "mask_min"))

    def heads(self, x: str, heads: int, size: int, perm: list[int]) -> str:
        split = self.op("Reshape", x, self.const([0, 0, heads, size], "head_shape", np.int64))
        return self.op("Transpose", split, perm=perm)

    def layer(self, x: str, extended: str, prefix: str, heads: int, size: int) -> str:
        attention = f"{prefix}.attention"
        query = self.heads(self.linear(x, f"{attention}.self.query"), heads, size, [0, 2, 1, 3])
        key = self.heads(self.linear(x, f"{attention}.self.key"), heads, size, [0, 2, 3, 1])
        value = self.heads(self.linear(x, f"{attention}.self.value"), heads, size, [0, 2, 1, 3])
        scores = self.op("MatMul", query, key)
        scores = self.op("Div", scores, self.const(math.sqrt(size), "sqrt_d"))
        scores = self.op("Add", scores, extended)
        probs = self.op("Softmax", scores, axis=-1)
        context = self.op("Transpose", self.op("MatMul", probs, value), perm=[0, 2, 1, 3])
        context = self.op("Reshape", context, self.const([0, 0, heads * size], "merge_shape", np.int64))
        attended = self.linear(context, f"{attention}.output.dense")
        x = self.layer_norm(self.op("Add", attended, x), f"{attention}.output.LayerNorm")
        inner = self.gelu(self.linear(x, f"{prefix}.intermediate.dense"))
        out = self.linear(inner, f"{prefix}.output.dense")
        return self.layer_norm(self.op("Add", out, x), f"{prefix}.output.LayerNorm")

    def gelu(self, x: str) -> str:
        """The exact (erf) GELU BERT uses: ``x * 0.5 * (1 + erf(x / √2))``."""
        scaled = self.op("Div", x, self.const(math.sqrt(2.0), "sqrt2"))
        erf = self.op("Add", self.op("Erf", scaled), self.const(1.0, "one_g"))
        return self.op("Mul", self.op("Mul", x, erf), self.const(0.5, "half"))

    def pool(self, x: str, mask: str) -> str:
        if self.pooling == "cls":
            first = self.op("Gather", x, self.const(0, "cls", np.int64), axis=1)
            return first
        weights = self.op("Unsqueeze", mask, self.const([2], "axis2", np.int64))
        summed = self.op("ReduceSum", self.op("Mul", x, weights), self.const([1], "axis1", np.int64), keepdims=0)
        counts = self.op("ReduceSum", weights, self.const([1], "axis1c", np.int64), keepdims=0)
        counts = self.op("Max", counts, self.const(1e-9, "count_floor"))
        return self.op("Div", summed, counts)
