"""A model's first use: its ONNX graph assembled from the weights now, fused in the background.

Why: a fresh install has no graph in the cache. Assembling the plain graph
(:mod:`.bert_graph`) takes about a second, so the first process embeds at once with it;
fusing it into ONNX Runtime's transformer kernels (:mod:`.fusion`, ~5 s on two busy
cores, ~15% faster embeddings, the same vectors) would hold ``/health`` back, so it
runs in a daemon thread that writes the fused graph into the cache for the next start.
The plain graph goes into the cache at once (``<key>-plain.onnx``), so every later start
is a cache hit even when the first process ended before its fusion did (a ``Memory()``
script, a CLI command): a start that finds only the plain graph runs it and fuses in the
background again. The fused graph then lands as ``<key>.onnx`` and the plain one goes;
when fusion is refused (an architecture the optimizer does not know, vectors that moved)
the plain graph itself becomes ``<key>.onnx``.

Processes starting together (gunicorn's workers) assemble once: the holder of a lock
file assembles while the others wait for its file (two assemblies at once on two cores
took each twice as long, and ``/health`` waits for the first worker). One of them, the
holder of another lock, fuses, in a thread at the lowest CPU priority (Linux), so that it
does not slow the other workers' starts.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import graph_cache
from .bert_graph import build_bert_graph
from .fusion import fuse_transformer

log = logging.getLogger(__name__)

#: A fusion lock older than this is taken to belong to a process that died.
LOCK_SECONDS = 600
#: What the announcement says the background step takes (two busy cores; a second on a laptop).
FUSION_SECONDS = 5
#: What the announcement says assembling the plain graph takes (0.5-2 s measured on two busy cores).
ASSEMBLY_SECONDS = 2
#: The fusion waits this long first: a server's other workers are still starting then, and on two
#: cores a fusion beside them (even at the lowest priority) delayed their first /health.
FUSION_DELAY_SECONDS = 5.0


def plain_path(graph: Path) -> Path:
    """Where the cache keeps ``graph``'s plain (unfused) form until the fused one replaces it."""
    return graph.with_name(f"{graph.stem}-plain.onnx")


def assemble_once(
    model_root: Path, graph: Path, inputs: tuple[str, ...], announce: Callable[[], None] | None = None
) -> tuple[Path, bool]:
    """``graph``'s plain form in the cache, assembled here or by the process that holds the lock
    (then waited for), or the fused ``graph`` itself if it appeared meanwhile; and whether this
    process assembled it. ``announce`` runs once, in the assembling process, before it starts:
    a wait the user sees is said before it begins, not after."""
    graph.parent.mkdir(parents=True, exist_ok=True)
    lock = graph.with_name(f"{graph.stem}.assembly.lock.tmp")
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        # Looked for before the lock is tried: the assembler releases it once its file is in place.
        for ready in (graph, plain_path(graph)):
            if ready.exists():
                return ready, False
        if _take(lock):
            break
        if time.monotonic() > deadline:
            break  # a lock left by a process that died: assemble here
        time.sleep(0.05)
    try:
        for ready in (graph, plain_path(graph)):  # landed between the look and the lock
            if ready.exists():
                return ready, False
        if announce is not None:
            announce()
        return write_plain_graph(model_root, graph, inputs), True
    finally:
        lock.unlink(missing_ok=True)


def write_plain_graph(model_root: Path, graph: Path, inputs: tuple[str, ...]) -> Path:
    """Assemble the model's graph into the cache as ``graph``'s plain form (atomically); its path."""
    import onnx

    model = build_bert_graph(model_root, inputs)
    graph.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=graph.stem, suffix=".plain.tmp", dir=graph.parent)
    os.close(fd)
    try:
        onnx.save(model, name)
        os.replace(name, plain_path(graph))
    finally:
        Path(name).unlink(missing_ok=True)
    return plain_path(graph)


