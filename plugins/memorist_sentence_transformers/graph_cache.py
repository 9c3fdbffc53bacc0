"""Keeping the directory of exported graphs from growing without end.

Why: a graph's cache key holds the model's path and its weights' size and mtime, so
every new virtualenv, reinstall or upgrade of the model package exports a new ~90 MB
graph (and its int8 copy) beside the old ones, which nothing reads again. A machine
that had seen a few dozen installs held 134 graphs, 11 GB.

So each export records where its graph came from in a small sidecar
(``<graph>.source.json``: the model's path and its weights' signature), and then prunes
the cache: a graph whose model is gone, or whose weights have changed since its export,
is removed with its int8 copies; so is any graph (a sidecar-less one from before the
sidecars too) that no process has opened for :data:`UNUSED_DAYS` (loading a graph
touches its sidecar, or writes one), an int8 copy whose graph is gone or whose form was
superseded (``-int8``: one scale per matrix), and an export's temporary file left by a
crash a day ago. A removed graph costs at most one export again (~30 s), never a wrong vector:
the key still decides which graph a model runs. The comparison leaves the torch version
out, so two virtualenvs with different torch versions over one model directory do not
prune each other's graphs.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)

#: A graph no process has loaded for this many days is removed at the next export.
UNUSED_DAYS = 30
_SIDECAR = ".source.json"


def weights_signature(model_root: Path) -> list[str]:
    """The model's weight files as ``name:size:mtime_ns``: what an export's key depends on."""
    if not model_root.is_dir():
        return []
    weights = sorted(model_root.glob("*.safetensors")) + sorted(model_root.glob("*.bin"))
    return [f"{w.name}:{w.stat().st_size}:{w.stat().st_mtime_ns}" for w in weights]


def record_source(graph: Path, model_path: str) -> None:
    """Write ``graph``'s sidecar (atomically: a pruning process never reads half of one)."""
    root = Path(model_path)
    source = {"model_path": str(root.resolve()) if root.exists() else model_path, "weights": weights_signature(root)}
    sidecar = _sidecar(graph)
    partial = sidecar.with_name(f"{sidecar.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(source))
    os.replace(partial, sidecar)


def mark_used(graph: Path, model_path: str) -> None:
    """Mark ``graph`` used now: touch its sidecar, or write it for a graph exported before
    sidecars (best effort: a read-only cache stays as it is). The graph's own mtime stays
    its export's."""
    try:
        os.utime(_sidecar(graph))
    except FileNotFoundError:
        try:
            record_source(graph, model_path)
        except OSError:
            pass
    except OSError:
        pass


def prune(cache_dir: Path, keep: Path, now: float | None = None) -> list[Path]:
    """Remove the stale files of ``cache_dir`` (see the module docstring) but ``keep``; the removed files."""
    now = time.time() if now is None else now
    doomed: list[Path] = []
    for graph in sorted(cache_dir.glob("*.onnx")):
        if _is_derived(graph):
            base = graph.with_name(graph.name.split("-int8", 1)[0] + ".onnx")
            if not base.exists() or graph.name == f"{keep.stem}-int8.onnx":  # one scale per matrix: superseded
                doomed.append(graph)
        elif graph != keep and _stale(graph, now):
            doomed += [graph, *_derived(graph), _sidecar(graph)]
    doomed += [tmp for tmp in cache_dir.glob("*.tmp") if _age(tmp, now) > 86400]
    removed = [path for path in dict.fromkeys(doomed) if _remove(path)]
    if removed:
        log.info("removed %d stale file(s) from the ONNX graph cache %s", len(removed), cache_dir)
    return removed


def _remove(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as error:  # another user's file, a read-only cache: leave it
        log.warning("could not remove stale graph file %s: %s", path, error)
        return False
    return True


def _age(path: Path, now: float) -> float:
    try:
        return now - path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def _stale(graph: Path, now: float) -> bool:
    sidecar = _sidecar(graph)
    last_used = sidecar if sidecar.exists() else graph
    if _age(last_used, now) > UNUSED_DAYS * 86400:
        return True
    try:
        source = json.loads(sidecar.read_text())
    except (OSError, ValueError):
        return False  # exported before sidecars, or just now by another process: age decides
    if not isinstance(source, dict):
        return False
    root = Path(str(source.get("model_path", "")))
    return not root.exists() or weights_signature(root) != source.get("weights")


def _sidecar(graph: Path) -> Path:
    return graph.with_name(f"{graph.stem}{_SIDECAR}")


def _derived(graph: Path) -> list[Path]:
    """``graph``'s quantized copies (``<stem>-int8.onnx`` of older versions, ``<stem>-int8pc.onnx``)."""
    return sorted(graph.parent.glob(f"{graph.stem}-int8*.onnx"))


def _is_derived(graph: Path) -> bool:
    return "-int8" in graph.stem
