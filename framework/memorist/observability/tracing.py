"""OpenTelemetry traces through the official SDK, when an exporter is configured.

Off by default: with ``observability.traces: none`` nothing here imports
OpenTelemetry and :func:`tracer` answers ``None``, so a stage costs one clock
reading (:mod:`.stages`). With ``otlp`` each process (each gunicorn worker, after
its fork) builds one ``TracerProvider`` with a batch processor and the OTLP/HTTP
exporter; a request is a server span (continuing the caller's ``traceparent``), and
the stages of its add or search are its children.
"""

from __future__ import annotations

import threading
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from .settings import ObservabilitySettings

_tracer: Any = None
_provider: Any = None
_lock = threading.Lock()


def tracer() -> Any:
    """This process's tracer, or None when tracing is off."""
    return _tracer


def configure(settings: ObservabilitySettings) -> Any:
    """Set up (once per process) the provider and exporter ``settings`` ask for; returns the tracer or None."""
    global _tracer, _provider
    if settings.traces == "none":
        return None
    with _lock:
        if _tracer is not None:
            return _tracer
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
            from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
        except ImportError:
            from ..errors import ConfigurationError

            raise ConfigurationError(
                "observability.traces: 'otlp' needs the OpenTelemetry SDK: pip install 'memorist[otel]'"
            ) from None
        release = installed_version()
        resource = Resource.create({"service.name": settings.service_name, "service.version": release})
        provider = TracerProvider(
            resource=resource, sampler=ParentBased(TraceIdRatioBased(settings.trace_sample_ratio))
        )
        exporter = OTLPSpanExporter(endpoint=settings.otlp_endpoint) if settings.otlp_endpoint else OTLPSpanExporter()
        provider.add_span_processor(BatchSpanProcessor(exporter))
        _provider = provider
        _tracer = provider.get_tracer("memorist", release)
        return _tracer


def flush(timeout_millis: int = 10_000) -> bool:
    """Export every finished span now (tests, and a worker about to exit)."""
    return bool(_provider.force_flush(timeout_millis)) if _provider is not None else True


def shutdown() -> None:
    """Flush and stop the exporter; tracing is off afterwards (a later :func:`configure` starts over)."""
    global _tracer, _provider
    with _lock:
        if _provider is not None:
            _provider.shutdown()
        _tracer = _provider = None


def installed_version() -> str:
    """Memorist's version (read here, not from ``memorist.__version__``: importing the package
    root from this module would tie it into the root's lazy imports)."""
    try:
        return version("memorist")
    except PackageNotFoundError:  # a source tree that is not installed
        return "0.0.0"
