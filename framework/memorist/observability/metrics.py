"""Prometheus metrics: request counts and latency, add and search stage timings, queue and store sizes.

Two kinds of figures, kept apart on purpose:

* **Events** (a request answered, a stage of an add or search finished) are counted
  where they happen, in whichever process served them: counters and histograms in
  prometheus-client's default registry. Under gunicorn several workers serve one
  port, so ``memorist serve`` runs prometheus-client's *multiprocess mode*
  (:func:`enable_multiprocess`: a fresh directory in ``PROMETHEUS_MULTIPROC_DIR``
  before any worker imports the client; :func:`worker_exited` from gunicorn's
  ``child_exit``), and a scrape of any worker answers the sum over all of them.
* **State** (queue depth and age, memories stored, entities) is read from the shared
  stores at scrape time by :class:`StateCollector` -- every worker would report the
  same value, so it is never stored per process.

The client is imported on first use, not at module import: the multiprocess setting
is read when the client is imported, and ``memorist serve`` must set it first.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

log = logging.getLogger("memorist.metrics")
#: The variable prometheus-client reads for its multiprocess directory.
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
#: Latency buckets (seconds): a search is ~10 ms, an add with a remote model several seconds.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


@dataclass(frozen=True)
class Families:
    """The event metrics, created once per process."""

    requests: Any
    latency: Any
    stages: Any
    queue_done: Any
    judgments: Any


_families: Families | None = None
_lock = threading.Lock()
#: Switched off by ``observability.metrics: false`` (then nothing is counted at all).
_enabled = True


def set_enabled(enabled: bool) -> None:
    global _enabled
    _enabled = enabled


def families() -> Families:
    """The event metrics of this process (created, and the client imported, on first use)."""
    global _families
    if _families is None:
        with _lock:
            if _families is None:
                from prometheus_client import Counter, Histogram

                _families = Families(
                    requests=Counter(
                        "memorist_http_requests",
                        "HTTP requests answered, by method, route template and status code",
                        ("method", "route", "status"),
                    ),
                    latency=Histogram(
                        "memorist_http_request_duration_seconds",
                        "Time from a request's arrival to its answer, by method, route template and status code",
                        ("method", "route", "status"),
                        buckets=BUCKETS,
                    ),
                    stages=Histogram(
                        "memorist_stage_duration_seconds",
                        "Time spent in each stage of an add or a search (operation: add, search)",
                        ("operation", "stage"),
                        buckets=BUCKETS,
                    ),
                    queue_done=Counter(
                        "memorist_queue_events_finished",
                        "Queued adds finished by the workers, by outcome (SUCCEEDED, FAILED, RETRY, LEASE_LOST)",
                        ("outcome",),
                    ),
                    judgments=Counter(
                        "memorist_supersession_judgments",
                        "Adds whose replaced memories the language model was asked to judge, by outcome "
                        "(judged; declined or unusable: the rule decided)",
                        ("outcome",),
                    ),
                )
    return _families


def _recording_failed(what: str) -> None:
    """A figure that could not be recorded (say, the multiprocess directory removed under a
    running server) is logged once per process; the request or add it measured goes on."""
    global _failure_logged
    if not _failure_logged:
        _failure_logged = True
        log.exception("metrics: recording %s failed; later failures are not logged", what)


_failure_logged = False


def observe_request(method: str, route: str, status: str, seconds: float) -> None:
    if not _enabled:
        return
    try:
        f = families()
        f.requests.labels(method, route, status).inc()
        f.latency.labels(method, route, status).observe(seconds)
    except Exception:
        _recording_failed("a request")


def observe_stage(operation: str, stage: str, seconds: float) -> None:
    if _enabled:
        try:
            families().stages.labels(operation, stage).observe(seconds)
        except Exception:
            _recording_failed("a stage")


def queue_finished(outcome: str) -> None:
    if _enabled:
        try:
            families().queue_done.labels(outcome).inc()
        except Exception:
            _recording_failed("a queued add")


def supersession_judged(outcome: str) -> None:
    """One add's question to the language model judge: ``judged`` (its answer decided),
    ``declined`` (it answered None) or ``unusable`` (it raised or answered another shape)."""
    if _enabled:
        try:
            families().judgments.labels(outcome).inc()
        except Exception:
            _recording_failed("a judgment")


# -- multiprocess mode (gunicorn) ----------------------------------------------------------


def enable_multiprocess() -> str | None:
    """Give this server's workers one shared metrics directory; returns it (None: left as it was).

    Called by ``memorist serve`` in gunicorn's master before it forks: each worker then
    writes its counters to files there, and a scrape of any worker sums them. A directory
    the operator set (``PROMETHEUS_MULTIPROC_DIR``) is used as is -- wiping it between runs
    is theirs to do; otherwise a fresh one is made and removed when the master exits.
    """
    if os.environ.get(MULTIPROC_ENV):
        os.makedirs(os.environ[MULTIPROC_ENV], exist_ok=True)
        return None
    path = tempfile.mkdtemp(prefix="memorist-metrics-")
    os.environ[MULTIPROC_ENV] = path
    import atexit

    master = os.getpid()

    def remove() -> None:
        # Workers are forked with this handler registered; one that exits (a restart, an abort)
        # must not take the directory the others are still writing to.
        if os.getpid() == master:
            shutil.rmtree(path, ignore_errors=True)

    atexit.register(remove)
    return path


def worker_exited(pid: int) -> None:
    """gunicorn's ``child_exit``: a dead worker's live gauges stop counting (its counters stay summed)."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)