def fuse_into_cache(plain: Path, graph: Path, model_root: Path, inputs: tuple[str, ...]) -> Path:
    """Make ``graph`` from ``plain``: its fused form if that gives the same vectors, else ``plain`` itself.

    Returns ``graph``; ``plain`` is gone afterwards. Safe against another process doing the same
    at once (every file lands by an atomic rename, and a ``plain`` that another process's fusion
    removed first leaves that process's ``graph``, which is returned).
    """
    fd, name = tempfile.mkstemp(prefix=graph.stem, suffix=".fused.tmp", dir=graph.parent)
    os.close(fd)
    fused = Path(name)
    try:
        heads, hidden = _heads_and_hidden(model_root)
        try:
            if fuse_transformer(plain, fused, _probe(model_root, inputs), heads, hidden):
                os.replace(fused, graph)
                plain.unlink(missing_ok=True)
            else:
                os.replace(plain, graph)
        except Exception:
            if plain.exists() or not graph.exists():
                raise
            return graph  # made by another process meanwhile
        graph_cache.record_source(graph, str(model_root))
        graph_cache.prune(graph.parent, keep=graph)
    finally:
        fused.unlink(missing_ok=True)
    return graph


def fuse_in_background(
    plain: Path, graph: Path, model_root: Path, inputs: tuple[str, ...], done: Callable[[], None] | None = None
) -> threading.Thread | None:
    """Start :func:`fuse_into_cache` in a daemon thread unless another process holds the lock
    (it writes ``graph``); the thread, or None."""
    lock = graph.with_name(f"{graph.stem}.lock.tmp")
    try:
        if not _take(lock):
            return None
    except OSError:  # a cache that cannot be written: the plain graph serves
        return None

    def run() -> None:
        time.sleep(FUSION_DELAY_SECONDS)
        if sys.platform == "linux":  # a thread is a task there: only this one (and the threads it starts) yields
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
            except OSError:
                pass
        started = time.monotonic()
        try:
            fuse_into_cache(plain, graph, model_root, inputs)
            seconds = time.monotonic() - started
            log.info("embedder: %s prepared in %.1f s (used from the next start on)", graph.name, seconds)
        except Exception as exc:  # noqa: BLE001 - the running process embeds with the plain graph regardless
            log.warning("embedder: could not prepare %s (%s); the next start tries again", graph.name, exc)
        finally:
            lock.unlink(missing_ok=True)
            if done is not None:
                done()

    thread = threading.Thread(target=run, name="memorist-graph-fusion", daemon=True)
    thread.start()
    return thread


def _take(lock: Path) -> bool:
    """Create ``lock``: True if this process holds it now, False while another holds it. An
    unwritable directory raises ``OSError`` (waiting for a lock there would wait for nothing)."""
    for _ in range(2):
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            return True
        except FileExistsError:
            try:
                if time.time() - lock.stat().st_mtime < LOCK_SECONDS:
                    return False
                lock.unlink()  # its process died mid-fusion
            except FileNotFoundError:
                continue
    return False


def _heads_and_hidden(model_root: Path) -> tuple[int, int]:
    import json

    config = json.loads((model_root / "config.json").read_text())
    return int(config.get("num_attention_heads", 0)), int(config.get("hidden_size", 0))


def _probe(model_root: Path, inputs: tuple[str, ...]) -> dict[str, np.ndarray]:
    """A padded batch of three texts, as the tokenizer makes it: what fusion is checked on."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_root / "tokenizer.json"))
    tokenizer.enable_padding()
    encodings = tokenizer.encode_batch(
        ["an example sentence to trace", "a second one", "and a third, longer than the others, to pad the rest"]
    )
    columns = {
        "input_ids": [e.ids for e in encodings],
        "attention_mask": [e.attention_mask for e in encodings],
        "token_type_ids": [e.type_ids for e in encodings],
    }
    return {name: np.asarray(columns[name], dtype=np.int64) for name in inputs}
