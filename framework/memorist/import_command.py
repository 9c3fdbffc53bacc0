"""``memorist import FILE...``: bulk-load conversations (JSONL or LoCoMo JSON) into a store or a server.

Every file is read and every add checked before the first is stored, so a bad
line stops the import with its file and line number and nothing stored
(``--skip-invalid`` leaves such lines out and goes on). The adds are then
stored in batches of ``--batch-size`` through the engine's batch path
(:meth:`memorist.engine.memory.Memory.add_many`, via the operations layer),
or through ``POST /memories/batch`` of a running server with ``--server``.

Re-running an interrupted import stores nothing twice: an add whose text a
memory of the same scope already holds is merged into it, not stored again
(the duplicate rule, docs/memory-rules.md); the summary counts those as merged.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from .console import config_option, data_dir_option, fail, writable_settings
from .importer import BadLine, Item, Sink, Tally


def read_sources(paths: Sequence[str], skip_invalid: bool, tally: Tally, infer: bool = True) -> list[Item]:
    """Every add of every file (``-`` is stdin); exits at the first bad line unless skipping."""
    from .importer import read_items

    items: list[Item] = []
    for path in paths:
        if path == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            try:
                text, name = Path(path).read_text(encoding="utf-8"), path
            except (OSError, UnicodeDecodeError) as exc:
                fail(f"{path}: cannot read it ({exc})")
        jsonl = True if name.endswith(".jsonl") else None
        for found in read_items(text, name, jsonl=jsonl, infer=infer):
            if isinstance(found, BadLine):
                reject(found, skip_invalid, tally)
            else:
                items.append(found)
    return items


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
) -> tuple[Sink, Callable[[list[Item]], list[Item]], Callable[[], None]]:
    """Adds stored in this process, into ``--data-dir``/``--config``'s store: the sink, the
    up-front check of every item (bad ones stop the import or are left out), and ``close``."""
    from .api import Memory as Engine
    from .errors import MemoristError
    from .operations import Caller, Operations
    from .operations.batch import validated
    from .operations.results import ADDED_SELFHOSTED

    settings, plugins = writable_settings(config)
    engine = Engine.from_settings(settings, plugins)
    ops = Operations(lambda: engine)
    caller = Caller(actor="memorist import")

    def check(items: list[Item]) -> list[Item]:
        good = []
        for item in items:
            try:
                validated(engine, caller, [item.add])
            except MemoristError as exc:
                reject(BadLine(item.where, exc.message.removeprefix("items[0].")), skip_invalid, tally)
                continue
            good.append(item)
        return good

    def store(batch: Sequence[Item]) -> list[dict[str, Any]]:
        return [r.wire(ADDED_SELFHOSTED) for r in ops.add_batch(caller, [item.add for item in batch])]

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
    tally = Tally()
    items = read_sources(files, skip_invalid, tally, infer)
    if server:
        from .import_http import http_sink

        if not api_key:
            fail("--api-key: the server's API key is required with --server (or set MEMORIST_API_KEY)")
        store = http_sink(server, str(api_key), lambda bad: reject(bad, skip_invalid, tally))
        close: Callable[[], None] = lambda: None  # noqa: E731
    else:
        store, check, close = local_sink(config, skip_invalid, tally)
        try:
            items = check(items)
        except BaseException:  # a bad line exits (status 2): release the store first
            close()
            raise
    started = time.perf_counter()
    try:
        with progress(len(items), quiet) as advance:
            for start in range(0, len(items), batch_size):
                batch = items[start : start + batch_size]
                for answer in store(batch):
                    tally.count(answer)
                advance(len(batch))
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
