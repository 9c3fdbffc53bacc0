"""``memorist import FILE...``: bulk-load conversations (JSONL or LoCoMo JSON) into a store or a server.

Every file is read and every add checked before the first is stored, so a bad
line stops the import with its file and line number and nothing stored
(``--skip-invalid`` leaves such lines out and goes on). The files are read twice,
once to check and once to store, a line at a time (stdin is copied to a
temporary file first): an import's memory does not grow with its files. The adds are then
stored in batches of ``--batch-size`` through the engine's batch path
(:meth:`memorist.engine.memory.MemoryEngine.add_many`, via the operations layer),
or through ``POST /memories/batch`` of a running server with ``--server``.

Re-running an interrupted import stores nothing twice: an add whose text a
memory of the same scope already holds is merged into it, not stored again
(the duplicate rule, docs/memory-rules.md); the summary counts those as merged.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from ..cli.console import config_option, data_dir_option, fail, writable_settings
from .importer import BadLine, Item, Sink, Tally


@contextmanager
def opened(paths: Sequence[str]) -> Iterator[list[tuple[Path, str]]]:
    """Each file as ``(path, name)``; stdin (``-``) is copied to a temporary file first, so the
    adds can be read twice (checked, then stored) without holding them in memory."""
    with tempfile.TemporaryDirectory(prefix="memorist-import-") as spool:
        sources: list[tuple[Path, str]] = []
        for path in paths:
            if path == "-":
                copy = Path(spool) / f"stdin-{len(sources)}"
                with copy.open("w", encoding="utf-8", errors="surrogateescape") as handle:
                    shutil.copyfileobj(sys.stdin, handle)
                sources.append((copy, "<stdin>"))
            else:
                sources.append((Path(path), path))
        yield sources


def read_sources(sources: Sequence[tuple[Path, str]], infer: bool = True) -> Iterator[Item | BadLine]:
    """Every add (or bad line) of every file, streamed; exits when a file cannot be read."""
    from .importer import read_file

    for path, name in sources:
        jsonl = True if name.endswith(".jsonl") else None
        try:
            yield from read_file(path, name, jsonl=jsonl, infer=infer)
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{name}: cannot read it ({exc})")


def reject(bad: Exception, skip_invalid: bool, tally: Tally) -> None:
    if not skip_invalid:
        fail(f"{bad} (nothing was imported; fix the line or pass --skip-invalid)")
    tally.invalid.append(str(bad))


@contextmanager
def progress(total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr when it is a terminal (and not ``--quiet``); otherwise nothing."""
    if quiet or not sys.stderr.isatty():
        yield lambda _n: None
        return
    with click.progressbar(length=total, label="importing", file=sys.stderr, show_pos=True) as bar:
        yield bar.update


def local_sink(
    config: str | None, skip_invalid: bool, tally: Tally
) -> tuple[Sink, Callable[[Item], bool], Callable[[], None]]:
    """Adds stored in this process, into ``--data-dir``/``--config``'s store: the sink, the
    up-front check of one item (a bad one stops the import or is left out: False), and ``close``.

    Both go through the operations layer the kernel gives in-process doors
    (:func:`memorist.kernel.core.in_process_operations`): each line is held to the
    operator's ``limits`` (one add's characters and messages), checked as the store
    checks it, before anything is stored.
    """
    from ..errors import MemoristError
    from ..kernel.core import in_process_operations
    from ..operations import Caller
    from ..operations.results import AddedMemory
    from ..python.engine import Engine

    settings, plugins = writable_settings(config)
    engine = Engine.from_settings(settings, plugins)
    ops = in_process_operations(lambda: engine, settings)
    caller = Caller(actor="memorist import")

    def check(item: Item) -> bool:
        try:
            ops.check_batch(caller, [item.add])
        except MemoristError as exc:
            reject(BadLine(item.where, exc.message.removeprefix("items[0].")), skip_invalid, tally)
            return False
        return True

    def store(batch: Sequence[Item]) -> list[dict[str, Any]]:
        return [r.wire(AddedMemory) for r in ops.add_batch(caller, [item.add for item in batch])]

    return store, check, engine.close


