"""Running the app under gunicorn from ``memorist serve``.

The app is built in each worker after fork (no preload): providers hold
threads, file handles and model weights that must not be shared across a fork.
The worker class is :class:`memorist.server_worker.MemoristThreadWorker`
(threads, bounded reads of slow clients, JSON for gunicorn's own errors).
"""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

from . import server_worker
from .malloc_arenas import limit_malloc_arenas
from .settings import Settings

WORKER_CLASS = "memorist.server_worker.MemoristThreadWorker"


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
        }
        for key, value in options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from .http import create_app

        return create_app(self._settings)


def run_gunicorn(settings: Settings) -> None:
    # Before gunicorn forks its workers and before any thread starts: every arena obeys the cap.
    limit_malloc_arenas(settings.server.malloc_arena_max)
    MemoristGunicorn(settings).run()
