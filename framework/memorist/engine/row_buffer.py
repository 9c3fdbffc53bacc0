"""A matrix that successive snapshots of one scope grow by appending rows, without copying it.

Why: a scope snapshot (:mod:`.scope_snapshot`) is replaced, not changed, when this process
adds to its scope, because searches may be reading the old one. Building the new one with
``np.concatenate`` copied every vector of the scope on every add: ~0.03 ms for 500 memories,
but ~2.2 ms for 5,000 (the largest scope the index keeps), more than a third of an add's
work outside the embedding, and growing with each add.

Instead the vectors live in a buffer with spare rows at the end, and each snapshot holds a
view of its first ``n`` rows. Appending to the newest snapshot writes the new rows into the
spare room and hands out a longer view: the rows an older snapshot sees are never written
again, so its readers are not disturbed. Only the newest view may grow in place; appending to
an older one (two extensions of one snapshot, which a race between threads could cause)
copies into a buffer of its own, as before. When the room runs out the buffer is copied once
into one a quarter larger, so an add costs a copy of its own rows and, amortized, a few more.
"""

from __future__ import annotations

import threading

import numpy as np

#: Spare rows a new buffer gets at least (an add usually stores one to three memories). Small:
#: the index may hold a thousand small scopes, and spare rows are memory none of them uses yet.
MIN_SPARE = 8
#: Spare rows as a share of the rows held: the copies a growing scope makes stay amortized O(1)
#: (a copy every quarter of the scope's size), for at most a quarter more memory.
SPARE_SHARE = 0.25


class RowBuffer:
    """The buffer behind the vectors of one scope's successive snapshots (see the module)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._buffer: np.ndarray | None = None
        #: Rows of ``_buffer`` handed out in some view; the rows after them are free.
        self._filled = 0

    def appended(self, view: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """A view of ``view``'s rows followed by ``rows`` (``view`` itself is left as it is)."""
        count = view.shape[0]
        added = rows.shape[0]
        with self._lock:
            buffer = self._buffer
            newest = buffer is not None and view.base is buffer and count == self._filled
            if not (newest and buffer is not None and count + added <= buffer.shape[0]):
                width = view.shape[1] if view.ndim == 2 and view.shape[1] else rows.shape[1]
                spare = max(MIN_SPARE, int((count + added) * SPARE_SHARE))
                buffer = np.empty((count + added + spare, width), dtype=np.float32)
                buffer[:count] = view
                self._buffer = buffer
            buffer[count : count + added] = rows
            self._filled = count + added
            grown: np.ndarray = buffer[: count + added]
        return grown
