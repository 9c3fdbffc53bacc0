"""Property-based fuzzing of every documented route with schemathesis, against a real server.

Why: ``/openapi.json`` is generated from the pydantic models that validate
requests, so it *claims* to describe every answer. Schemathesis takes it at its
word: for each operation it sends boundary values (coverage phase) and random
valid and invalid requests (fuzzing phase), and checks that no answer is a 5xx,
that each status code, content type and (where a schema is declared) body is
the documented one, that an operation declaring ``security`` refuses a request
without credentials, and that an undeclared method answers 405. Afterwards the
server must be healthy with the *same* gunicorn workers: a worker that crashed
and was silently replaced would otherwise go unnoticed.

Random path ids almost never exist, so the fuzzer mostly sees 404s and empty
lists; a second test calls every read route with real ids and checks those
bodies against their declared schemas too.

How it runs: the schemathesis CLI (``python -m schemathesis.cli run``, through
``tests/schemathesis_cli.py``, which closes a CPython 3.11 thread race) in a
subprocess, with a config file written from the live document: each
operation gets the credentials its declared ``security`` admits (legacy admin
key for ``user``/``admin`` routes, an admin Bearer session for ``jwt``-only
routes, a platform OWNER key for ``platformToken`` routes). The CLI rather than
``schemathesis.pytest.from_fixture`` because the latter reads
``request.node._nodeid``, which pytest 9.2 no longer has.

Excluded: ``POST /reset`` (it only wipes everything; its authorization is in
test_auth_matrix.py), the ``/users/{user_id}`` writes, ``/auth/logout`` and the platform project DELETE
(see ``EXCLUDED_NAMES``).
Checks left out, on purpose: ``positive_data_acceptance``
(cross-field rules such as "one of user_id/agent_id/run_id/app_id", or the
password policy, are documented 400s a JSON schema cannot express) and
``negative_data_rejection`` (pydantic's lax mode accepts ``0`` for ``false``,
and the platform models ignore unknown fields for the existing client).

Knobs (read at import; ``clean_env`` removes MEMORIST_* before each test):
``MEMORIST_FUZZ_EXAMPLES`` (random examples per operation, default 10),
``MEMORIST_FUZZ_SEED`` (default fixed, so CI is reproducible),
``MEMORIST_FUZZ_PHASES`` (default ``examples,coverage,fuzzing``), ``MEMORIST_FUZZ_TIMEOUT`` (seconds for
the schemathesis run, default 270; raise pytest's ``--timeout`` with it for long runs).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.testing.server import ADMIN, Server, bearer

schemathesis = pytest.importorskip("schemathesis")


EXAMPLES = int(os.environ.get("MEMORIST_FUZZ_EXAMPLES", "10"))
SEED = int(os.environ.get("MEMORIST_FUZZ_SEED", "20240611"))
PHASES = os.environ.get("MEMORIST_FUZZ_PHASES", "examples,coverage,fuzzing")
#: Wall-clock bound of the schemathesis run; under pytest-timeout's 300 s so its report is not lost.
TIMEOUT = int(os.environ.get("MEMORIST_FUZZ_TIMEOUT", "270"))
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "ignored_auth",
    "unsupported_method",
)
EXCLUDED_PATHS = ("/reset", "/auth/logout")
#: Calls that end the run's own principals: schemathesis reuses the ids it saw in ``GET /users`` and
#: would delete or disable the platform key's owner mid-run, and ``POST /auth/logout`` signs out the
#: admin session every jwt route is fuzzed with. It also reuses the org and project ids it saw, and
#: with the OWNER key it is fuzzed with, deleting the run's own project (a CI run did, depending on
#: how its two threads interleaved) leaves the real-answers test below without a tenant. Their
#: answers and rules are tested in test_auth_matrix.py, test_security_accounts.py and
#: test_platform_projects.py.
EXCLUDED_NAMES = (
    "DELETE /users/{user_id}",
    "PATCH /users/{user_id}",
    "POST /users/{user_id}/password",
    "POST /auth/logout",
    "DELETE /api/v1/orgs/organizations/{org_id}/projects/{project_id}/",
)
ORG, PROJECT = "fuzzorg", "fuzzproj"


def worker_pids(server: Server) -> set[int]:
    """The gunicorn workers: the master's children (``pgrep -P``)."""
    assert server.process is not None
    out = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True, text=True, check=False)
    return {int(pid) for pid in out.stdout.split()}


