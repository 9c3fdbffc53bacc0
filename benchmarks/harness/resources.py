"""Resident memory and disk use, as the benchmark reports print them (MiB, one decimal)."""

from __future__ import annotations

import resource
from pathlib import Path


def rss_mb(pid: int | None = None) -> float:
    """Resident memory of ``pid`` (default: this process) now."""
    import psutil

    return round(psutil.Process(pid).memory_info().rss / 2**20, 1)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux reports KiB


def dir_mb(path: Path) -> float:
    """Bytes of every file under ``path``."""
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20, 1)
