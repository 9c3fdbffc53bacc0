"""Old table versions stay while a read still needs them.

Every write leaves a table version, and maintenance prunes the old ones within
seconds (:mod:`.maintenance` says why). A read works on the version that was the
latest when it started; compaction rewrites the data files, and pruning the
versions that referenced the old files deletes them. A read still scanning them
then failed: ``lance error: Not found: .../data/*.lance`` (reads of 19-42 s
during writes answered 500). A version is older than its read, often by far
(a store quiet for an hour, then written), so a prune bounded by read *start*
times alone would not do: what must stay is the newest version *as of* the
oldest live read, and every version after it.

So each read is registered while it runs (:meth:`ReadGuard.reading`), and a prune
computes how old a version may be before it goes (:meth:`ReadGuard.older_than`):
the configured ``keep_versions_seconds``, or longer while a read runs that began
on an older version: never so short that it reaches the version that was the
latest when the oldest live read began. The prune is planned right before it
runs, in a call of its own after compaction (:mod:`.maintenance`), so the bound
is not outrun by a long compaction in between.

Reads of other processes (gunicorn workers on one directory) are seen through one
small file per process in ``<table>.reads/``, named by its pid, opened once and
rewritten in place (one ``pwrite``, a few microseconds): it holds the start of
that process's oldest live read, written when the process goes from no live read
to one (and refreshed at most once a second while reads overlap, so the
published start is never later than a live read's), and zero when none runs.
Files of processes that are gone, or starts older than ``MAX_READ_SECONDS``, are
ignored; a closing store removes its file. A read that starts in the instant
between a prune's plan and the prune (or, in another process, before its start
is written), on a version compaction just replaced, may still lose its files;
such a read is retried on the current version (:func:`is_pruned_under_read`),
which a short read pays for cheaply.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

#: A published read older than this is not honoured (a process that died mid-read and
#: whose pid came back): no read is protected for longer than any request may run.
MAX_READ_SECONDS = 900.0
#: While reads overlap without pause, the published start is refreshed at most this often.
REFRESH_SECONDS = 1.0
#: Attempts of a read whose files were pruned under it anyway.
READ_ATTEMPTS = 3
#: Width of a published start (fixed, so a rewrite in place leaves no stale tail).
_WIDTH = 24
#: Added to a bound computed for a live read: the prune's own clock reading comes a
#: little after the plan's (version timestamps and ``time.time()`` are one clock).
SLACK_SECONDS = 0.5


def is_pruned_under_read(exc: BaseException) -> bool:
    """Whether ``exc`` is a read that lost a data or index file to a prune (worth a retry)."""
    message = str(exc)
    return "Not found" in message and ("lance error" in message or ".lance" in message or "_indices" in message)


def guarded_read(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """A store method reading the table: registered in the store's ``_read_guard`` while it
    runs, so no prune removes the version it is on; should a prune remove it anyway (see
    the module docstring), it runs again on the current version."""

    def guarded(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        attempt = 1
        while True:
            try:
                with self._read_guard.reading():
                    return method(self, *args, **kwargs)
            except (RuntimeError, OSError, ValueError) as exc:
                if attempt >= READ_ATTEMPTS or not is_pruned_under_read(exc):
                    raise
                log.info("lancedb %s: files pruned under the read; reading the current version", method.__name__)
                attempt += 1

    guarded.__name__, guarded.__doc__ = method.__name__, method.__doc__
    return guarded


class ReadGuard:
    """The live reads of one table: in this process (memory) and others (``<table>.reads/``)."""

    def __init__(self, directory: Path) -> None:
        self._dir = directory
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._live: dict[int, float] = {}
        self._tokens = itertools.count()
        #: The start this process has published (None: none, the file reads zero), and when.
        self._published: float | None = None
        self._published_at = 0.0
        #: This process's file, opened at its first read (pid, descriptor).
        self._fd: tuple[int, int] | None = None

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Register a read for as long as it runs (nested reads are fine)."""
        token = next(self._tokens)
        with self._lock:
            self._forked()
            self._live[token] = time.time()
            if self._published is None:
                self._publish(self._live[token])
        try:
            yield
        finally:
            with self._lock:
                self._live.pop(token, None)
                if not self._live:
                    self._unpublish()
                elif time.monotonic() - self._published_at > REFRESH_SECONDS:
                    self._publish(min(self._live.values()))

    def oldest(self) -> float | None:
        """The start (epoch seconds) of the oldest live read of any process, None if none."""
        with self._lock:
            starts = list(self._live.values())
        starts.extend(self._others())
        return min(starts) if starts else None

    def older_than(self, versions: list[dict[str, Any]], keep_seconds: float) -> float:
        """Seconds a version may be old before a prune removes it (see the module docstring).

        ``versions`` is the table's ``list_versions()`` at planning time.
        """
        oldest_read = self.oldest()
        stamps = sorted(_epoch(v["timestamp"]) for v in versions)
        if oldest_read is None or not stamps:
            return keep_seconds
        current = [s for s in stamps if s <= oldest_read]  # the versions before the read began
        keep_from = current[-1] if current else stamps[0]
        return max(keep_seconds, time.time() - keep_from + SLACK_SECONDS)

    def close(self) -> None:
        """Remove this process's file (and the directory, once no process has one)."""
        with self._lock:
            held, self._fd, self._published = self._fd, None, None
        if held is None or held[0] != os.getpid():
            return
        os.close(held[1])
        with contextlib.suppress(OSError):
            self._file().unlink()
        with contextlib.suppress(OSError):  # another process's file keeps it
            self._dir.rmdir()

    # -- the file of this process --------------------------------------------------------
    def _file(self) -> Path:
        return self._dir / str(os.getpid())

    def _write(self, start: float) -> bool:
        """Rewrite this process's file in place; False when it cannot be written."""
        try:
            if self._fd is None or self._fd[0] != os.getpid():
                self._dir.mkdir(parents=True, exist_ok=True)
                self._fd = (os.getpid(), os.open(self._file(), os.O_RDWR | os.O_CREAT, 0o644))
            os.pwrite(self._fd[1], f"{start:{_WIDTH}.6f}".encode(), 0)
        except OSError:  # a read-only or full disk must not fail the read: only other processes lose sight
            log.warning("could not publish a live lancedb read in %s", self._dir, exc_info=True)
            return False
        return True

    def _publish(self, start: float) -> None:
        if self._write(start):
            self._published, self._published_at = start, time.monotonic()

    def _unpublish(self) -> None:
        if self._published is not None and self._write(0.0):
            self._published = None

    def _forked(self) -> None:
        """A forked child inherits no reads, and opens a file of its own."""
        if self._pid != os.getpid():
            self._pid, self._live, self._published, self._fd = os.getpid(), {}, None, None

    def _others(self) -> list[float]:
        """Published starts of other live processes, none older than ``MAX_READ_SECONDS``."""
        try:
            entries = list(self._dir.iterdir())
        except OSError:
            return []
        now, starts = time.time(), []
        for entry in entries:
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                start = float(entry.read_text())
            except (OSError, ValueError):
                continue  # removed meanwhile
            if start <= 0 or now - start > MAX_READ_SECONDS or not _alive(int(entry.name)):
                continue  # no read there, or a process gone
            starts.append(start)
        return starts


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _epoch(stamp: Any) -> float:
    """A version's timestamp as epoch seconds (LanceDB gives a naive local datetime)."""
    if isinstance(stamp, datetime):
        return stamp.timestamp()
    return float(stamp)
