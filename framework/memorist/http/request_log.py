"""The HTTP side of the request log: one row per response, handed to the kernel's log.

The log itself (:class:`memorist.observability.request_log.RequestLog`: its store, its
writer thread, retention) is built once by the kernel; this middleware only records.
"""

from __future__ import annotations

import time
import uuid

import falcon

from ..observability.request_log import RequestLog
from ..records import utcnow

SKIP_PREFIXES = ("/docs/static", "/metrics")  # a scrape every few seconds would crowd out the log


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
