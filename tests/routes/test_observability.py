"""Metrics, traces and JSON logs on the whole app in process (docs/observability.md).

``/metrics`` is read with prometheus-client's own text parser, as Prometheus would
read it. Traces go through the real OpenTelemetry SDK and its OTLP/HTTP exporter to
an in-process collector: a loopback HTTP server that takes ``POST /v1/traces`` and
decodes the protobuf with the OTLP package's own message classes.
"""

from __future__ import annotations

import http.server
import io
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN, bearer
from prometheus_client.parser import text_string_to_metric_families

METRICS_TOKEN = "scrape-token-0123456789abcdef"


def families(text: str) -> dict[str, Any]:
    return {f.name: f for f in text_string_to_metric_families(text)}


def sample(family: Any, suffix: str = "", **labels: str) -> float:
    """The value of the one sample of ``family`` (name + suffix) whose labels include ``labels``."""
    found = [
        s.value
        for s in family.samples
        if s.name == family.name + suffix and all(s.labels.get(k) == v for k, v in labels.items())
    ]
    assert found, f"no {family.name}{suffix} sample with {labels}: {family.samples[:5]}"
    return float(sum(found))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    env = {
        "MEMORIST_OBSERVABILITY__METRICS_TOKEN": METRICS_TOKEN,
        "MEMORIST_OBSERVABILITY__METRICS_STATE_SECONDS": "0",  # each scrape reads the stores afresh
        "MEMORIST_QUEUE__WORKERS": "0",
    }
    with AppServer(tmp_path_factory.mktemp("observability") / "data", env=env) as srv:
        yield srv


def add(server: AppServer, text: str, user: str) -> None:
    body = {"messages": [{"role": "user", "content": text}], "user_id": user}
    resp = server.post("/memories", headers=ADMIN, json=body)
    assert resp.status_code == 200, resp.text


def test_metrics_are_for_admins_or_the_scrape_token(server: AppServer) -> None:
    assert server.get("/metrics").status_code == 401
    assert server.get("/metrics", headers=bearer("not-the-token")).status_code == 401
    user = server.post("/auth/register", json={"name": "Ola", "email": "ola@obs.test", "password": "correct horse"})
    assert user.status_code in (200, 201), user.text  # the first account is the admin...
    ida = {"name": "Ida", "email": "ida@obs.test", "password": "pw-long-enough"}
    assert server.post("/auth/users", headers=ADMIN, json=ida).status_code == 201  # ...a plain user may not read
    login = server.post("/auth/login", json={"email": "ida@obs.test", "password": "pw-long-enough"})
    assert server.get("/metrics", headers=bearer(login.json()["access_token"])).status_code == 403
    assert server.get("/metrics", headers=ADMIN).status_code == 200
    scraped = server.get("/metrics", headers=bearer(METRICS_TOKEN))
    assert scraped.status_code == 200 and scraped.headers["Content-Type"].startswith("text/plain")


def test_requests_stages_queue_and_store_sizes_are_exposed(server: AppServer) -> None:
    before = families(server.get("/metrics", headers=ADMIN).text)
    # The metrics are process-wide: other tests in this worker may have counted /memories
    # requests of another method or status, so only an exact series counts as "before".
    wanted = {"method": "POST", "route": "/memories", "status": "200"}
    ok_before = (
        sample(before["memorist_http_requests"], "_total", **wanted)
        if any(all(s.labels.get(k) == v for k, v in wanted.items()) for s in before["memorist_http_requests"].samples)
        else 0.0
    )
    add(server, "I moved to Lisbon last spring and I work as a nurse.", "obs-ana")
    add(server, "Mein Hund heißt Bello und frisst gern Karotten.", "obs-ben")
    resp = server.post("/search", headers=ADMIN, json={"query": "Where does she live?", "user_id": "obs-ana"})
    assert resp.status_code == 200
    assert server.get("/memories/not-a-memory", headers=ADMIN).status_code == 404
    server.get("/no/such/route", headers=ADMIN)
    queued = server.post(
        "/v1/memories/",
        headers=ADMIN,
        json={"messages": "x", "user_id": "u"},  # a platform route without a platform key: 401, counted too
    )
    assert queued.status_code == 401

    after = families(server.get("/metrics", headers=ADMIN).text)
    requests = after["memorist_http_requests"]
    assert sample(requests, "_total", method="POST", route="/memories", status="200") == ok_before + 2
    # Route templates, never raw paths: one series per route, however many memory ids are asked for.
    assert sample(requests, "_total", method="GET", route="/memories/{memory_id}", status="404") >= 1
    assert sample(requests, "_total", route="unmatched", status="404") >= 1
    assert not any("not-a-memory" in str(s.labels) or "/no/such" in str(s.labels) for s in requests.samples)
    latency = after["memorist_http_request_duration_seconds"]
    assert sample(latency, "_count", method="POST", route="/search", status="200") >= 1
    assert sample(latency, "_sum", method="POST", route="/search", status="200") > 0

    stages = after["memorist_stage_duration_seconds"]
    for operation, stage in [("add", "extract"), ("add", "embed"), ("add", "decide"), ("add", "write")]:
        assert sample(stages, "_count", operation=operation, stage=stage) >= 2, (operation, stage)
    for stage in ("entities", "embed", "vector", "keyword", "fetch"):
        assert sample(stages, "_count", operation="search", stage=stage) >= 1, stage

    memories = server.get("/memories", headers=ADMIN, params={"user_id": "obs-ana"}).json()["count"]
    memories += server.get("/memories", headers=ADMIN, params={"user_id": "obs-ben"}).json()["count"]
    assert sample(after["memorist_memories"]) >= memories >= 2
    assert sample(after["memorist_entities"], type="user") >= 2
    assert sample(after["memorist_queue_events"], status="PENDING") == 0


