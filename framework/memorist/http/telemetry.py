"""The HTTP side of observability: per-request metrics and spans, ``GET /metrics``.

:class:`TelemetryMiddleware` times every request and counts it by method, *route
template* (``/v1/memories/{memory_id}/``, never the raw path: one series per route,
not per memory) and status; with tracing on it opens the request's server span
(continuing a caller's ``traceparent``) so the add and search stages nest under it,
and it hands the request id to the JSON log formatter.

:class:`MetricsResource` answers the Prometheus exposition text. It is protected
like ``/requests`` -- an admin's session or key -- or, for Prometheus, which cannot
log in, ``Authorization: Bearer <observability.metrics_token>``; or open with
``observability.metrics_auth: none`` (docs/observability.md).
"""

from __future__ import annotations

import hmac
import time

import falcon

from ..observability import logs, metrics, tracing
from ..observability.settings import ObservabilitySettings

#: The route label of a request no route matched (its raw path would be one series per probe).
UNMATCHED = "unmatched"


class TelemetryMiddleware:
    """Request metrics, the request's span and the log request id; after :class:`RequestIdMiddleware`."""

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.telemetry_started = time.perf_counter()
        rid = getattr(req.context, "request_id", None)
        req.context.log_token = logs.request_id.set(rid)
        tracer = tracing.tracer()
        if tracer is None:
            return
        from opentelemetry import context, propagate, trace

        carrier = {name.lower(): value for name, value in req.headers.items()}
        span = tracer.start_span(
            req.method,
            context=propagate.extract(carrier),
            kind=trace.SpanKind.SERVER,
            attributes={"http.request.method": req.method, "url.path": req.path, "memorist.request_id": rid or ""},
        )
        req.context.span = span
        req.context.span_token = context.attach(trace.set_span_in_context(span))

    def process_response(
        self, req: falcon.Request, resp: falcon.Response, resource: object, req_succeeded: bool
    ) -> None:
        started = getattr(req.context, "telemetry_started", None)
        route = req.uri_template or UNMATCHED
        status = str(resp.status_code)
        if started is not None:
            metrics.observe_request(req.method, route, status, time.perf_counter() - started)
        span = getattr(req.context, "span", None)
        if span is not None:
            from opentelemetry import context
            from opentelemetry.trace import Status, StatusCode

            span.update_name(f"{req.method} {route}")
            span.set_attribute("http.route", route)
            span.set_attribute("http.response.status_code", resp.status_code)
            if resp.status_code >= 500:
                span.set_status(Status(StatusCode.ERROR))
            span.end()
            context.detach(req.context.span_token)
            req.context.span = None
        token = getattr(req.context, "log_token", None)
        if token is not None:
            logs.request_id.reset(token)
            req.context.log_token = None


class MetricsResource:
    """``GET /metrics``: the Prometheus text format (see the module doc for who may read it)."""

    def __init__(self, settings: ObservabilitySettings, state: metrics.StateCollector | None) -> None:
        self._settings = settings
        self._state = state
        token = settings.metrics_token.get_secret_value() if settings.metrics_token else ""
        self._token = token.encode()

    def _allowed(self, req: falcon.Request) -> None:
        if self._settings.metrics_auth == "none":
            return
        scheme, _, credential = (req.get_header("Authorization") or "").partition(" ")
        if self._token and scheme.lower() == "bearer" and hmac.compare_digest(credential.strip().encode(), self._token):
            return
        req.context.principal = req.context.authenticator.require(req, "admin")

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._allowed(req)
        body, content_type = metrics.render(self._state)
        resp.data = body
        resp.content_type = content_type
