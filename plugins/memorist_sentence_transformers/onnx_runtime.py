"""Running a loaded sentence-transformers model through ONNX Runtime.

Why: embedding one short query with PyTorch costs about 9 ms on two CPU
cores, nearly all of it per-operator dispatch overhead, and every search pays
it. The same graph under ONNX Runtime takes under 3 ms and gives the same
vectors (differences around 1e-7), so stored vectors stay valid when the
backend changes.

The whole sentence-transformers pipeline (transformer, pooling, normalization)
becomes one graph, cached on disk and keyed by the weights' size and mtime. A BERT
model's graph is assembled from its weights without PyTorch (:mod:`.bert_graph`,
:mod:`.graph_preparation`); any other model is exported with ``torch.onnx.export``
(the ``torch`` extra, :mod:`.torch_export`), keyed by the torch version too. Files are written under a
temporary name and renamed, so processes starting together never read half a file.
Tokenization stays with the model's own (fast) tokenizer.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from . import graph_cache, graph_preparation
from .bert_graph import BUILDER_VERSION
from .torch_export import export_pipeline

log = logging.getLogger(__name__)

#: Inputs BERT-style tokenizers produce; the exported graph takes those the tokenizer emits.
_INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
#: Part of the cache key: bumped when the exported file's form changes (2: fused kernels).
_GRAPH_FORMAT = "2"
_SPINNING = "session.intra_op.allow_spinning"


def default_cache_dir() -> Path:
    """``$MEMORIST_MODEL_CACHE``, else ``$XDG_CACHE_HOME/memorist/onnx``, else ``~/.cache/memorist/onnx``."""
    explicit = os.environ.get("MEMORIST_MODEL_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memorist" / "onnx"


@dataclass(frozen=True)
class SessionTuning:
    """How the ONNX Runtime session runs the graph (the embedder's ``threads``, ``spin`` and
    ``quantize`` options)."""

    #: Intra-op threads; None keeps ONNX Runtime's default (one per core).
    threads: int | None = None
    #: Spin-wait between operators during a run (see :class:`OnnxSentenceEncoder`).
    spin: bool = False
    #: Run a copy of the graph with int8 weights (dynamic quantization, one scale per output
    #: channel): about twice as fast on the CPU, vectors ~0.008 from the float ones in mean
    #: 1 - cosine on LoCoMo turns (benchmarks/embedding_precision.py).
    int8: bool = False


class CacheMiss(Exception):
    """No graph (or no fast tokenizer file) for this model in the cache yet."""


class OnnxSentenceEncoder:
    """Embeds texts with ONNX Runtime, matching ``SentenceTransformer.encode(normalize_embeddings=True)``.

    Built from the exported graph and the model's ``tokenizer.json`` alone (the
    ``tokenizers`` library), so a start whose graph is cached imports neither torch
    nor sentence-transformers: that is most of a cold start's time.
    """

    def __init__(self, model_path: str, graph: Path, tuning: SessionTuning) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        root = Path(model_path)
        if tuning.int8:
            graph = _quantized(graph)
        options = onnxruntime.SessionOptions()
        if tuning.threads is not None:
            options.intra_op_num_threads = tuning.threads
        options.inter_op_num_threads = 1
        # Spinning: the intra-op threads wait for the next operator by spinning instead of
        # sleeping. Alone, a short query embeds in 3.7 ms spinning against 5.4 ms sleeping (2
        # cores); but whole searches and adds, where LanceDB's, the server's or another
        # library's threads run beside the embedding, were no faster and sometimes slower
        # (benchmarks/versus_mem0.py: search p50 13.6 ms spinning, 9.8 ms not). Off by default.
        options.add_session_config_entry(_SPINNING, "1" if tuning.spin else "0")
        self._session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        #: The graph the session runs (the int8 copy when quantized).
        self.graph = graph
        #: The background step making the cache's fused graph on a first use (see :meth:`assemble`).
        self.preparing: threading.Thread | None = None
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_seq_length(root))
        # Padding is done per batch here (see encode), so the tokenizer returns each text's own tokens.
        self._tokenizer.no_padding()
        pad_token = _special_token(root, "pad_token") or "[PAD]"
        pad_id = self._tokenizer.token_to_id(pad_token)
        self._pad_id = 0 if pad_id is None else pad_id
        # The tokenizer is not safe to call from several threads at once; the session is.
        self._lock = threading.Lock()
        self.dimension = int(self.encode(["dimension probe"], 1).shape[1])

    @property
    def spins(self) -> bool:
        """Whether the session's threads spin-wait, as ONNX Runtime reports its own configuration."""
        entry = self._session.get_session_options().get_session_config_entry(_SPINNING)
        return bool(entry == "1")

    @classmethod
    def from_cache(cls, model_path: str, cache_dir: Path, tuning: SessionTuning) -> OnnxSentenceEncoder:
        """The encoder over a graph exported earlier; :class:`CacheMiss` when there is none."""
        root = Path(model_path)
        if not (root / "tokenizer.json").is_file():
            raise CacheMiss(f"{model_path}: no tokenizer.json")
        assembled = _assembled_graph(model_path, cache_dir)
        plain = graph_preparation.plain_path(assembled)
        if not assembled.exists() and plain.exists():  # fused in the background by an earlier start, unfinished
            return cls._from_plain(model_path, plain, assembled, tuning)
        candidates = [assembled]
        exported = (_cache_key(model_path, inputs) for inputs in (_INPUT_NAMES, _INPUT_NAMES[:2]))
        candidates += [cache_dir / f"{key}.onnx" for key in exported]
        for graph in candidates:
            if graph.exists():
                graph_cache.mark_used(graph, model_path)
                return cls(model_path, graph, tuning)
        raise CacheMiss(f"{model_path}: not exported yet")

    @classmethod
    def assemble(
        cls, model_path: str, cache_dir: Path, tuning: SessionTuning, label: str | None = None
    ) -> OnnxSentenceEncoder:
        """A first use without PyTorch: the graph assembled from the weights (~1 s) runs at once;
        its fused form is made for the cache in the background (synchronously for int8, whose
        copy is made from the fused graph). :class:`.bert_graph.UnsupportedModel` for a model
        outside the BERT recipe."""
        root = Path(model_path)
        graph = _assembled_graph(model_path, cache_dir)
        then = (
            "then fusing and quantizing it to int8 (once, ~%d s more)"
            if tuning.int8
            else "a fused copy is then made in the background for later starts (once, ~%d s; embedding works meanwhile)"
        )

        def announce() -> None:
            log.warning(
                "embedder: first use of %s: assembling its ONNX graph from the weights (once, ~%d s), "
                + then
                + " in %s",
                label or root.name,
                graph_preparation.ASSEMBLY_SECONDS,
                graph_preparation.FUSION_SECONDS * (3 if tuning.int8 else 1),
                cache_dir,
            )

        try:
            plain, _ = graph_preparation.assemble_once(root, graph, _INPUT_NAMES, announce)
        except OSError as exc:  # a read-only cache (an image's): this process's own copy, every start
            private = Path(tempfile.mkdtemp(prefix="memorist-onnx-"))
            log.warning("embedder: graph cache %s not writable (%s); using %s this time", cache_dir, exc, private)
            cache_dir, graph = private, private / graph.name
            plain, _ = graph_preparation.assemble_once(root, graph, _INPUT_NAMES, announce)
        if plain == graph:  # another process fused it meanwhile
            return cls(model_path, graph, tuning)
        return cls._from_plain(model_path, plain, graph, tuning)  # assembled here, or by another worker

    @classmethod
    def _from_plain(cls, model_path: str, plain: Path, graph: Path, tuning: SessionTuning) -> OnnxSentenceEncoder:
        """Run the plain graph while the fused ``graph`` is made in the background (at once for int8).

        Another process may finish the fused graph between this process seeing ``plain`` and
        opening it: the fusion replaces ``graph`` first and only then removes ``plain``, so a
        ``plain`` gone by the time it is opened means ``graph`` is there to open instead (two
        gunicorn workers starting on an empty cache stopped the server on this once).
        """
        root = Path(model_path)
        if tuning.int8:
            graph_preparation.fuse_into_cache(plain, graph, root, _INPUT_NAMES)
            return cls(model_path, graph, tuning)
        try:
            encoder = cls(model_path, plain, tuning)
        except Exception:
            if plain.exists() or not graph.exists():
                raise
            return cls(model_path, graph, tuning)
        encoder.preparing = graph_preparation.fuse_in_background(plain, graph, root, _INPUT_NAMES)
        return encoder

    @classmethod
    def export(cls, model: Any, model_path: str, cache_dir: Path, tuning: SessionTuning) -> OnnxSentenceEncoder:
        """Export a loaded ``SentenceTransformer`` once (torch does this), then run it like a cached one."""
        probe = model.tokenizer(["probe"], return_tensors="np")
        inputs = [name for name in _INPUT_NAMES if name in probe]
        graph = cache_dir / f"{_cache_key(model_path, inputs)}.onnx"
        if not graph.exists():
            export_pipeline(model, inputs, graph)
            graph_cache.record_source(graph, model_path)
            graph_cache.prune(cache_dir, keep=graph)
        else:
            graph_cache.mark_used(graph, model_path)
        return cls(model_path, graph, tuning)

    def encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """Unit vectors of ``texts``, in their order.

        Why batches of similar token counts: a batch is padded to its longest text, and
        the padding costs as much as real tokens (attention more). Conversation turns
        range from a few tokens to a hundred, so batches in arrival order, or even sorted
        by characters in fixed groups of ``batch_size``, spent a third of the time on
        padding: 128 LoCoMo turns per call embedded at ~142 texts/s, against ~185-210 with
        batches cut by token count (docs/benchmarks.md, "batches cut by token count").
        Each text's vector depends only on its own tokens (padding is masked), so the
        grouping changes no output beyond float rounding.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            encodings = self._tokenizer.encode_batch(list(texts))
        batches = _length_batches([len(e.ids) for e in encodings], batch_size)
        outputs = [self._run([encodings[i] for i in batch]) for batch in batches]
        vectors = np.empty((len(encodings), outputs[0].shape[1]), dtype=np.float32)
        for batch, out in zip(batches, outputs, strict=True):
            vectors[np.asarray(batch, dtype=int)] = out
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms > 0, norms, 1.0)

    def _run(self, encodings: Sequence[Any]) -> np.ndarray:
        """The graph's output for one batch, padded to its longest text (padding masked)."""
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros((len(encodings), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            length = len(encoding.ids)
            ids[row, :length] = encoding.ids
            mask[row, :length] = 1
            types[row, :length] = encoding.type_ids
        columns = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return np.asarray(self._session.run(None, {name: columns[name] for name in self._inputs})[0])


#: A batch takes texts of up to this many times its shortest text's tokens: the padding it
#: adds is at most ~15% of the batch, and batches stay few (66 runs for 640 LoCoMo turns
#: in calls of 128, against 20 in fixed groups of 32 and 640 one by one).
LENGTH_SLACK = 1.15


def _length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices of ``lengths`` grouped into batches of at most ``batch_size``, shortest first,
    each holding texts within :data:`LENGTH_SLACK` of its shortest one's length."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < batch_size and lengths[i] <= LENGTH_SLACK * lengths[batches[-1][0]]:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def max_seq_length(root: Path) -> int:
    """What ``SentenceTransformer.get_max_seq_length()`` reports: sentence_bert_config, else the tokenizer's."""
    for name, key in (("sentence_bert_config.json", "max_seq_length"), ("tokenizer_config.json", "model_max_length")):
        try:
            value = json.loads((root / name).read_text()).get(key)
        except (OSError, ValueError):
            continue
        if isinstance(value, int) and 0 < value < 100_000:
            return value
    return 512


def _special_token(root: Path, name: str) -> str | None:
    for file in ("special_tokens_map.json", "tokenizer_config.json"):
        try:
            value = json.loads((root / file).read_text()).get(name)
        except (OSError, ValueError):
            continue
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            return value
    return None


def _cache_key(model_path: str, inputs: Sequence[str]) -> str:
    """Changes when the weights, the exporter (torch), the graph's inputs or its form change.

    torch's version is read from the package metadata: computing the key must not import it.
    """
    root = Path(model_path)
    parts = [str(root.resolve()) if root.exists() else model_path, _torch_version(), ",".join(inputs), _GRAPH_FORMAT]
    parts += graph_cache.weights_signature(root)
    digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
    return f"{root.name or 'model'}-{digest}"


def _assembled_graph(model_path: str, cache_dir: Path) -> Path:
    """Where the graph assembled without PyTorch lives: keyed by the weights and the builder's version."""
    root = Path(model_path)
    parts = [str(root.resolve()) if root.exists() else model_path, f"assembled-{BUILDER_VERSION}", _GRAPH_FORMAT]
    parts += graph_cache.weights_signature(root)
    digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]
    return cache_dir / f"{root.name or 'model'}-{digest}.onnx"


def _torch_version() -> str:
    try:
        return version("torch")
    except PackageNotFoundError:
        return "no-torch"


def _quantized(graph: Path) -> Path:
    """The int8 copy of ``graph`` beside it, made once (atomically, like the export).

    Dynamic quantization: weights stored as int8, activations quantized per run, so no
    calibration data is needed. Each weight matrix gets one scale per output channel: with
    one scale per matrix the vectors were 0.044 from the float ones in mean 1 - cosine on
    LoCoMo turns (LoCoMo recall@50 0.898), per channel 0.008 (0.904) at the same speed.
    Its key is the float graph's, which already changes with the weights and the exporter;
    the ``pc`` in the name keeps a cached one-scale-per-matrix copy from being reused.
    """
    target = graph.with_name(f"{graph.stem}-int8pc.onnx")
    if target.exists():
        return target
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fd, tmp = tempfile.mkstemp(prefix=target.stem, suffix=".tmp", dir=target.parent)
    os.close(fd)
    quiet = logging.getLogger()  # the quantizer advises on pre-processing through the root logger
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        # The matrix products and fused attention only: the embedding lookup stays float. The
        # fused kernels are outside the standard domain, so shape inference cannot type
        # their outputs: they are float.
        quantize_dynamic(
            graph,
            tmp,
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Attention"],
            per_channel=True,
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )
        os.replace(tmp, target)
        log.info("quantized %s to int8 at %s", graph.stem, target)
        graph_cache.prune(graph.parent, keep=graph)
    finally:
        quiet.setLevel(level)
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
