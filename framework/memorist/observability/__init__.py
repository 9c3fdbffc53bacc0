"""Metrics, traces and structured logs (docs/observability.md).

Nothing here is imported on a request's path unless it is switched on: the
Prometheus client is imported on first use (so ``memorist serve`` can set its
multiprocess directory before any process imports it), and the OpenTelemetry SDK
only when ``observability.traces`` names an exporter.
"""
