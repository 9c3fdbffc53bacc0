"""A worker that answers ``/health`` from its first moment and builds its engine meanwhile.

Why: building the engine is most of a start (importing LanceDB, PyArrow and ONNX Runtime,
opening the database and its migrations, the embedder's session, and on a machine's first
start the embedder's ONNX graph, assembled once from the weights). A worker that built it
before serving anything left ``/health`` unanswered for all of that, so a first start looked
hung, and an orchestrator probing liveness could kill a worker that was only starting.

So a worker of ``memorist serve`` serves :class:`StartingApp` at once and builds the real app
in a thread:

- ``GET /health`` (liveness) answers 200 at once: ``{"status": "ok", "ready": false, ...}``
  while the engine is built, the full answer (with the components) once it is;
- ``GET /ready`` (readiness) answers 503 with ``Retry-After`` until the engine is built, then
  200: what a load balancer or ``docker compose``'s ``service_healthy`` should wait for;
- every other request waits for the engine (up to ``server.timeout`` seconds) and is then
  served as usual, so a client that saw ``/health`` answer can go on at once; past that wait
  it gets 503 with ``Retry-After``, never a half-built engine.

Those answers come from ``answer``, a small WSGI app the HTTP door gives
(:func:`memorist.http.starting.starting_app`): it runs the full app's request-id and
telemetry middleware, so a probe of a starting worker carries ``X-Request-ID`` and is
counted in ``/metrics`` like any other.

A build that fails stops the worker as a failed load did before: a
:class:`~memorist.errors.MemoristError` (a store of another embedder's vectors) exits with
gunicorn's "App failed to load" code after printing its one line, anything else with its
"Worker failed to boot" code after logging the traceback; gunicorn's master then stops.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

log = logging.getLogger("memorist.server")

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
#: gunicorn's worker exit codes that make its master stop (``Arbiter.APP_LOAD_ERROR`` / ``WORKER_BOOT_ERROR``).
APP_LOAD_ERROR = 4
WORKER_BOOT_ERROR = 3


class StartingApp:
    """The WSGI app of a worker whose engine is still being built (see the module's docstring)."""

    def __init__(
        self,
        build: Callable[[], WSGIApp],
        *,
        answer: WSGIApp,
        wait_seconds: float,
        on_failure: Callable[[BaseException], None],
    ) -> None:
        self._build = build
        #: What answers until the app is built: /health (200, not ready), /ready and late requests (503).
        self._answer = answer
        self._wait_seconds = wait_seconds
        self._on_failure = on_failure
        self._app: WSGIApp | None = None
        self._built = threading.Event()
        self._thread = threading.Thread(target=self._run_build, name="memorist-engine-build", daemon=True)

    def start(self) -> StartingApp:
        """Start building the engine; requests are answered from now on."""
        self._thread.start()
        return self

    @property
    def ready(self) -> bool:
        return self._app is not None

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the engine is built within ``timeout`` seconds (None: however long it takes)."""
        return self._built.wait(timeout)

    def _run_build(self) -> None:
        try:
            app = self._build()
        except BaseException as exc:  # noqa: BLE001 - every failure stops the worker, as a failed load did
            self._on_failure(exc)
            return
        self._app = app
        self._built.set()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        app = self._app
        if app is not None:
            return app(environ, start_response)
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "GET")
        if method in ("GET", "HEAD") and path in ("/health", "/ready"):
            return self._answer(environ, start_response)
        if self._built.wait(self._wait_seconds) and self._app is not None:
            return self._app(environ, start_response)
        return self._answer(environ, start_response)


def stop_worker(exc: BaseException) -> None:
    """A failed build ends this worker with the exit code that makes gunicorn's master stop.

    ``os._exit`` because the worker's main loop runs in another thread, and nothing was
    accepted yet: there is nothing to drain or to save.
    """
    from ..errors import MemoristError

    if isinstance(exc, MemoristError):
        # One line, as gunicorn prints an AppImportError's (no traceback from every worker).
        print(str(exc), file=sys.stderr, flush=True)
        code = APP_LOAD_ERROR
    else:
        log.error("the engine could not be built", exc_info=exc)
        code = WORKER_BOOT_ERROR
    for handler in logging.getLogger().handlers + logging.getLogger("gunicorn.error").handlers:
        handler.flush()
    os._exit(code)
