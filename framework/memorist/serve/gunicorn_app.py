"""Running the app under gunicorn from ``memorist serve``.

The app is built in each worker after fork (no preload): providers hold
threads, file handles and model weights that must not be shared across a fork.
A worker answers ``/health`` from its first moment and builds its app in a thread
meanwhile (:mod:`memorist.serve.startup`; ``/ready`` says when it is built).
The worker class is :class:`memorist.serve.thread_worker.MemoristThreadWorker`
(threads, bounded reads of slow clients, JSON for gunicorn's own errors).
A worker that stops (SIGTERM, a restart, ``max_requests``) closes its kernel once
its last request is answered: queue threads stop, the vector store moves what it
acknowledged into its table (LanceDB's write-behind journal is drained), the
database closes. Nothing depends on it: a worker killed instead loses no
acknowledged write (the journal is replayed at the next open); a clean stop just
leaves nothing to replay.

Once its app is built, a worker freezes what it holds from then on (``server.gc_freeze``,
:func:`freeze_built_heap`): a worker's lifetime objects outnumber the garbage of any
request by far, and each full collection would walk them all again.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import time
from typing import TYPE_CHECKING, Any

import click
from gunicorn.app.base import BaseApplication
from gunicorn.errors import HaltServer

from ..config.settings import Settings
from . import thread_worker as server_worker
from .malloc_arenas import limit_malloc_arenas

if TYPE_CHECKING:
    from ..kernel.core import Kernel

WORKER_CLASS = "memorist.serve.thread_worker.MemoristThreadWorker"
#: The log line a worker writes once its engine is built (``/ready`` answers 200 from then on).
READY_LINE = "Worker ready: engine built"


class MemoristGunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        super().__init__()

    def load_config(self) -> None:
        server = self._settings.server
        server_worker.configure(server.header_timeout, server.io_timeout)
        options: dict[str, Any] = {
            "bind": f"{server.host}:{server.port}",
            "workers": server.workers,
            "worker_class": WORKER_CLASS,
            "threads": server.threads,
            "timeout": server.timeout,
            "keepalive": server.keepalive,
            "limit_request_line": server.limit_request_line,
            "graceful_timeout": 30,
            "preload_app": False,
            "accesslog": None,
            "proc_name": "memorist",
            # gunicorn 27's control interface (``gunicornc``) is unused here, and its socket is one
            # path per user (~/.gunicorn/gunicorn.ctl): two nodes on one host took it from each
            # other, and a container user without a writable home could not create it.
            "control_socket_disable": True,
            "worker_exit": close_worker_kernel,
            "child_exit": worker_gone,
        }
        for key, value in options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """The worker's app: :class:`~memorist.serve.startup.StartingApp`, which answers ``/health``
        at once and builds the kernel and the HTTP app in a thread (``/ready`` says when)."""
        from .. import __version__
        from ..http.starting import starting_app
        from .startup import StartingApp, stop_worker

        return StartingApp(
            self._build_app,
            answer=starting_app(__version__),
            wait_seconds=float(self._settings.server.timeout),
            on_failure=stop_worker,
        ).start()

    def _build_app(self) -> Any:
        from ..http import create_app
        from ..kernel.core import Kernel

        # A configuration the data refuses (a store of another dimension or another embedder's
        # vectors) raises MemoristError here: stop_worker prints its one line and the worker exits
        # with gunicorn's "App failed to load" code, so gunicorn stops instead of retrying.
        started = time.monotonic()
        kernel = Kernel.build(self._settings)
        app = create_app(kernel)
        #: This worker's system, closed by :func:`close_worker_kernel` when the worker stops. Set once
        #: the app is whole: a worker stopped while building has served nothing, so nothing to close.
        self.kernel: Kernel = kernel
        if self._settings.server.gc_freeze:
            freeze_built_heap()
        # gunicorn's own log, beside its "Booting worker" line: when this worker serves everything.
        logging.getLogger("gunicorn.error").info(
            "%s %.1f s after booting (pid: %s)", READY_LINE, time.monotonic() - started, os.getpid()
        )
        return app


def freeze_built_heap() -> int:
    """Move every object alive now out of the cyclic collector's generations; returns how many.

    Called in a worker once its app is built: the embedder's and the lexicons' objects, the
    tokenizer, the routes and the plugins (some 170,000 objects) live as long as the worker,
    yet each full (generation 2) collection walked them all, about 110 ms each on this host,
    every few hundred adds (docs/benchmarks.md, "Garbage collection in a worker"). Frozen, a
    full collection walks only what requests made since. The collection first frees what
    the build left as garbage, so nothing dead is kept for the worker's life. Objects made
    later are collected as always; a frozen object that dies is freed by reference count,
    only a cycle among frozen objects stays until the worker exits (the build makes none
    that die). Not for an embedded ``Memory``: there the process and its collector belong
    to the user.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def close_worker_kernel(server: Any, worker: Any) -> None:
    """gunicorn's ``worker_exit`` hook: close the kernel of a worker that has stopped serving.

    gunicorn calls it in the worker process after the worker's loop ends (its requests
    answered, or the graceful timeout spent), and in the master for a worker that was
    already gone; there the application was never loaded and nothing happens.
    """
    kernel: Kernel | None = getattr(worker.app, "kernel", None)
    if kernel is None:
        return
    kernel.close()
    from ..observability import tracing

    tracing.shutdown()  # the spans of its last requests leave with it
    server.log.info("Worker closed its engine (pid: %s)", worker.pid)


def worker_gone(server: Any, worker: Any) -> None:
    """gunicorn's ``child_exit`` (in the master): a dead worker's metrics files stop counting as live."""
    from ..observability import metrics

    metrics.worker_exited(worker.pid)  # gunicorn's log, beside its own lines


def run_gunicorn(settings: Settings) -> None:
    # Before gunicorn forks its workers and before any thread starts: every arena obeys the cap.
    limit_malloc_arenas(settings.server.malloc_arena_max)
    if settings.observability.metrics:
        # Before the fork, and before any process imports prometheus-client: every worker writes its
        # counters to one directory, and a scrape of whichever worker answers sums them all.
        from ..observability import metrics

        metrics.enable_multiprocess()
    try:
        MemoristGunicorn(settings).run()
    except HaltServer as halt:
        # Every worker failing to load at once (a store the configuration cannot use): gunicorn's
        # halt reaps the second failure while stopping and raises again. The reason, not a traceback.
        click.echo(f"memorist serve: stopped: {halt.reason}", err=True)
        sys.exit(halt.exit_status)