def test_queue_depth_and_age_count_waiting_adds(server: AppServer) -> None:
    """With no queue worker in this app, a queued add waits: the depth and its age show it."""

    big = " ".join(["Ich mag lange Spaziergänge am Meer."] * 400)  # past sync_add_chars: queued
    resp = server.post(
        "/memories", headers=ADMIN, json={"messages": [{"role": "user", "content": big}], "user_id": "q"}
    )
    assert resp.status_code == 202, resp.text  # queued (past limits.sync_add_chars)
    time.sleep(1.1)
    after = families(server.get("/metrics", headers=ADMIN).text)
    assert sample(after["memorist_queue_events"], status="PENDING") >= 1
    assert sample(after["memorist_queue_oldest_age_seconds"], status="PENDING") >= 1.0


# -- traces ------------------------------------------------------------------------------------


class Collector(http.server.ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver on loopback: what an OpenTelemetry collector's receiver does."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        self.arrived = threading.Event()
        super().__init__(("127.0.0.1", 0), _CollectorHandler)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1/traces"


class _CollectorHandler(http.server.BaseHTTPRequestHandler):
    server: Collector

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
            ExportTraceServiceResponse,
        )

        body = self.rfile.read(int(self.headers["Content-Length"]))
        assert self.path == "/v1/traces" and self.headers["Content-Type"] == "application/x-protobuf"
        request = ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            service = {a.key: a.value.string_value for a in resource_spans.resource.attributes}["service.name"]
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    self.server.spans.append((service, span))
        self.server.arrived.set()
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def collector() -> Iterator[Collector]:
    server = Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_search_is_traced_to_an_otlp_collector(tmp_path: Path, collector: Collector) -> None:
    from memorist.observability import tracing

    env = {
        "MEMORIST_OBSERVABILITY__TRACES": "otlp",
        "MEMORIST_OBSERVABILITY__OTLP_ENDPOINT": collector.endpoint,
        "MEMORIST_OBSERVABILITY__SERVICE_NAME": "memorist-test",
    }
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    try:
        with AppServer(tmp_path / "data", env=env) as srv:
            add(srv, "Kenji repairs old bicycles in Osaka.", "kenji")
            resp = srv.post(
                "/search",
                headers={**ADMIN, "traceparent": f"00-{trace_id}-{parent_id}-01", "X-Request-ID": "req-trace-1"},
                json={"query": "What does Kenji repair?", "user_id": "kenji"},
            )
            assert resp.status_code == 200
            assert tracing.flush()
    finally:
        tracing.shutdown()
    assert collector.arrived.wait(10), "no spans reached the collector"
    spans = [span for service, span in collector.spans if service == "memorist-test"]
    server_span = next(s for s in spans if s.name == "POST /search")
    assert server_span.trace_id.hex() == trace_id  # the caller's trace is continued
    assert server_span.parent_span_id.hex() == parent_id
    attributes = {a.key: a.value for a in server_span.attributes}
    assert attributes["http.route"].string_value == "/search"
    assert attributes["http.response.status_code"].int_value == 200
    assert attributes["memorist.request_id"].string_value == "req-trace-1"
    children = {s.name for s in spans if s.parent_span_id == server_span.span_id}
    assert {"search.embed", "search.vector", "search.keyword"} <= children, children
    add_span = next(s for s in spans if s.name == "POST /memories")
    assert {"add.extract", "add.decide", "add.write"} <= {s.name for s in spans if s.parent_span_id == add_span.span_id}


