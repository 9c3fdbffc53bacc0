"""Structured logs: one JSON object per line, carrying the id of the request that logged it.

``observability.log_format: json`` installs :class:`JsonFormatter` on the root logger
(each worker, at app start); the request id is set by the HTTP middleware in a
context variable, so any module's ``log.warning(...)`` inside a request names it
without being handed it. ``text`` (the default) leaves logging as it was.
"""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from .settings import ObservabilitySettings

#: The id of the request being served on this thread (None outside a request).
request_id: ContextVar[str | None] = ContextVar("memorist_request_id", default=None)
#: LogRecord attributes that are not extra fields of a call (``log.info("x", extra={...})``).
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", "request_id", ...extra, "exception"}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or request_id.get()
        if rid:
            entry["request_id"] = rid
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in entry and not key.startswith("_"):
                entry[key] = value if isinstance(value, str | int | float | bool | type(None)) else repr(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        trace = _trace_ids()
        if trace:
            entry.update(trace)
        return json.dumps(entry, ensure_ascii=False)


def _trace_ids() -> dict[str, str] | None:
    """The current span's trace and span ids, when tracing is on (logs and traces then join up)."""
    from . import tracing

    if tracing.tracer() is None:
        return None
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return {"trace_id": format(context.trace_id, "032x"), "span_id": format(context.span_id, "016x")}


_installed: logging.Handler | None = None


def configure(settings: ObservabilitySettings) -> None:
    """Install the JSON formatter on the root logger (once per process); ``text`` changes nothing."""
    global _installed
    if settings.log_format != "json" or _installed is not None:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    _installed = handler


def remove() -> None:
    """Take the JSON handler off the root logger again (an app closed in a process that goes on)."""
    global _installed
    if _installed is not None:
        logging.getLogger().removeHandler(_installed)
        _installed = None