# -- the scrape ----------------------------------------------------------------------------


@dataclass
class StateSources:
    """Where the state figures come from (read at each scrape)."""

    queue: Callable[[], dict[str, tuple[int, datetime | None]]]
    memories: Callable[[], int]
    entities: Callable[[], dict[str, int]]


class StateCollector:
    """Queue depth and age, memories and entities: read from the shared stores when scraped.

    The reads are counts over whole tables (on PostgreSQL an exact ``count(*)``), so they
    are kept for ``max_age`` seconds: several Prometheus replicas scraping every few
    seconds cost the stores one read per interval, not one per scrape.
    """

    def __init__(self, sources: StateSources, max_age: float = 5.0) -> None:
        self._sources = sources
        self._max_age = max_age
        self._read_at = float("-inf")
        self._values: tuple[dict[str, tuple[int, datetime | None]], int, dict[str, int]] | None = None
        self._read_lock = threading.Lock()

    def _read(self) -> tuple[dict[str, tuple[int, datetime | None]], int, dict[str, int]]:
        with self._read_lock:
            if self._values is None or time.monotonic() - self._read_at >= self._max_age:
                self._values = (self._sources.queue(), self._sources.memories(), self._sources.entities())
                self._read_at = time.monotonic()
            return self._values

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        queue, memories, entities_by_type = self._read()

        depth = GaugeMetricFamily(
            "memorist_queue_events", "Queued adds by status (PENDING, RUNNING)", labels=["status"]
        )
        age = GaugeMetricFamily(
            "memorist_queue_oldest_age_seconds",
            "Age of the oldest queued add of each status (0 when there is none)",
            labels=["status"],
        )
        now = datetime.now().astimezone()
        for status, (count, oldest) in sorted(queue.items()):
            depth.add_metric([status], count)
            age.add_metric([status], max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0)
        yield depth
        yield age
        yield GaugeMetricFamily("memorist_memories", "Memories in the vector store (every project)", value=memories)
        entities = GaugeMetricFamily(
            "memorist_entities", "Entities with at least one memory, by type (user, agent, run, app)", labels=["type"]
        )
        for kind, count in sorted(entities_by_type.items()):
            entities.add_metric([kind], count)
        yield entities


def render(state: StateCollector | None) -> tuple[bytes, str]:
    """The exposition text of this process (or, in multiprocess mode, of every worker) plus the state."""
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

    families()  # declared even before the first request, so a scrape always lists them
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    body = generate_latest(registry)
    if state is not None:
        live = CollectorRegistry(auto_describe=False)
        live.register(state)
        body += generate_latest(live)
    return body, CONTENT_TYPE_LATEST
