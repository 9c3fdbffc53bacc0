"""The cache of exported embedding graphs drops what no install can load again, and only that."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest
from memorist_sentence_transformers import graph_cache

DAY = 86400.0


def model_dir(tmp_path: Path, name: str = "model") -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "model.safetensors").write_bytes(b"weights")
    return root


def graph(cache: Path, stem: str, model: Path | None, *copies: str) -> Path:
    """A graph file, its sidecar when it has a ``model``, and its quantized ``copies``."""
    cache.mkdir(exist_ok=True)
    path = cache / f"{stem}.onnx"
    path.write_bytes(b"graph")
    if model is not None:
        graph_cache.record_source(path, str(model))
    for suffix in copies:
        (cache / f"{stem}{suffix}.onnx").write_bytes(b"copy")
    return path


def names(cache: Path) -> set[str]:
    return {path.name for path in cache.iterdir()}


def test_a_graph_whose_model_is_gone_or_changed_goes_with_its_copies(tmp_path: Path) -> None:
    cache = tmp_path / "onnx"
    live, gone, changed = (model_dir(tmp_path, n) for n in ("live", "gone", "changed"))
    keep = graph(cache, "model-live", live, "-int8pc")
    graph(cache, "model-other-live", live)  # another install's graph of a model that is still there
    graph(cache, "model-gone", gone, "-int8", "-int8pc")
    graph(cache, "model-changed", changed, "-int8pc")
    for path in gone.iterdir():
        path.unlink()
    gone.rmdir()
    weights = changed / "model.safetensors"
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 10**9))  # reinstalled

    removed = graph_cache.prune(cache, keep=keep)

    assert {p.name for p in removed} == {
        "model-gone.onnx",
        "model-gone-int8.onnx",
        "model-gone-int8pc.onnx",
        "model-gone.source.json",
        "model-changed.onnx",
        "model-changed-int8pc.onnx",
        "model-changed.source.json",
    }
    assert names(cache) == {
        "model-live.onnx",
        "model-live-int8pc.onnx",
        "model-live.source.json",
        "model-other-live.onnx",
        "model-other-live.source.json",
    }


def test_unused_graphs_age_out_and_loading_one_marks_it_used(tmp_path: Path) -> None:
    cache = tmp_path / "onnx"
    live = model_dir(tmp_path)
    keep = graph(cache, "model-keep", live)
    recent_legacy = graph(cache, "model-legacy-recent", None)  # exported before sidecars
    old_legacy = graph(cache, "model-legacy-old", None, "-int8")
    idle = graph(cache, "model-idle", live)
    loaded = graph(cache, "model-loaded", live)
    month_ago = time.time() - 31 * DAY
    for path in (old_legacy, idle, loaded, cache / "model-idle.source.json", cache / "model-loaded.source.json"):
        os.utime(path, (month_ago, month_ago))
    exported_at = loaded.stat().st_mtime_ns

    graph_cache.mark_used(loaded, str(live))  # a process opened it today
    graph_cache.mark_used(recent_legacy, str(live))  # writes the sidecar it lacked
    removed = graph_cache.prune(cache, keep=keep)

    assert {p.name for p in removed} == {
        "model-legacy-old.onnx",
        "model-legacy-old-int8.onnx",
        "model-idle.onnx",
        "model-idle.source.json",
    }
    assert loaded.exists() and loaded.stat().st_mtime_ns == exported_at  # the graph itself untouched
    assert (cache / "model-legacy-recent.source.json").exists() and recent_legacy.exists()


def test_superseded_and_orphaned_copies_and_crashed_exports_go(tmp_path: Path) -> None:
    cache = tmp_path / "onnx"
    keep = graph(cache, "model-keep", model_dir(tmp_path), "-int8", "-int8pc")
    (cache / "model-vanished-int8pc.onnx").write_bytes(b"a copy whose graph was deleted")
    crashed, exporting = cache / "model-keep1234.plain.tmp", cache / "model-keep5678.fused.tmp"
    crashed.write_bytes(b"half")
    exporting.write_bytes(b"half")
    os.utime(crashed, (time.time() - 2 * DAY,) * 2)

    removed = graph_cache.prune(cache, keep=keep)

    assert {p.name for p in removed} == {"model-keep-int8.onnx", "model-vanished-int8pc.onnx", crashed.name}
    assert names(cache) == {"model-keep.onnx", "model-keep-int8pc.onnx", "model-keep.source.json", exporting.name}


def test_a_file_that_cannot_be_removed_is_left_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = tmp_path / "onnx"
    keep = graph(cache, "model-keep", model_dir(tmp_path))
    stale = graph(cache, "model-stale", tmp_path / "never-existed")
    (cache / "model-stale-int8pc.onnx").mkdir()  # something unlink cannot remove (root ignores modes)

    with caplog.at_level(logging.WARNING):
        removed = graph_cache.prune(cache, keep=keep)

    assert {p.name for p in removed} == {"model-stale.onnx", "model-stale.source.json"}
    assert not stale.exists() and (cache / "model-stale-int8pc.onnx").is_dir()
    assert "could not remove stale graph file" in caplog.text and "model-stale-int8pc.onnx" in caplog.text


def test_processes_starting_together_assemble_the_graph_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gunicorn's workers start together on an empty cache: one assembles (and announces it), the
    others wait for its file instead of assembling the same graph beside it on the same cores."""
    import threading
    import time

    from memorist.plugin_api import resolve_model_path
    from memorist_sentence_transformers import graph_preparation

    assembled: list[int] = []
    real = graph_preparation.write_plain_graph

    def counted(model_root: Path, graph: Path, inputs: tuple[str, ...]) -> Path:
        assembled.append(1)
        time.sleep(0.3)  # the others arrive while it works
        return real(model_root, graph, inputs)

    monkeypatch.setattr(graph_preparation, "write_plain_graph", counted)
    root = Path(resolve_model_path("all-MiniLM-L6-v2", "embedder.options.model"))
    graph = tmp_path / "model-0123456789abcdef.onnx"
    results: list[tuple[Path, bool]] = []
    workers = [
        threading.Thread(
            target=lambda: results.append(graph_preparation.assemble_once(root, graph, ("input_ids", "attention_mask")))
        )
        for _ in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=300)
    assert len(assembled) == 1
    assert sorted(here for _, here in results) == [False, False, True]
    assert {path for path, _ in results} == {graph_preparation.plain_path(graph)}
    assert not list(tmp_path.glob("*.tmp"))


