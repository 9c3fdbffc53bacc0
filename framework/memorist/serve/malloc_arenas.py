"""Capping glibc's malloc arenas in a served process.

Why: a worker's write path runs in LanceDB's native threads, and glibc gives
each contending thread its own malloc arena (up to 8 per core). Memory freed in
an arena is rarely handed back to the system, so a worker serving a stream of
adds grew by ~85 MiB per 1,000 requests; with two arenas it grows ~13 MiB
(docs/benchmarks.md, "Resident memory"). ``MALLOC_ARENA_MAX`` in the
environment does the same, but only if it is set before the process starts,
which users of ``memorist serve`` should not have to know: ``mallopt`` applies
the cap from inside, before gunicorn forks its workers and before any thread
starts, so every later arena obeys it.

A ``MALLOC_ARENA_MAX`` the user did set wins (glibc has already applied it),
and on a C library other than glibc (musl, macOS) nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import platform

log = logging.getLogger(__name__)

#: ``M_ARENA_MAX`` in glibc's ``<malloc.h>``.
_M_ARENA_MAX = -8


def limit_malloc_arenas(arenas: int) -> bool:
    """Cap this process's malloc arenas at ``arenas`` (children forked later inherit it).

    Returns whether the cap was applied: False for 0 (glibc's default kept),
    when ``MALLOC_ARENA_MAX`` is in the environment, or off glibc.
    """
    if not arenas or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    if platform.libc_ver()[0] != "glibc":
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.mallopt(ctypes.c_int(_M_ARENA_MAX), ctypes.c_int(arenas)) != 1:
        log.warning("mallopt(M_ARENA_MAX, %d) failed; malloc keeps its default arenas", arenas)
        return False
    return True
