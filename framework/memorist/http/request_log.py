"""The request log: every API call, recorded off the request path.

Responses enqueue a row; a background thread writes rows in batches and
prunes rows past the retention period. A request never waits for the log.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
import time
import uuid
from datetime import timedelta
from typing import Any

import falcon
from sqlalchemy import delete, insert, select

from ..db import Database
from ..db.schema import request_logs
from ..records import utcnow

log = logging.getLogger("memorist.requests")
FLUSH_SECONDS = 0.25
PRUNE_SECONDS = 3600
SKIP_PREFIXES = ("/docs/static", "/metrics")  # a scrape every few seconds would crowd out the log


class RequestLog:
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
        if self._thread is None or not self._thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name="memorist-request-log", daemon=True)
                    self._thread.start()
                    atexit.register(self.flush)

    def _run(self) -> None:
        while not self._stop.is_set():
            time.sleep(FLUSH_SECONDS)
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


class RequestLogMiddleware:
    def __init__(self, request_log: RequestLog) -> None:
        self._log = request_log

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.started = time.perf_counter()

    def process_response(
        self, req: falcon.Request, resp: falcon.Response, resource: object, req_succeeded: bool
    ) -> None:
        if req.path.startswith(SKIP_PREFIXES):
            return
        principal = getattr(req.context, "principal", None)
        started = getattr(req.context, "started", time.perf_counter())
        self._log.record(
            {
                "id": str(uuid.uuid4()),
                "method": req.method[:8],
                "path": req.path[:2048],
                "status_code": int(str(resp.status).split(" ", 1)[0]),
                "latency_ms": round((time.perf_counter() - started) * 1000, 3),
                "auth_type": principal.auth_type if principal else "none",
                "principal": principal.label if principal else None,
                "request_id": getattr(req.context, "request_id", "")[:128],
                "created_at": utcnow(),
            }
        )
