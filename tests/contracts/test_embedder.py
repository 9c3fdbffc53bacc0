"""The default embedder: ONNX Runtime and PyTorch give the same vectors; the graph is assembled
from the weights without PyTorch, fused in the background and cached."""

from __future__ import annotations

import logging
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist.plugin.contracts import ProviderContext
from memorist.testing.embedder import EmbedderContract
from memorist_sentence_transformers.embedder import SentenceTransformerEmbedder
from pydantic import ValidationError

TEXTS = [
    "What did Caroline research after the support group meeting?",
    "Melanie painted a sunrise over the lake on 8 May 2023.",
    "ok",
    "A much longer sentence about camping trips, pottery classes, adoption agencies and the books "
    "someone read last summer, long enough to make the batch pad every shorter text.",
]


def make(tmp_path: Path, **options: object) -> SentenceTransformerEmbedder:
    opts = SentenceTransformerEmbedder.Options.model_validate({"onnx_cache_dir": str(tmp_path / "onnx"), **options})
    return SentenceTransformerEmbedder(opts, ProviderContext(data_dir=tmp_path))


def prepared(embedder: SentenceTransformerEmbedder) -> SentenceTransformerEmbedder:
    """``embedder`` once its background preparation (the cache's fused graph) has finished."""
    if embedder._onnx is not None and embedder._onnx.preparing is not None:
        embedder._onnx.preparing.join(timeout=300)
    return embedder


def _operators(graph: Path) -> set[str]:
    import onnx

    return {node.op_type for node in onnx.load(str(graph)).graph.node}


@pytest.fixture(scope="module")
def torch_embedder(tmp_path_factory: pytest.TempPathFactory) -> SentenceTransformerEmbedder:
    return make(tmp_path_factory.mktemp("torch"), backend="torch")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory whose ``onnx`` cache holds the float export, made once for the tests that
    only use it (the export's own tests, caching and the fusion check, make theirs)."""
    directory = tmp_path_factory.mktemp("exported")
    prepared(make(directory))
    return directory


def test_onnx_vectors_match_torch_for_batches_and_single_queries(
    exported: Path, torch_embedder: SentenceTransformerEmbedder
) -> None:
    onnx = make(exported)
    assert onnx.describe().endswith("(onnx)") and torch_embedder.describe().endswith("(torch)")
    # The cached graph runs fused kernels: one Attention per layer instead of the exported
    # matmul/softmax/reshape chains (and the vectors below are still torch's).
    assert onnx._onnx is not None
    assert {"Attention", "SkipLayerNormalization", "EmbedLayerNormalization"} <= _operators(onnx._onnx.graph)
    assert onnx.dimension == torch_embedder.dimension == 384
    expected = torch_embedder.embed(TEXTS)
    batched = onnx.embed(TEXTS)
    single = np.vstack([onnx.embed([text], "query") for text in TEXTS])
    for got in (batched, single):
        assert got.shape == expected.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, expected, atol=1e-5)
        np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # Small batches give the same vectors as one big one (padding does not leak into the mean).
    np.testing.assert_allclose(make(exported, batch_size=1).embed(TEXTS), batched, atol=1e-5)
    assert onnx.embed([]).shape == (0, 384)


def test_a_fusion_that_changes_the_vectors_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torch_embedder: SentenceTransformerEmbedder
) -> None:
    from memorist_sentence_transformers import fusion

    monkeypatch.setattr(fusion, "TOLERANCE", -1.0)  # any difference at all, even none, is too much
    prepared(make(tmp_path))
    plain = make(tmp_path)  # the cache holds the plain graph: no second preparation
    assert plain._onnx is not None and plain._onnx.preparing is None
    assert "Attention" not in _operators(plain._onnx.graph)
    assert not list((tmp_path / "onnx").glob("*.tmp"))  # no temporary left behind
    np.testing.assert_allclose(plain.embed(TEXTS), torch_embedder.embed(TEXTS), atol=1e-5)


def test_export_is_cached_and_reused(tmp_path: Path) -> None:
    # A graph another install exported, whose model directory has since been deleted.
    cache = tmp_path / "onnx"
    cache.mkdir()
    (cache / "model-0123456789abcdef.onnx").write_bytes(b"an old export")
    (cache / "model-0123456789abcdef.source.json").write_text('{"model_path": "/gone/venv/model", "weights": []}')
    prepared(make(tmp_path))
    exported = list((tmp_path / "onnx").glob("*.onnx"))
    assert len(exported) == 1 and not list((tmp_path / "onnx").glob("*.tmp"))  # the stale one pruned
    assert exported[0].with_name(f"{exported[0].stem}.source.json").exists()
    stamp = exported[0].stat().st_mtime_ns
    again = make(tmp_path)
    assert again.describe().endswith("(onnx)")
    assert exported[0].stat().st_mtime_ns == stamp
    assert list((tmp_path / "onnx").glob("*.onnx")) == exported