@click.command("import")
@click.argument("files", nargs=-1, required=True)
@config_option
@data_dir_option
@click.option("--batch-size", default=100, show_default=True, type=click.IntRange(1, 1000), help="Adds per batch.")
@click.option("--skip-invalid", is_flag=True, help="Leave out bad lines (listed at the end) instead of stopping.")
@click.option(
    "--infer/--no-infer",
    default=True,
    show_default=True,
    help="Extract facts (default) or store each add verbatim; a JSONL line's own 'infer' wins.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar (there is none when stderr is not a terminal).")
@click.option("--server", help="Import through POST /memories/batch of a running server (e.g. http://localhost:8000).")
@click.option("--api-key", envvar="MEMORIST_API_KEY", help="The server's API key (or $MEMORIST_API_KEY).")
def import_command(
    files: tuple[str, ...],
    config: str | None,
    batch_size: int,
    skip_invalid: bool,
    infer: bool,
    quiet: bool,
    server: str | None,
    api_key: str | None,
) -> None:
    """Import conversations from FILE... (JSONL, one add per line, or LoCoMo JSON; '-' reads stdin).

    Every line is checked before anything is stored. Re-running an interrupted import
    stores nothing twice: repeated adds are merged into the memories they repeat.
    """
    from ..engine.add_request import MAX_BATCH_STORED_BYTES

    tally = Tally()
    check: Callable[[Item], bool] = lambda _item: True  # noqa: E731 (a server checks its own batches)
    close: Callable[[], None] = lambda: None  # noqa: E731
    if server:
        from .import_http import http_sink

        if not api_key:
            fail("--api-key: the server's API key is required with --server (or set MEMORIST_API_KEY)")
        store = http_sink(server, str(api_key), lambda bad: reject(bad, skip_invalid, tally))
    else:
        store, check, close = local_sink(config, skip_invalid, tally)
    started = time.perf_counter()
    try:
        with opened(files) as sources:
            # First pass: every add checked, none kept (a bad one exits here, before any is stored).
            left_out: set[int] = set()
            total = 0
            for index, found in enumerate(read_sources(sources, infer)):
                if isinstance(found, BadLine):
                    reject(found, skip_invalid, tally)
                    left_out.add(index)
                elif not check(found):
                    left_out.add(index)
                else:
                    total += 1
            # Second pass: the same adds read again and stored a batch at a time.
            with progress(total, quiet) as advance:
                batch: list[Item] = []
                size = 0
                for index, found in enumerate(read_sources(sources, infer)):
                    if index in left_out or isinstance(found, BadLine):
                        continue
                    cost = _stored_bytes(found)
                    if batch and size + cost > MAX_BATCH_STORED_BYTES:  # a batch is also bounded in bytes
                        _store(store, batch, tally, advance)
                        batch, size = [], 0
                    batch.append(found)
                    size += cost
                    if len(batch) == batch_size:
                        _store(store, batch, tally, advance)
                        batch, size = [], 0
                if batch:
                    _store(store, batch, tally, advance)
    finally:
        close()
    seconds = time.perf_counter() - started
    rate = tally.adds / seconds if seconds > 0 else 0.0
    for line in tally.invalid:
        click.echo(f"skipped invalid: {line}", err=True)
    click.echo(
        f"imported {tally.adds} adds from {len(files)} file{'s' if len(files) != 1 else ''} in {seconds:.1f} s "
        f"({rate:.0f} turns/s): {tally.stored} memories stored, {tally.merged} merged, {tally.skipped} skipped"
        + (f", {len(tally.invalid)} invalid lines left out" if tally.invalid else "")
        + (f" ({tally.queued} adds queued by the server and awaited)" if tally.queued else "")
    )


def _store(store: Sink, batch: list[Item], tally: Tally, advance: Callable[[int], None]) -> None:
    for answer in store(batch):
        tally.count(answer)
    advance(len(batch))


def _stored_bytes(item: Item) -> int:
    """What ``item`` may store (content plus metadata once per memory), as the batch limit counts it."""
    from ..engine.add_request import coerce_messages, possible_memories, stored_bytes

    messages = coerce_messages(item.add.messages)
    return stored_bytes(messages, item.add.metadata or {}, possible_memories(messages))