class Credentials:
    """One principal per security scheme, so each operation is called as someone it admits."""

    def __init__(self, admin_token: str, platform_key: str) -> None:
        self.admin_token = admin_token
        self.platform_key = platform_key

    @property
    def platform(self) -> dict[str, str]:
        return {"Authorization": f"Token {self.platform_key}"}

    def for_security(self, security: list[dict[str, Any]]) -> dict[str, str]:
        schemes = {name for requirement in security for name in requirement}
        if "platformToken" in schemes:
            return self.platform
        if "apiKeyAuth" in schemes:
            return dict(ADMIN)
        if "bearerAuth" in schemes:
            return bearer(self.admin_token)
        return {}


def toml_table(values: dict[str, str]) -> str:
    """An inline TOML table; JSON string escapes are valid TOML basic-string escapes."""
    return "{ " + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in values.items()) + " }"


def write_config(target: Path, document: dict[str, Any], credentials: Credentials) -> None:
    """A schemathesis.toml giving each operation the headers its declared ``security`` admits."""
    lines = ["[generation]", f"max-examples = {EXAMPLES}", 'database = "none"', "", "[cache]", "enabled = false", ""]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            headers = credentials.for_security(operation.get("security", []))
            if headers:
                lines += [
                    "[[operations]]",
                    f"include-name = {json.dumps(f'{method.upper()} {path}')}",
                    f"headers = {toml_table(headers)}",
                    "",
                ]
    target.write_text("\n".join(lines))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # A high login/register budget: the fuzzer calls them many times from one address, and the
    # rate limit's 429 would hide every other answer of those routes.
    srv = Server(
        tmp_path_factory.mktemp("fuzz") / "data",
        # The fuzzer logs in and exports far more often than a person would: budgets raised (their
        # limits are tested in test_security_accounts and test_export_quotas).
        env={
            "MEMORIST_AUTH__LOGIN_ATTEMPTS": "1000000",
            "MEMORIST_AUTH__LOGIN_ADDRESS_ATTEMPTS": "1000000",
            "MEMORIST_EXPORTS__PER_HOUR": "100000",
        },
        workers=2,
    ).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def workers_before(server: Server) -> set[int]:
    pids = worker_pids(server)
    assert len(pids) == server.workers, pids
    return pids


@pytest.fixture(scope="module")
def credentials(server: Server) -> Credentials:
    registered = server.post(
        "/auth/register", json={"name": "Fuzz", "email": "fuzz@example.com", "password": "fuzz-password"}
    )
    assert registered.status_code == 201, registered.text
    tenant = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={
            "org_name": "Fuzz",
            "project_name": "Fuzz",
            "email": "owner@fuzz.test",
            "org_id": ORG,
            "project_id": PROJECT,
        },
    )
    assert tenant.status_code == 201, tenant.text
    return Credentials(registered.json()["access_token"], tenant.json()["key"])


