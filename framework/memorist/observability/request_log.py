"""The request log: every API call, recorded off the request path.

A door enqueues a row per request (the HTTP middleware,
:class:`memorist.http.request_log.RequestLogMiddleware`); a background thread writes
rows in batches and prunes rows past the retention period. A request never waits
for the log. The kernel builds one per running system (``Kernel.request_log``), so
``GET /requests`` reads what every route of the process recorded.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, insert, select

from ..db import Database
from ..db.schema import request_logs
from ..records import utcnow

log = logging.getLogger("memorist.requests")
FLUSH_SECONDS = 0.25
PRUNE_SECONDS = 3600


class RequestLog:
    """The request log's store and its writer thread (one per running system, built by the kernel)."""

    def __init__(self, db: Database, retention_days: int) -> None:
        self._db = db
        self._retention = timedelta(days=retention_days)
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue(maxsize=100_000)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_prune = 0.0
        self._lock = threading.Lock()

    def record(self, row: dict[str, Any]) -> None:
        self._ensure_thread()
        try:
            self._queue.put_nowait(row)
        except queue.Full:  # the log must never slow or fail a request
            log.warning("request log queue full; dropping an entry")

    def _ensure_thread(self) -> None:
        # Started lazily so that it runs in the process that serves (after gunicorn forks).
        if self._stop.is_set():  # closed with its kernel: no thread is started again
            return
        if self._thread is None or not self._thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name="memorist-request-log", daemon=True)
                    self._thread.start()
                    atexit.register(self.flush)

    def close(self) -> None:
        """Write what is queued and stop the writer thread (the kernel closes)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(FLUSH_SECONDS * 4)
        atexit.unregister(self.flush)  # its database goes with the kernel
        self.flush()

    def _run(self) -> None:
        while not self._stop.wait(FLUSH_SECONDS):
            self.flush()

    def flush(self) -> None:
        rows = []
        while True:
            try:
                rows.append(self._queue.get_nowait())
            except queue.Empty:
                break
        try:
            if rows:
                with self._db.begin() as conn:
                    conn.execute(insert(request_logs), rows)
            if time.monotonic() - self._last_prune > PRUNE_SECONDS:
                self._last_prune = time.monotonic()
                with self._db.begin() as conn:
                    conn.execute(delete(request_logs).where(request_logs.c.created_at < utcnow() - self._retention))
        except Exception:
            log.exception("writing the request log failed")

    def recent(
        self, limit: int, principal: str | None = None, *, status: str | None = None, path: str | None = None
    ) -> list[dict[str, Any]]:
        """The newest ``limit`` rows matching the filters (filtered here, not after: an old 401 is still found).

        ``status``: one digit is a class (``4`` = 400..499), three digits one code;
        ``path``: a case-insensitive substring (``%`` and ``_`` are literal).
        """
        self.flush()
        query = select(request_logs).order_by(request_logs.c.created_at.desc(), request_logs.c.id.desc()).limit(limit)
        if principal is not None:
            query = query.where(request_logs.c.principal == principal)
        if status is not None:
            low, high = (int(status) * 100, int(status) * 100 + 99) if len(status) == 1 else (int(status), int(status))
            query = query.where(request_logs.c.status_code.between(low, high))
        if path:
            query = query.where(request_logs.c.path.icontains(path, autoescape=True))
        with self._db.connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]
