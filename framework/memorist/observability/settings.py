"""The ``observability:`` section: metrics, traces and log format.

Kept beside the other sections' models but in its own module, so ``settings.py``
stays the one place that composes sections, not the place each one grows.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, SecretStr


class ObservabilitySettings(BaseModel):
    """Prometheus metrics, OpenTelemetry traces and JSON logs (docs/observability.md).

    ``metrics_token``: Prometheus cannot log in or send ``X-API-Key`` (before 3.0), but
    it can send ``Authorization: Bearer <token>`` (``authorization.credentials`` of a
    scrape config); with a token set, ``/metrics`` takes it as well as an admin's
    credentials. ``metrics_auth: none`` serves ``/metrics`` to anyone who can reach the
    port (only behind a proxy or network that limits who can).
    """

    metrics: bool = True
    metrics_auth: Literal["admin", "none"] = "admin"
    metrics_token: SecretStr | None = None
    #: Seconds a scrape's queue/memory/entity counts are reused (they count whole tables).
    metrics_state_seconds: float = Field(5.0, ge=0.0, le=3600.0)
    #: ``otlp``: export spans over OTLP/HTTP (needs ``memorist[otel]``); ``none``: no tracing, no import.
    traces: Literal["none", "otlp"] = "none"
    #: Where spans go (``/v1/traces`` of an OpenTelemetry collector); unset: the SDK's own
    #: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_ENDPOINT`` (else localhost:4318).
    otlp_endpoint: str | None = None
    service_name: str = Field("memorist", min_length=1, max_length=128)
    #: Fraction of requests traced (parent-based: a caller's sampled trace is always continued).
    trace_sample_ratio: float = Field(1.0, ge=0.0, le=1.0)
    #: ``json``: one JSON object per log line, with the request id of the request that logged it.
    log_format: Literal["text", "json"] = "text"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