def test_a_first_use_embeds_at_once_and_fuses_for_the_next_start(
    tmp_path: Path, torch_embedder: SentenceTransformerEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing cached: the graph assembled from the weights answers at once (plain operators), one
    line says what is prepared and how long it takes, and the next start finds the fused graph."""
    with caplog.at_level(logging.WARNING):
        first = make(tmp_path)
    assert first._onnx is not None and first._onnx.preparing is not None
    assert "Attention" not in _operators(first._onnx.graph) and "Softmax" in _operators(first._onnx.graph)
    announced = [r.getMessage() for r in caplog.records if "first use of all-MiniLM-L6-v2" in r.getMessage()]
    assert len(announced) == 1 and "in the background" in announced[0] and "~5 s" in announced[0]
    expected = torch_embedder.embed(TEXTS)
    np.testing.assert_allclose(first.embed(TEXTS), expected, atol=1e-5)
    prepared(first)
    second = make(tmp_path)
    assert second._onnx is not None and second._onnx.preparing is None
    assert {"Attention", "SkipLayerNormalization", "EmbedLayerNormalization"} <= _operators(second._onnx.graph)
    np.testing.assert_allclose(second.embed(TEXTS), expected, atol=1e-5)
    assert sorted(p.suffix for p in (tmp_path / "onnx").iterdir()) == [".json", ".onnx"]


def test_a_start_after_an_unfinished_preparation_finds_the_plain_graph_and_fuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short-lived first process (a ``Memory()`` script) ends before its background fusion: the
    next start still finds a graph in the cache (no second assembly) and fuses it."""
    from memorist_sentence_transformers import bert_graph, graph_preparation

    with monkeypatch.context() as patch:
        patch.setattr(graph_preparation, "fuse_in_background", lambda *args, **kwargs: None)
        short_lived = make(tmp_path)
    assert short_lived._onnx is not None and short_lived._onnx.graph.name.endswith("-plain.onnx")
    vectors = short_lived.embed(TEXTS)

    def no_second_assembly(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("assembled again")

    monkeypatch.setattr(bert_graph, "build_bert_graph", no_second_assembly)
    monkeypatch.setattr(graph_preparation, "build_bert_graph", no_second_assembly)
    later = prepared(make(tmp_path))
    assert later._onnx is not None and later._onnx.graph == short_lived._onnx.graph
    np.testing.assert_allclose(later.embed(TEXTS), vectors, atol=1e-6)
    names = sorted(p.name for p in (tmp_path / "onnx").iterdir())
    assert len(names) == 2 and not any("-plain" in name for name in names), names
    assert "Attention" in _operators(make(tmp_path)._onnx.graph)  # type: ignore[union-attr]


@pytest.mark.process  # starts another Python process
def test_the_default_model_needs_no_torch(tmp_path: Path) -> None:
    """A lean install (no torch, no sentence-transformers, no transformers) embeds with the packaged
    MiniLM on a fresh cache, and its vectors are sentence-transformers' own (cosine >= 0.9999)."""
    import subprocess

    code = (
        "import sys, json\n"
        "for name in ('torch', 'sentence_transformers', 'transformers'):\n"
        "    sys.modules[name] = None  # importing it fails, as in an install without the torch extra\n"
        "from pathlib import Path\n"
        "from memorist.plugin.contracts import ProviderContext\n"
        "from memorist_sentence_transformers.embedder import SentenceTransformerEmbedder as E\n"
        f"options = E.Options(onnx_cache_dir={str(tmp_path / 'onnx')!r})\n"
        f"e = E(options, ProviderContext(data_dir=Path({str(tmp_path)!r})))\n"
        f"print(json.dumps(e.embed({TEXTS!r}).tolist()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    import json

    from memorist.plugin_api import resolve_model_path
    from sentence_transformers import SentenceTransformer

    lean = np.asarray(json.loads(done.stdout), dtype=np.float32)
    reference = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2", "model"), device="cpu").encode(
        TEXTS, normalize_embeddings=True
    )
    assert (lean * reference).sum(axis=1).min() >= 0.9999


def test_a_model_outside_the_recipe_without_torch_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model the builder does not know (here: a module list with a Dense layer) needs PyTorch's
    exporter; without the torch extra that is one line naming the extra."""
    from memorist.errors import ConfigurationError
    from memorist.plugin_api import resolve_model_path

    model = tmp_path / "model"
    shutil.copytree(resolve_model_path("all-MiniLM-L6-v2", "model"), model)
    modules = '[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},'
    modules += '{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},'
    modules += '{"idx":2,"name":"2","path":"2_Dense","type":"sentence_transformers.models.Dense"}]'
    (model / "modules.json").write_text(modules)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    hint = r"needs PyTorch here .*pip install -c constraints.txt 'memorist\[torch\]'"
    with pytest.raises(ConfigurationError, match=hint):
        make(tmp_path, model=str(model))


def test_without_onnx_runtime_the_embedder_falls_back_to_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if not installed
    with caplog.at_level(logging.WARNING):
        embedder = make(tmp_path)
    assert embedder.describe().endswith("(torch)")
    assert "using PyTorch" in caplog.text
    assert embedder.embed(["still works"]).shape == (1, 384)


def test_spinning_threads_are_a_setting_that_changes_no_vector(exported: Path) -> None:
    spinning, resting = make(exported, spin=True), make(exported)
    assert spinning._onnx is not None and resting._onnx is not None
    assert spinning._onnx.spins and not resting._onnx.spins  # as ONNX Runtime holds the session's options
    np.testing.assert_allclose(spinning.embed(TEXTS), resting.embed(TEXTS), atol=1e-6)


def test_int8_runs_a_cached_quantized_copy_whose_vectors_still_retrieve(tmp_path: Path, exported: Path) -> None:
    shutil.copytree(exported / "onnx", tmp_path / "onnx")  # the float graph it quantizes, as a cache holds it
    full = make(tmp_path)
    int8 = make(tmp_path, quantize="int8")
    assert int8.describe().endswith("(onnx, int8)") and full.describe().endswith("(onnx)")
    assert int8._onnx is not None and int8._onnx.graph.name.endswith("-int8pc.onnx")
    assert int8.dimension == full.dimension == 384
    exact, approximate = full.embed(TEXTS), int8.embed(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(approximate, axis=1), 1.0, atol=1e-5)
    cosines = (exact * approximate).sum(axis=1)
    assert np.abs(exact - approximate).max() > 1e-3  # really another graph...
    # ...giving nearly the same directions: each weight matrix is scaled per output channel
    # (0.97-0.99 here); one scale per matrix gave 0.87 for "ok" and a mean of ~0.95.
    assert cosines.min() > 0.95 and cosines.mean() > 0.98
    documents = [
        "Caroline went to an LGBTQ support group and researched adoption agencies.",
        "Melanie painted a sunrise over the lake last summer.",
        "The family went camping in the mountains and roasted marshmallows.",
    ]
    queries = ["Which agencies did Caroline look into?", "What did Melanie paint?", "Where did they go camping?"]
    ranked = int8.embed(queries, "query") @ int8.embed(documents).T
    assert list(ranked.argmax(axis=1)) == [0, 1, 2]
    # Made once: a second embedder reuses the quantized file.
    stamp = int8._onnx.graph.stat().st_mtime_ns
    again = make(tmp_path, quantize="int8")
    assert again._onnx is not None and again._onnx.graph == int8._onnx.graph
    assert int8._onnx.graph.stat().st_mtime_ns == stamp
    assert len(list((tmp_path / "onnx").glob("*.onnx"))) == 2 and not list((tmp_path / "onnx").glob("*.tmp"))


def test_int8_needs_the_onnx_backend() -> None:
    with pytest.raises(ValidationError, match="backend 'onnx'"):
        SentenceTransformerEmbedder.Options.model_validate({"quantize": "int8", "backend": "torch"})
    with pytest.raises(ValidationError, match="quantize"):
        SentenceTransformerEmbedder.Options.model_validate({"quantize": "int4"})


def test_a_call_is_cut_into_batches_of_similar_token_counts(exported: Path) -> None:
    """Texts of 2 to 60 tokens in one call: every batch pads little, and each text still gets
    the vector it gets alone."""
    from memorist_sentence_transformers import onnx_runtime

    onnx = make(exported, batch_size=4)
    assert onnx._onnx is not None
    texts = [" ".join(["word"] * n) for n in (50, 1, 9, 10, 48, 2, 11, 52, 1, 47, 10, 3)]
    widths: list[tuple[int, int]] = []  # (padded tokens, real tokens) of each run
    real_run = onnx._onnx._run

    def counting_run(encodings: Sequence[Any]) -> np.ndarray:
        widths.append((len(encodings) * max(len(e.ids) for e in encodings), sum(len(e.ids) for e in encodings)))
        return real_run(encodings)

    onnx._onnx._run = counting_run  # type: ignore[method-assign]
    together = onnx.embed(texts)
    assert all(padded <= onnx_runtime.LENGTH_SLACK * real for padded, real in widths)
    assert len(widths) <= 6  # [1, 1, 2, 3], [9, 10, 10, 11], [47, 48, 50, 52]: 3 batches (+ slack)
    onnx._onnx._run = real_run  # type: ignore[method-assign]
    alone = np.vstack([onnx.embed([text]) for text in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


class TestSentenceTransformersMeetsTheEmbedderContract(EmbedderContract):
    """The built-in embedder against the published contract (its graph from the shared cache)."""

    @pytest.fixture
    def embedder(self, exported: Path) -> SentenceTransformerEmbedder:
        return make(exported)


def test_a_read_only_graph_cache_still_embeds(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A cache directory that cannot be written (an image's, another user's): the graph is assembled
    into a private directory for this process, with one warning, instead of waiting for a lock."""
    import os

    cache = tmp_path / "onnx"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        if os.access(cache, os.W_OK):  # root ignores the mode: make the directory a file instead
            cache.chmod(0o700)
            cache.rmdir()
            cache.write_text("not a directory")
        with caplog.at_level(logging.WARNING):
            embedder = prepared(make(tmp_path))
        assert embedder.describe().endswith("(onnx)")
        assert embedder.embed(["still works"]).shape == (1, 384)
        assert any("not writable" in r.getMessage() for r in caplog.records), caplog.text
    finally:
        if cache.is_dir():
            cache.chmod(0o700)
