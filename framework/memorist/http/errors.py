"""One error path: every failure becomes a JSON body with a status.

Domain errors carry their status; Falcon's own HTTP errors keep theirs; a
database too busy to serve (no pooled connection free within the pool's
timeout, or SQLite's write lock still held after its busy timeout) is 503 with
``Retry-After``: the request did nothing and may be sent again. Any other
exception is logged with the request id and answered 500 without internals.
Bodies use ``detail``, which the existing clients read.
"""

from __future__ import annotations

import logging
from typing import Any

import falcon
from sqlalchemy import exc as sa_exc

from ..errors import ConfigurationError, MemoristError
from ..tenancy import ProjectError

log = logging.getLogger("memorist.http")
#: Seconds a client is asked to wait after a 503 for a busy database.
BUSY_RETRY_AFTER = 2


def _request_id(req: falcon.Request) -> str | None:
    return getattr(req.context, "request_id", None)


def handle_memorist_error(req: falcon.Request, resp: falcon.Response, exc: MemoristError, params: Any) -> None:
    resp.status = falcon.code_to_http_status(exc.status)
    body: dict[str, Any] = {"detail": exc.message}
    if isinstance(exc, ConfigurationError) and len(exc.problems) > 1:
        body["errors"] = exc.problems
    if (field_errors := getattr(exc, "errors", None)) and isinstance(field_errors, list):
        body["errors"] = field_errors
    if (retry_after := getattr(exc, "retry_after", None)) is not None:
        resp.set_header("Retry-After", str(retry_after))
    if exc.status == 500:
        log.error("request %s failed: %s", _request_id(req), exc.message)
    resp.media = body


def handle_project_error(req: falcon.Request, resp: falcon.Response, exc: ProjectError, params: Any) -> None:
    """Project routes answer ``{"message": ...}`` only, as the platform spec shows."""
    resp.status = falcon.code_to_http_status(exc.status)
    resp.media = {"message": exc.message}


def handle_http_error(req: falcon.Request, resp: falcon.Response, exc: falcon.HTTPError, params: Any) -> None:
    resp.status = exc.status
    detail = exc.description or exc.title or "error"
    resp.media = {"detail": detail}
    for name, value in dict(exc.headers or {}).items():
        resp.set_header(name, value)


def _database_busy(exc: Exception) -> bool:
    """No connection free in the pool, or SQLite's write lock held past its busy timeout."""
    if isinstance(exc, sa_exc.TimeoutError):
        return True
    return isinstance(exc, sa_exc.OperationalError) and "database is locked" in str(exc.orig)


def handle_unexpected(req: falcon.Request, resp: falcon.Response, exc: Exception, params: Any) -> None:
    if isinstance(exc, falcon.HTTPError):  # includes HTTPNotFound raised by routing
        handle_http_error(req, resp, exc, params)
        return
    if _database_busy(exc):
        log.warning("request %s: database busy (%s); answered 503", _request_id(req), type(exc).__name__)
        resp.status = falcon.HTTP_503
        resp.set_header("Retry-After", str(BUSY_RETRY_AFTER))
        resp.media = {"detail": "the server is busy: no database connection was free in time; retry later"}
        return
    log.exception("unhandled error in %s %s (request %s)", req.method, req.path, _request_id(req))
    resp.status = falcon.HTTP_500
    resp.media = {"detail": "internal server error", "request_id": _request_id(req)}


def install(app: falcon.App[falcon.Request, falcon.Response]) -> None:
    # Falcon picks the most specific handler by MRO, so order does not matter.
    app.add_error_handler(Exception, handle_unexpected)
    app.add_error_handler(falcon.HTTPError, handle_http_error)
    app.add_error_handler(MemoristError, handle_memorist_error)
    app.add_error_handler(ProjectError, handle_project_error)