def test_a_plain_graph_fused_away_by_another_process_opens_the_fused_one(tmp_path: Path) -> None:
    """A worker saw the plain graph, then another process's fusion replaced it before the worker
    opened it: the worker runs the fused graph instead of failing its start (which stopped
    gunicorn's master with every worker)."""
    from memorist.plugin_api import resolve_model_path
    from memorist_sentence_transformers import graph_preparation
    from memorist_sentence_transformers.onnx_runtime import OnnxSentenceEncoder, SessionTuning

    root = Path(resolve_model_path("all-MiniLM-L6-v2", "embedder.options.model"))
    graph = tmp_path / "model-0123456789abcdef.onnx"
    inputs = ("input_ids", "attention_mask", "token_type_ids")
    plain = graph_preparation.write_plain_graph(root, graph, inputs)
    os.replace(plain, graph)  # the other process's fusion landed and removed the plain file
    encoder = OnnxSentenceEncoder._from_plain(str(root), plain, graph, SessionTuning(threads=1))
    assert encoder.graph == graph and encoder.preparing is None
    assert encoder.dimension == 384
    # the int8 path fuses synchronously; a plain file already fused away returns the other's graph
    assert graph_preparation.fuse_into_cache(plain, graph, root, inputs) == graph
    assert not list(tmp_path.glob("*.tmp"))
