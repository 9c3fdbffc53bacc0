"""Keeping a LanceDB table fast to read while it is written: optimize and prune on a schedule.

LanceDB searches rows not yet covered by an index (FTS, scalar or vector) by
scanning them, and every write leaves a small file and a table version. So
every ``optimize_every`` writes the store runs ``Table.optimize()``, which folds
new rows into the indexes incrementally, compacts the small files and prunes
old versions; so does a write burst that stops short of that count, once writes
have been quiet for ``optimize_idle_seconds``.

Why prune versions within seconds: with ``read_consistency_interval=0`` each
read looks for the latest version by listing the version directory. With an
hour's versions kept (about 3,000 after ingesting one LoCoMo conversation set)
that listing added 6 ms to every query; a reader needs an old version only for
the milliseconds its query runs. After the idle optimize, one more pass
``keep_versions_seconds`` later prunes the versions that were still too young,
so a store that has gone quiet reads as fast as a freshly compacted one.

A prune never removes a version a running read still needs: how old a version may
be before it goes comes from :class:`.read_guard.ReadGuard`, at least
``keep_versions_seconds`` and longer while a read that began on an older version
runs.

Every worker of a server runs its own maintenance over the one table, so a
maintenance pass holds an exclusive ``flock`` on the table's directory, taken
without waiting: a process that finds it held skips its pass and looks again after
the next idle period. Two prunes at once made one list the versions the other was
deleting (``Not found: .../_versions/N.manifest``); the passes' own commits raced
too, and each loser only redid the winner's work.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from .options import LanceDBVectorStoreOptions
from .read_guard import ReadGuard
from .table import build_vector_index, is_conflict

log = logging.getLogger(__name__)
#: ``cleanup_older_than`` of an optimize that must not prune (LanceDB's own default is 7 days).
_PRUNE_NOTHING = timedelta(days=3_650)


class TableMaintenance:
    """Counts the store's writes and runs ``optimize`` when due: every ``optimize_every``
    writes, or once writes have paused, from a timer thread.

    ``lock`` is the store's write lock: a commit and an optimize never overlap in this
    process. ``table()`` answers the open table, or None once the store is closed (a
    timer that fires then does nothing). ``directory`` is the table's directory, whose
    ``flock`` keeps other processes' maintenance out while this one runs.
    """

    def __init__(
        self,
        options: LanceDBVectorStoreOptions,
        lock: threading.Lock,
        table: Callable[[], Any],
        reads: ReadGuard,
        directory: Path,
    ) -> None:
        self._options = options
        self._directory = directory
        self._reads = reads
        self._lock = lock
        self._table = table
        self._writes = 0
        self._last_write = 0.0
        self._idle_timer: threading.Timer | None = None

    @property
    def scheduled(self) -> bool:
        """Whether an idle optimize (or a late prune) is still to come."""
        return self._idle_timer is not None

    def _idle_enabled(self) -> bool:
        return bool(self._options.optimize_every and self._options.optimize_idle_seconds > 0)

    def opened(self) -> None:
        """Versions left by a previous process's last writes are pruned soon after opening."""
        if self._idle_enabled():
            with self._lock:
                self._arm(self._options.optimize_idle_seconds)

    def wrote(self) -> bool:
        """Count one commit (the caller holds the lock); True when an optimize is due now
        (the caller runs :meth:`optimize` after releasing the lock)."""
        self._writes += 1
        self._last_write = time.monotonic()
        due = bool(self._options.optimize_every and self._writes >= self._options.optimize_every)
        if not due and self._idle_enabled() and self._idle_timer is None:
            self._arm(self._options.optimize_idle_seconds)
        return due

    def optimize(self) -> None:
        """Fold new rows into the indexes, compact, prune and build a due vector index; a
        failure (e.g. losing a race to another writer) waits for next time."""
        with self._lock, self._exclusive() as alone:
            table = self._table()
            if table is None:  # closed while an idle optimize was due
                return
            if not alone:
                self._retry_when_idle()
                return
            self._writes = 0
            try:
                # Compaction and index refresh first, pruning nothing; then the prune, planned
                # just before it runs (a compaction can take seconds, and a bound computed
                # before it could outrun a live read's version by then).
                table.optimize(cleanup_older_than=_PRUNE_NOTHING)
            except Exception as exc:
                _retry_later("optimize", exc)
            self._prune_versions(table)
            try:
                build_vector_index(table, self._options.vector_index, self._options.vector_index_min_rows)
            except Exception:
                log.warning("lancedb vector index build failed; search stays exact", exc_info=True)

    def cancel(self) -> None:
        """No timer outlives the store (the caller holds the lock)."""
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None

    @contextmanager
    def _exclusive(self) -> Iterator[bool]:
        """Hold the table directory's ``flock`` if no other process does; yields whether it
        is held. A directory that is gone (the table was dropped) has nothing to share."""
        try:
            fd = os.open(self._directory, os.O_RDONLY)
        except FileNotFoundError:
            yield True
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                log.debug("lancedb maintenance of %s runs in another process; skipped", self._directory)
                yield False
                return
            yield True
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def _retry_when_idle(self) -> None:
        """Another process maintains the table now; rows written after its pass began are
        folded in after the next idle period (the caller holds the lock)."""
        if self._idle_enabled() and self._idle_timer is None:
            self._arm(self._options.optimize_idle_seconds)

    def _arm(self, delay: float) -> None:
        timer = threading.Timer(delay, self._optimize_if_idle)
        timer.daemon = True
        self._idle_timer = timer
        timer.start()

    def _optimize_if_idle(self) -> None:
        """Timer callback: optimize once writes have been quiet long enough, else wait the rest.

        With nothing written since the last optimize, only versions that were too young
        to prune then are left: prune them and stop, unless a live read held some back
        (then look again later, so a quiet store does not keep them until its next write).
        """
        with self._lock:
            self._idle_timer = None
            table = self._table()
            if table is None:
                return
            if self._writes == 0:
                with self._exclusive() as alone:
                    held_back = self._prune_versions(table) if alone else True
                if held_back:
                    self._arm(self._options.keep_versions_seconds + 1.0)
                return
            quiet = time.monotonic() - self._last_write
            if quiet < self._options.optimize_idle_seconds:
                self._arm(self._options.optimize_idle_seconds - quiet)
                return
        self.optimize()
        with self._lock:
            if self._table() is not None and self._writes == 0 and self._idle_timer is None:
                self._arm(self._options.keep_versions_seconds + 1.0)

    def _prune_versions(self, table: Any) -> bool:
        """Prune what no live read needs; True when a live read held versions back."""
        try:
            keep = self._options.keep_versions_seconds
            older_than = self._reads.older_than(table.list_versions(), keep)
            # ``optimize`` rather than ``cleanup_old_versions``, which needs the separate pylance package;
            # with nothing new to compact or index it only prunes.
            table.optimize(cleanup_older_than=timedelta(seconds=older_than))
        except Exception as exc:
            _retry_later("version cleanup", exc)
            return False
        return older_than > keep


def _retry_later(what: str, exc: Exception) -> None:
    """Log a maintenance step that failed; the next idle period tries again. Losing a commit
    race to another process (a writer, or maintenance from before the lock) is expected and
    gets one line, as does a version another process pruned while this one listed them;
    anything else keeps its traceback."""
    if is_conflict(exc) or _pruned_while_listed(exc):
        log.info("lancedb %s lost a commit race to another process; will retry later", what)
    else:
        log.warning("lancedb %s failed; will retry later", what, exc_info=True)


def _pruned_while_listed(exc: Exception) -> bool:
    """Whether ``exc`` is a version manifest that vanished between listing and reading it."""
    message = str(exc)
    return "Not found" in message and "_versions/" in message and ".manifest" in message