def test_schemathesis_finds_no_failure(
    server: Server, credentials: Credentials, workers_before: set[int], tmp_path: Path
) -> None:
    """Every operation, every phase: no 5xx and every answer as the document says."""
    config = tmp_path / "schemathesis.toml"
    write_config(config, server.get("/openapi.json").json(), credentials)
    command = [
        sys.executable,
        str(Path(__file__).resolve().parents[1] / "schemathesis_cli.py"),  # the CLI, with a CPython 3.11 race closed
        "--no-color",
        "--config-file",
        str(config),
        "run",
        f"{server.url}/openapi.json",
        "--checks",
        ",".join(CHECKS),
        "--phases",
        PHASES,
        "--seed",
        str(SEED),
        "--workers",
        "2",
        "--request-timeout",
        "30",
        "--continue-on-failure",
        "--suppress-health-check",
        "all",
        "--report",
        "junit",
        "--report-junit-path",
        str(tmp_path / "junit.xml"),
        *(arg for path in EXCLUDED_PATHS for arg in ("--exclude-path", path)),
        *(arg for name in EXCLUDED_NAMES for arg in ("--exclude-name", name)),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMATHESIS_")}
    started = time.monotonic()
    # cwd: the CLI keeps a cache and a hypothesis directory where it runs; not in the repository.
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env={**env, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    output = done.stdout + done.stderr
    summary = output[output.rfind("SUMMARY") :] if "SUMMARY" in output else output[-3000:]
    print(f"schemathesis: {time.monotonic() - started:.0f}s, {EXAMPLES} examples, seed {SEED}\n{summary}")
    assert done.returncode == 0, f"schemathesis found failures (seed {SEED}):\n{output[-20000:]}"
    selected = re.search(r"Selected:\s*(\d+)", output)
    tested = re.search(r"Tested:\s*(\d+)", output)
    assert selected and tested and int(tested.group(1)) == int(selected.group(1)) >= 50, summary


def _seed(server: Server, credentials: Credentials) -> dict[str, str]:
    """Real ids for the read routes: a self-hosted memory, a platform memory, an event, an export."""
    added = server.post(
        "/memories",
        headers=ADMIN,
        json={
            "messages": [{"role": "user", "content": "I like green tea with jasmine."}],
            "user_id": "conform",
            "metadata": {"topic": "tea"},
            "infer": False,
        },
    )
    assert added.status_code == 200, added.text
    platform = server.post(
        "/v3/memories/add/",
        headers=credentials.platform,
        json={"messages": [{"role": "user", "content": "I like black tea."}], "user_id": "conform", "infer": False},
    )
    assert platform.status_code == 200, platform.text
    queued = server.post(
        "/v3/memories/add/",
        headers=credentials.platform,
        json={"messages": [{"role": "user", "content": "My sister Maya lives in Porto."}], "user_id": "conform"},
    )
    assert queued.status_code == 200, queued.text
    export = server.post("/v1/exports/", headers=credentials.platform, json={"filters": {"user_id": "conform"}})
    assert export.status_code == 201, export.text
    key = server.post("/api-keys", headers=bearer(credentials.admin_token), json={"label": "conform"})
    assert key.status_code == 201, key.text
    return {
        "memory": added.json()["results"][0]["id"],
        "platform_memory": platform.json()["results"][0]["id"],
        "event": queued.json()["event_id"],
        "export": export.json()["id"],
        "key": key.json()["id"],
    }


def test_real_answers_match_their_schemas(server: Server, credentials: Credentials) -> None:
    """2xx bodies built from real rows (not the fuzzer's empty lists) conform to the declared schemas."""
    # The fuzzer reuses ids it saw and is admin: it may have reset the admin's password through
    # POST /users/{id}/password, which ends every session at once. Set it back and log in again.
    admin_id = next(u["id"] for u in server.get("/users", headers=ADMIN).json() if u["email"] == "fuzz@example.com")
    reset = server.post(f"/users/{admin_id}/password", headers=ADMIN, json={"password": "fuzz-password"})
    assert reset.status_code == 200, reset.text
    login = server.post("/auth/login", json={"email": "fuzz@example.com", "password": "fuzz-password"})
    assert login.status_code == 200, login.text
    credentials.admin_token = login.json()["access_token"]
    ids = _seed(server, credentials)
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    project = "/api/v1/orgs/organizations/{org_id}/projects/{project_id}"
    ours = {"path_parameters": {"org_id": ORG, "project_id": PROJECT}}
    tea = {"query": "tea", "threshold": 0.0, "explain": True}
    calls: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", "/memories", {"query": {"user_id": "conform"}}),
        ("GET", "/memories/{memory_id}", {"path_parameters": {"memory_id": ids["memory"]}}),
        (
            "PUT",
            "/memories/{memory_id}",
            {"path_parameters": {"memory_id": ids["memory"]}, "body": {"metadata": {"topic": "tea", "checked": True}}},
        ),
        ("GET", "/memories/{memory_id}/history", {"path_parameters": {"memory_id": ids["memory"]}}),
        ("POST", "/search", {"body": {**tea, "user_id": "conform"}}),
        ("GET", "/entities", {}),
        ("GET", "/requests", {"query": {"limit": 20}}),
        ("GET", "/configure", {}),
        ("GET", "/configure/providers", {}),
        ("GET", "/auth/setup-status", {}),
        ("GET", "/auth/users", {}),
        ("GET", "/auth/me", {}),
        ("GET", "/api-keys", {}),
        ("DELETE", "/api-keys/{key_id}", {"path_parameters": {"key_id": ids["key"]}}),
        ("POST", "/auth/login", {"body": {"email": "fuzz@example.com", "password": "fuzz-password"}}),
        ("GET", "/v1/ping/", {}),
        ("GET", project + "/", ours),
        ("GET", project + "/members/", ours),
        ("POST", "/v3/memories/", {"body": {"filters": {"user_id": "conform"}}}),
        ("POST", "/v3/memories/search/", {"body": {**tea, "filters": {"user_id": "conform"}}}),
        ("GET", "/v1/memories/{memory_id}/", {"path_parameters": {"memory_id": ids["platform_memory"]}}),
        ("GET", "/v1/memories/{memory_id}/history/", {"path_parameters": {"memory_id": ids["platform_memory"]}}),
        ("GET", "/v1/entities/", {}),
        ("GET", "/v1/events/", {}),
        ("GET", "/v1/event/{event_id}/", {"path_parameters": {"event_id": ids["event"]}}),
        ("POST", "/v1/feedback/", {"body": {"memory_id": ids["platform_memory"], "feedback": "POSITIVE"}}),
        ("POST", "/v1/exports/get/", {"body": {"memory_export_id": ids["export"]}}),
        ("POST", "/v1/summary/", {"body": {"filters": {"user_id": "conform"}}}),
        ("GET", "/api/v1/admin/keys/", {}),
    ]
    checks = [
        schemathesis.checks.status_code_conformance,
        schemathesis.checks.content_type_conformance,
        schemathesis.checks.response_schema_conformance,
    ]
    problems: list[str] = []
    for method, path, parts in calls:
        operation = schema[path][method]
        headers = credentials.for_security(operation.definition.raw.get("security", []))
        case = operation.Case(**parts)
        response = case.call(headers=headers, timeout=30)
        if not 200 <= response.status_code < 300:
            problems.append(f"{method} {path}: {response.status_code} {response.text[:300]}")
            continue
        try:
            case.validate_response(response, checks=checks, headers=headers)
        except AssertionError as exc:  # schemathesis' FailureGroup is an AssertionError
            problems.append(f"{method} {path}: {exc}")
    assert not problems, "\n\n".join(problems)


def test_server_survived(server: Server, workers_before: set[int]) -> None:
    """Runs last (file order): healthy, the same workers (none crashed and was replaced), nothing unhandled."""
    resp = server.get("/health")
    assert resp.status_code == 200 and resp.json()["status"] == "ok", resp.text
    assert server.process is not None and server.process.poll() is None
    after = worker_pids(server)
    log = server.output()
    assert after == workers_before, f"gunicorn workers changed: {workers_before} -> {after}\n{log[-4000:]}"
    assert "Traceback" not in log and "unhandled error" not in log, log[-6000:]
    assert "WORKER TIMEOUT" not in log, log[-4000:]
