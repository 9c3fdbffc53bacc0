"""Property-based fuzzing of every documented route with schemathesis, against a real server.

Why: the OpenAPI document is generated from the same pydantic models that
validate requests, so it *claims* to describe every answer. Schemathesis takes
it at its word: it generates valid and invalid requests for each operation
(boundary values in its coverage phase, random ones in its fuzzing phase) and
checks that no answer is a 5xx, that every status code, content type and
(where a schema is declared) body is the documented one, that an operation
declaring ``security`` refuses a request without credentials, and that an
undeclared method answers 405. Afterwards the server must still be healthy
with all its gunicorn workers: a crash that gunicorn silently replaces would
otherwise go unnoticed.

Authentication is chosen per operation from its declared ``security``: the
legacy admin key (``X-API-Key``) for ``user``/``admin`` routes, an admin
dashboard session (Bearer) for ``jwt``-only routes, and a platform OWNER key
(``Authorization: Token``) for the platform surface. ``POST /reset`` is
excluded (it only wipes state; its auth is covered by test_auth_matrix.py).

``MEMORIST_FUZZ_EXAMPLES`` (default 8) bounds the random examples per
operation and generation mode; raise it for a longer run (see the nox command
in the module's report). ``MEMORIST_FUZZ_SEED`` fixes the seed to replay a run.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, Phase, settings  # noqa: E402
from schemathesis import checks as st_checks  # noqa: E402

from .server import ADMIN, Server, bearer  # noqa: E402

pytestmark = pytest.mark.slow

# Read at import: the autouse ``clean_env`` fixture removes MEMORIST_* variables before each test runs.
EXAMPLES = int(os.environ.get("MEMORIST_FUZZ_EXAMPLES", "8"))
SEED = os.environ.get("MEMORIST_FUZZ_SEED")
EXCLUDED = {("POST", "/reset")}
CHECKS = [
    st_checks.not_a_server_error,
    st_checks.status_code_conformance,
    st_checks.content_type_conformance,
    st_checks.response_headers_conformance,
    st_checks.response_schema_conformance,
    st_checks.negative_data_rejection,
    st_checks.ignored_auth,
    st_checks.unsupported_method,
]
ORG, PROJECT = "fuzzorg", "fuzzproj"


class Credentials:
    """Headers per declared security scheme, so each operation is called as a principal it admits."""

    def __init__(self, admin_token: str, platform_key: str) -> None:
        self.admin_token = admin_token
        self.platform_key = platform_key

    def for_operation(self, security: list[dict[str, Any]]) -> dict[str, str]:
        schemes = {name for requirement in security for name in requirement}
        if "platformToken" in schemes:
            return {"Authorization": f"Token {self.platform_key}"}
        if "apiKeyAuth" in schemes:
            return dict(ADMIN)
        if "bearerAuth" in schemes:
            return bearer(self.admin_token)
        return {}


def worker_pids(server: Server) -> set[int]:
    """The gunicorn workers: children of the master process (``pgrep -P``)."""
    assert server.process is not None
    out = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True, text=True, check=False)
    return {int(pid) for pid in out.stdout.split()}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # A high login/register budget: the fuzzer calls them hundreds of times from one address.
    srv = Server(tmp_path_factory.mktemp("fuzz") / "data", env={"MEMORIST_AUTH__LOGIN_ATTEMPTS": "1000000"},
                 workers=2).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def credentials(server: Server) -> Credentials:
    """The admin session, a platform OWNER key, and a little data so list/search answers are not all empty."""
    registered = server.post("/auth/register", json={"name": "Fuzz", "email": "fuzz@example.com",
                                                     "password": "fuzz-password"})
    assert registered.status_code == 201, registered.text
    tenant = server.post("/api/v1/admin/bootstrap/", headers=ADMIN, json={
        "org_name": "Fuzz", "project_name": "Fuzz", "email": "owner@fuzz.test", "org_id": ORG, "project_id": PROJECT})
    assert tenant.status_code == 201, tenant.text
    creds = Credentials(registered.json()["access_token"], tenant.json()["key"])
    seeded = server.post("/memories", headers=ADMIN, json={
        "messages": [{"role": "user", "content": "I like green tea."}], "user_id": "fuzz", "infer": False})
    assert seeded.status_code == 200, seeded.text
    platform = server.post("/v3/memories/add/", headers=creds.for_operation([{"platformToken": []}]), json={
        "messages": [{"role": "user", "content": "I like black tea."}], "user_id": "fuzz", "infer": False})
    assert platform.status_code == 200, platform.text
    return creds


@pytest.fixture(scope="module")
def workers_before(server: Server) -> set[int]:
    pids = worker_pids(server)
    assert len(pids) == server.workers, pids
    return pids


@pytest.fixture(scope="module")
def api_schema(server: Server, credentials: Credentials, workers_before: set[int]) -> Any:
    """The live document, loaded the way a client would (``/openapi.json`` needs no credentials)."""
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    if SEED is not None:
        schema.config.update(seed=int(SEED))
    return schema.exclude(func=lambda ctx: (ctx.operation.method.upper(), ctx.operation.path) in EXCLUDED)


lazy_schema = schemathesis.pytest.from_fixture("api_schema")


@lazy_schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=SEED is None,
          suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
def test_every_operation_answers_as_documented(case: Any, credentials: Credentials) -> None:
    """No 5xx, documented status/content type/body, auth enforced, 405 for undeclared methods."""
    headers = credentials.for_operation(case.operation.definition.raw.get("security", []))
    case.call_and_validate(headers=headers, checks=CHECKS, timeout=30)


def test_server_survived_the_fuzzing(server: Server, workers_before: set[int]) -> None:
    """Runs after the fuzz test (file order): the same workers serve, none crashed and was replaced."""
    resp = server.get("/health")
    assert resp.status_code == 200, resp.text
    assert resp.json()["status"] in ("ok", "healthy"), resp.json()
    assert server.process is not None and server.process.poll() is None
    after = worker_pids(server)
    assert after == workers_before, f"workers changed: before {workers_before}, after {after}\n{server.output()[-4000:]}"
    assert "Traceback" not in server.output(), server.output()[-4000:]