def test_tracing_off_imports_no_sdk(tmp_path: Path) -> None:
    """The default: no exporter, no tracer, and the SDK is not even imported by the app."""
    import subprocess
    import sys

    code = (
        "import sys; from memorist.testing.inprocess import AppServer; from pathlib import Path;"
        "from memorist.testing.server import ADMIN\n"
        f"with AppServer(Path({str(tmp_path / 'd')!r})) as s:\n"
        "    assert s.post('/search', headers=ADMIN, json={'query': 'x', 'user_id': 'u'}).status_code == 200\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry.sdk')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


# -- JSON logs ----------------------------------------------------------------------------------


def test_json_logs_carry_the_request_id(tmp_path: Path) -> None:
    from memorist.observability import logs

    env = {"MEMORIST_OBSERVABILITY__LOG_FORMAT": "json"}
    stream = io.StringIO()
    try:
        with AppServer(tmp_path / "data", env=env) as srv:
            assert logs._installed is not None  # the app installed the JSON handler on the root logger
            logs._installed.setStream(stream)  # type: ignore[attr-defined]

            class Probe:
                def on_get(self, req: Any, resp: Any) -> None:
                    logging.getLogger("memorist.probe").warning("probe answered", extra={"items": 3})
                    resp.media = {}

            assert srv.app is not None
            srv.app.add_route("/probe", Probe())
            assert srv.get("/probe", headers={"X-Request-ID": "req-json-7"}).status_code == 200
    finally:
        logs.remove()
    lines = [json.loads(line) for line in stream.getvalue().splitlines() if "probe answered" in line]
    assert len(lines) == 1, stream.getvalue()[-2000:]
    entry = lines[0]
    assert entry["request_id"] == "req-json-7" and entry["level"] == "WARNING" and entry["logger"] == "memorist.probe"
    assert entry["items"] == 3 and entry["time"].endswith("+00:00")


# -- gunicorn: several workers, one set of figures ----------------------------------------------


@pytest.mark.process
def test_metrics_sum_every_gunicorn_worker(tmp_path: Path) -> None:
    """``memorist serve`` with 3 workers: whichever worker answers a scrape, it counts every worker's requests,
    even those of workers killed or aborted since (prometheus-client's multiprocess mode)."""
    import requests
    from memorist.testing.server import Server

    srv = Server(tmp_path / "data", workers=3).start()
    try:

        def fresh(path: str, **kwargs: Any) -> requests.Response:
            # A new connection each time, so gunicorn hands requests to different workers.
            return requests.get(
                srv.url + path, headers={"Connection": "close", **kwargs.pop("headers", {})}, timeout=30
            )

        def probe() -> int:
            """1 for a /health a built worker answered: a replacement still building its engine
            answers liveness itself, outside the app and its metrics (docs/startup.md)."""
            answer = fresh("/health")
            assert answer.status_code == 200
            return 1 if answer.json()["ready"] else 0

        served = 0

        for _ in range(30):
            served += probe()
        srv.kill_worker()  # SIGKILL: no exit handlers run
        for _ in range(30):
            served += probe()
        # SIGABRT (what gunicorn's arbiter sends a stuck worker): the worker exits through Python's
        # exit handlers, which must leave the shared directory to the others.
        import os
        import signal

        aborted = srv.worker_pids()[0]
        os.kill(aborted, signal.SIGABRT)
        deadline = time.monotonic() + 60
        while aborted in srv.worker_pids() or len(srv.worker_pids()) < 3:
            assert time.monotonic() < deadline, "the aborted worker was not replaced"
            time.sleep(0.2)
        for _ in range(30):
            served += probe()
        seen = set()
        for _ in range(8):
            text = fresh("/metrics", headers=ADMIN).text
            seen.add(sample(families(text)["memorist_http_requests"], "_total", method="GET", route="/health"))
    finally:
        srv.stop()
    # Each scrape sums the workers' files; the count may only grow by /health probes of the test kit.
    assert served >= 30 and min(seen) >= served, (served, seen)


def test_state_counts_are_reused_for_their_max_age() -> None:
    """Several scrapers inside ``metrics_state_seconds`` cost the stores one read."""
    from memorist.observability.metrics import StateCollector, StateSources

    reads: list[str] = []

    def queue() -> dict[str, tuple[int, Any]]:
        reads.append("queue")
        return {"PENDING": (len(reads), None)}

    collector = StateCollector(StateSources(queue=queue, memories=lambda: 7, entities=dict), max_age=60)
    first = {m.name: m for m in collector.collect()}
    second = {m.name: m for m in collector.collect()}
    assert reads == ["queue"]
    assert first["memorist_queue_events"].samples == second["memorist_queue_events"].samples
    fresh = StateCollector(StateSources(queue=queue, memories=lambda: 7, entities=dict), max_age=0)
    list(fresh.collect())
    list(fresh.collect())
    assert reads == ["queue", "queue", "queue"]
