"""``@operation`` is enforced: it parses what it declares, every operation declares its answer.

In process (``falcon.testing.TestClient``): the document is read from a real app
with every built-in plugin's routes (the webhooks plugin included).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from memorist.config.settings import load_settings
from memorist.http import create_app
from memorist.http.declaration import operation, operations_of
from memorist.kernel.core import Kernel
from memorist.plugin.manager import load_plugins

from tests.conftest import ROOT, fast_settings
from tests.plugins import hashing

HTTP = ROOT / "framework" / "memorist" / "http"


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("openapi")
    settings = load_settings(None, fast_settings(tmp, queue={"workers": 0}))
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]))
    client = falcon.testing.TestClient(create_app(kernel))
    yield client.simulate_get("/openapi.json").json
    kernel.close()


def _empty_schemas(node: Any, where: str = "") -> Iterator[str]:
    """Every place the document holds ``{}`` as a schema (a schema that says nothing)."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{where}/{key}"
            if key in ("schema", "items", "additionalProperties") and value == {}:
                yield here
            if key == "properties" and isinstance(value, dict):
                yield from (f"{here}/{name}" for name, prop in value.items() if prop == {})
            yield from _empty_schemas(value, here)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _empty_schemas(value, f"{where}/{i}")


def test_every_operation_documents_its_answer(document: dict[str, Any]) -> None:
    assert "/api/v1/webhooks/{webhook_id}/" in document["paths"]  # plugin routes are checked too
    for path, methods in document["paths"].items():
        for method, doc in methods.items():
            ok = [v for k, v in doc["responses"].items() if k.startswith("2")]
            assert ok and ok[0]["content"]["application/json"]["schema"], f"{method.upper()} {path}"
    assert list(_empty_schemas(document)) == []


def test_configure_root_and_health_have_schemas_and_configure_takes_a_body(document: dict[str, Any]) -> None:
    paths = document["paths"]
    for path, method in (("/", "get"), ("/health", "get"), ("/configure", "get"), ("/configure", "post")):
        schema = paths[path][method]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema.get("$ref"), (path, method)
    body = paths["/configure"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/ConfigurePatch"}
    assert "embedder" in document["components"]["schemas"]["ConfigurePatch"]["properties"]


def test_the_drift_the_issue_listed_is_gone(document: dict[str, Any]) -> None:
    paths = document["paths"]
    member_delete = paths["/api/v1/orgs/organizations/{org_id}/projects/{project_id}/members/"]["delete"]
    assert {"name": "email", "in": "query"}.items() <= next(
        p for p in member_delete["parameters"] if p["name"] == "email"
    ).items()
    one_memory_delete = paths["/v1/memories/{memory_id}/"]["delete"]
    # It reads one query parameter, the client's ``delete_linked``.
    assert [(p["in"], p["name"]) for p in one_memory_delete["parameters"]] == [
        ("path", "memory_id"),
        ("query", "delete_linked"),
    ]
    patch = paths["/api/v1/orgs/organizations/{org_id}/projects/{project_id}/"]["patch"]
    assert patch["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/ProjectPatch")


def test_an_operation_without_a_response_model_is_refused() -> None:
    with pytest.raises(TypeError, match="response"):
        operation("no answer", auth="open")  # type: ignore[call-arg]


def test_the_responder_receives_the_parsed_body_and_query(tmp_path: Path) -> None:
    """The declared models are what the responder gets; invalid input never reaches it."""
    from pydantic import BaseModel, Field

    class Body(BaseModel):
        name: str = Field(min_length=2)

    class Query(BaseModel):
        n: int = 1

    seen: list[tuple[Body, Query]] = []

    class Echo:
        @operation("echo", auth="open", body=Body, query=Query, response=Body)
        def on_post(self, req: falcon.Request, resp: falcon.Response, body: Body, query: Query) -> None:
            seen.append((body, query))
            resp.media = body.model_dump()

    app = falcon.App()
    app.add_route("/echo", Echo())
    from memorist.http import errors

    errors.install(app)
    client = falcon.testing.TestClient(app)
    ok = client.simulate_post("/echo", json={"name": "Ana"}, params={"n": "3"})
    assert ok.status_code == 200 and seen == [(Body(name="Ana"), Query(n=3))]
    bad = client.simulate_post("/echo", json={"name": "A"})
    assert bad.status_code == 422 and bad.json["detail"].startswith("name:")
    assert client.simulate_post("/echo", body="[1]", content_type="application/json").status_code == 400
    # A body not declared JSON is not read (a web page can send text/plain cross-site without a preflight).
    plain = client.simulate_post("/echo", body='{"name": "Ana"}', content_type="text/plain")
    assert plain.status_code == 415 and "application/json" in plain.json["detail"]
    assert len(seen) == 1


def test_no_responder_reads_the_request_by_hand() -> None:
    """Only ``@operation`` parses: resources never call the parsing helpers or read the body themselves."""
    offenders = []
    for path in sorted(HTTP.rglob("*.py")) + sorted((ROOT / "plugins").rglob("routes.py")):
        if path.name in ("parsing.py", "declaration.py"):
            continue
        text = path.read_text()
        for pattern in (r"\bparsing\.\w+\(", r"req\.(media|bounded_stream|stream|get_param\w*)\b", r"read_json\("):
            offenders += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in re.finditer(pattern, text)]
    assert offenders == []


def test_every_route_of_the_app_declares_a_response(tmp_path: Path) -> None:
    settings = load_settings(None, fast_settings(tmp_path, queue={"workers": 0}))
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]))
    try:
        app = create_app(kernel)
        resources = [node.resource for node in _nodes(app._router._roots) if node.resource is not None]
        declared = [op for r in resources for op in operations_of(r).values()]
        assert len(declared) > 60
        assert all(op.response is not None for op in declared)
    finally:
        kernel.close()


def _nodes(nodes: list[Any]) -> Iterator[Any]:
    for node in nodes:
        yield node
        yield from _nodes(node.children)
