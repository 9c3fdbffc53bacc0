"""The default embedder: ONNX Runtime and PyTorch give the same vectors; the export is cached."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest
from memorist.providers import ProviderContext
from memorist_sentence_transformers.embedder import SentenceTransformerEmbedder

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


@pytest.fixture(scope="module")
def torch_embedder(tmp_path_factory: pytest.TempPathFactory) -> SentenceTransformerEmbedder:
    return make(tmp_path_factory.mktemp("torch"), backend="torch")


def test_onnx_vectors_match_torch_for_batches_and_single_queries(
    tmp_path: Path, torch_embedder: SentenceTransformerEmbedder
) -> None:
    onnx = make(tmp_path)
    assert onnx.describe().endswith("(onnx)") and torch_embedder.describe().endswith("(torch)")
    assert onnx.dimension == torch_embedder.dimension == 384
    expected = torch_embedder.embed(TEXTS)
    batched = onnx.embed(TEXTS)
    single = np.vstack([onnx.embed([text], "query") for text in TEXTS])
    for got in (batched, single):
        assert got.shape == expected.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, expected, atol=1e-5)
        np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # Small batches give the same vectors as one big one (padding does not leak into the mean).
    np.testing.assert_allclose(make(tmp_path, batch_size=1).embed(TEXTS), batched, atol=1e-5)
    assert onnx.embed([]).shape == (0, 384)


def test_export_is_cached_and_reused(tmp_path: Path) -> None:
    make(tmp_path)
    exported = list((tmp_path / "onnx").glob("*.onnx"))
    assert len(exported) == 1 and not list((tmp_path / "onnx").glob("*.tmp"))
    stamp = exported[0].stat().st_mtime_ns
    again = make(tmp_path)
    assert again.describe().endswith("(onnx)")
    assert exported[0].stat().st_mtime_ns == stamp
    assert list((tmp_path / "onnx").glob("*.onnx")) == exported


def test_without_onnx_runtime_the_embedder_falls_back_to_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails as if not installed
    with caplog.at_level(logging.WARNING):
        embedder = make(tmp_path)
    assert embedder.describe().endswith("(torch)")
    assert "using PyTorch" in caplog.text
    assert embedder.embed(["still works"]).shape == (1, 384)


def test_spinning_threads_are_a_setting_that_changes_no_vector(tmp_path: Path) -> None:
    spinning, resting = make(tmp_path, spin=True), make(tmp_path)
    assert spinning._onnx is not None and resting._onnx is not None
    assert spinning._onnx.spins and not resting._onnx.spins  # as ONNX Runtime holds the session's options
    np.testing.assert_allclose(spinning.embed(TEXTS), resting.embed(TEXTS), atol=1e-6)
