"""Timing the stages of an add and a search: one histogram sample, and a span when tracing is on.

``with stage("search", "embed"): ...`` is all an engine module writes. With tracing off
it costs two clock readings and a histogram update; with tracing on it is also a child
span of whatever span is current (the request's, on the HTTP path).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from . import metrics, tracing

T = TypeVar("T")


@contextmanager
def stage(operation: str, name: str, **attributes: Any) -> Iterator[None]:
    """Time one stage of ``operation`` (``add`` or ``search``) as ``memorist_stage_duration_seconds``."""
    tracer = tracing.tracer()
    start = time.perf_counter()
    try:
        if tracer is None:
            yield
        else:
            with tracer.start_as_current_span(f"{operation}.{name}", attributes=attributes or None):
                yield
    finally:
        metrics.observe_stage(operation, name, time.perf_counter() - start)


def timed(operation: str, name: str, call: Callable[..., T]) -> Callable[..., T]:
    """``call`` wrapped in :func:`stage` (for a callable handed to another module, like an embedder)."""

    def wrapper(*args: Any, **kwargs: Any) -> T:
        with stage(operation, name):
            return call(*args, **kwargs)

    return wrapper
