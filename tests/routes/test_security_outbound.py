"""``POST /configure`` and outbound requests under attack (issue 14 items 6, 8, 14, 16, 17): real doors."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import falcon.testing
import pytest
from click.testing import CliRunner
from memorist.cli import cli
from memorist.outbound import OutboundGuard, OutboundRefused
from memorist_webhooks.dispatcher import post

from tests.security_kit import ADMIN_HEADERS, JWT, bearer, client, make_user, register_admin, settings_for


@pytest.fixture
def c(tmp_path: Path) -> falcon.testing.TestClient:
    return client(tmp_path / "data")


@pytest.fixture(scope="module")
def refusing(tmp_path_factory: pytest.TempPathFactory) -> falcon.testing.TestClient:
    """One app for the ``/configure`` refusals: each case reads the configuration before and after
    its own request, so a case that changed it fails itself, and none needs a fresh app."""
    return client(tmp_path_factory.mktemp("refusing") / "data")


def platform_key(c: falcon.testing.TestClient, project_id: str = "proj_hooks") -> dict[str, str]:
    made = c.simulate_post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN_HEADERS,
        json={
            "org_name": "Org",
            "project_name": "Hooks",
            "email": "owner@example.com",
            "org_id": "org_hooks",
            "project_id": project_id,
        },
    )
    assert made.status_code == 201, made.text
    return {"Authorization": f"Token {made.json['key']}"}


# -- 6: /configure cannot reach the server's secrets, files or network ---------------------


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        (
            {"language_model": {"provider": "openai", "options": {"model": "m", "api_key_env": "JWT_SECRET"}}},
            "language_model.options.api_key_env",
        ),
        (
            {"embedder": {"provider": "openai", "options": {"model": "m", "api_key_env": "MEMORIST_AUTH__JWT_SECRET"}}},
            "embedder.options.api_key_env",
        ),
        (
            {"language_model": {"provider": "openai", "options": {"model": "m", "api_key_env": "HOME"}}},
            "language_model.options.api_key_env",
        ),
        (
            {"language_model": {"provider": "openai", "options": {"model": "m", "api_key_file": "/etc/hostname"}}},
            "language_model.options.api_key_file",
        ),
        ({"vector_store": {"options": {"path": "/proc/self"}}}, "vector_store.options.path"),
        ({"vector_store": {"options": {"path": "../../elsewhere"}}}, "vector_store.options.path"),
        (
            {
                "language_model": {
                    "provider": "openai",
                    "options": {"model": "m", "base_url": "http://169.254.169.254/"},
                }
            },
            "language_model.options.base_url",
        ),
        (
            {"language_model": {"provider": "openai", "options": {"model": "m", "base_url": "http://0x7f000001:1/v1"}}},
            "language_model.options.base_url",
        ),
        (
            {"embedder": {"provider": "openai", "options": {"model": "m", "base_url": "http://[::1]:8080/v1"}}},
            "embedder.options.base_url",
        ),
        (
            {"language_model": {"provider": "openai", "options": {"model": "m", "base_url": "http://localhost/v1"}}},
            "language_model.options.base_url",
        ),
        ({"vector_store": {"provider": "pgvector", "options": {"url": "postgresql://x@10.0.0.1/db"}}}, "options.url"),
        ({"language_model": None}, "language_model"),
        ({"language_model": "openai"}, "language_model"),
        ({"language_model": {"provider": 5}}, "language_model.provider"),
        ({"embedder": {"options": ["dimension", 3]}}, "embedder.options"),
        ({"engine": 5}, "engine"),
        ({"engine": {"candidate_pool": "many"}}, "engine.candidate_pool"),
    ],
)
def test_configure_refuses_secrets_files_paths_internal_urls_and_malformed_sections(
    refusing: falcon.testing.TestClient, patch: dict[str, Any], field: str
) -> None:
    c = refusing
    before = c.simulate_get("/configure", headers=ADMIN_HEADERS).json
    resp = c.simulate_post("/configure", headers=ADMIN_HEADERS, json=patch)
    assert resp.status_code in (400, 422), resp.text  # 422: the body's shape; 400: the policy
    assert field in resp.json["detail"]
    assert c.simulate_get("/configure", headers=ADMIN_HEADERS).json == before


def test_configure_secret_never_reaches_an_attacker_server(tmp_path: Path) -> None:
    """The reported attack end to end: nothing is sent, whatever the base URL."""
    received: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            received.append(self.headers.get("Authorization", ""))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    attacker = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    try:
        c = client(tmp_path / "data")
        url = f"http://127.0.0.1:{attacker.server_address[1]}/v1"
        resp = c.simulate_post(
            "/configure",
            headers=ADMIN_HEADERS,
            json={"language_model": {"provider": "openai", "options": {"model": "m", "base_url": url}}},
        )
        assert resp.status_code == 400 and "internal address" in resp.json["detail"]
        c.simulate_post(
            "/memories",
            headers=ADMIN_HEADERS,
            json={"messages": [{"role": "user", "content": "I like tea"}], "user_id": "u"},
        )
        assert not any(JWT in header for header in received)
        assert received == []
    finally:
        attacker.shutdown()


def test_operator_allow_list_admits_a_local_provider(tmp_path: Path) -> None:
    c = client(tmp_path / "data", security={"outbound_allow": ["127.0.0.0/8"]})
    resp = c.simulate_post(
        "/configure",
        headers=ADMIN_HEADERS,
        json={"language_model": {"provider": "openai", "options": {"model": "m", "base_url": "http://127.0.0.1:9/v1"}}},
    )
    assert resp.status_code == 200, resp.text
    inside = c.simulate_post(
        "/configure", headers=ADMIN_HEADERS, json={"vector_store": {"options": {"path": "lance2"}}}
    )
    assert inside.status_code == 200, inside.text
    # A relative store path is where the policy checked it: in the data directory, not the
    # server's working directory.
    assert (tmp_path / "data" / "lance2").is_dir()
    assert not (Path.cwd() / "lance2").exists()


def test_configure_key_file_inside_an_allowed_directory(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "openai").write_text("sk-test\n")
    # The key file's destination is one the deployer lists (issue 39: keys go only to their own origins).
    security = {
        "configure_key_dirs": [str(keys)],
        "outbound_allow": ["127.0.0.1"],
        "provider_key_origins": ["http://127.0.0.1:9"],
    }
    c = client(tmp_path / "data", security=security)
    options = {"model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key_file": str(keys / "openai")}
    elsewhere = {**options, "base_url": "http://127.0.0.1:10/v1"}
    refused = c.simulate_post(
        "/configure", headers=ADMIN_HEADERS, json={"language_model": {"provider": "openai", "options": elsewhere}}
    )
    assert refused.status_code == 400 and "provider_key_origins" in refused.json["detail"]
    ok = c.simulate_post(
        "/configure", headers=ADMIN_HEADERS, json={"language_model": {"provider": "openai", "options": options}}
    )
    assert ok.status_code == 200, ok.text
    escape = {**options, "api_key_file": str(keys / ".." / "data" / "memorist.db")}
    bad = c.simulate_post(
        "/configure", headers=ADMIN_HEADERS, json={"language_model": {"provider": "openai", "options": escape}}
    )
    assert bad.status_code == 400 and "api_key_file" in bad.json["detail"]


# -- 8: webhooks ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]:8080/hook",
        "http://0x7f000001/hook",
        "http://2130706433/hook",
        "http://localhost/hook",
        "http://127.0.0.1:9000/hook",
        "http://10.0.0.5/hook",
        "http://[::ffff:127.0.0.1]/hook",
    ],
)
def test_webhooks_to_internal_addresses_are_refused(c: falcon.testing.TestClient, url: str) -> None:
    owner = platform_key(c)
    resp = c.simulate_post(
        "/api/v1/webhooks/projects/proj_hooks/",
        headers=owner,
        json={"name": "ssrf", "url": url, "event_types": ["memory_add"]},
    )
    assert resp.status_code == 400, resp.text
    assert "url" in resp.json["detail"]
    assert c.simulate_get("/api/v1/webhooks/projects/proj_hooks/", headers=owner).json == []


def test_webhook_url_changed_to_an_internal_address_is_refused(tmp_path: Path) -> None:
    c = client(tmp_path / "data", security={"outbound_allow": ["127.0.0.1"]})
    owner = platform_key(c)
    made = c.simulate_post(
        "/api/v1/webhooks/projects/proj_hooks/",
        headers=owner,
        json={"name": "ok", "url": "http://127.0.0.1:9/hook", "event_types": ["memory_add"]},
    )
    assert made.status_code == 201, made.text
    moved = c.simulate_put(
        f"/api/v1/webhooks/{made.json['webhook_id']}/", headers=owner, json={"url": "http://169.254.169.254/"}
    )
    assert moved.status_code == 400 and "169.254.169.254" in moved.json["detail"]


def test_stored_internal_webhook_is_not_delivered_nor_retried(tmp_path: Path) -> None:
    """A webhook already stored with an internal URL (or whose host now resolves inside) gets nothing."""
    from memorist.db import Database
    from memorist_webhooks.config import DeliveryPolicy
    from memorist_webhooks.deliveries import FAILED, DeliveryQueue
    from memorist_webhooks.store import WebhookStore

    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        c = client(tmp_path / "data", queue={"workers": 1, "poll_seconds": 0.05})
        owner = platform_key(c)
        db = Database(settings_for(tmp_path / "data").database_url)
        hook = WebhookStore(db).create(
            "proj_hooks", "legacy", f"http://127.0.0.1:{receiver.server_address[1]}/x", ["memory_add"]
        )
        added = c.simulate_post(
            "/v3/memories/add/",
            headers=owner,
            json={"messages": [{"role": "user", "content": "I live in Lisbon"}], "user_id": "u", "async_mode": False},
        )
        assert added.status_code == 200, added.text
        queue = DeliveryQueue(db, DeliveryPolicy())
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            done = [d for d in queue.for_webhook(hook.id) if d.status == FAILED]
            if done:
                break
            time.sleep(0.1)
        assert done, queue.for_webhook(hook.id)
        assert done[0].attempts == 1 and "internal address" in (done[0].last_error or "")
        assert hits == []
    finally:
        receiver.shutdown()


def test_delivery_connects_to_the_checked_address_not_a_second_lookup() -> None:
    """Resolve-then-connect: the name is resolved once, checked, and that address is used with its Host header."""
    seen: list[tuple[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            seen.append((self.headers["Host"], self.rfile.read(int(self.headers["Content-Length"])).decode()))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = receiver.server_address[1]
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    answers = iter([["127.0.0.1"], ["169.254.169.254"]])  # a rebinding DNS: the second answer is hostile
    lookups: list[str] = []

    def resolver(host: str, _port: int) -> list[str]:
        lookups.append(host)
        return next(answers)

    try:
        guard = OutboundGuard(["hooks.example"], resolver=resolver)
        assert post(f"http://hooks.example:{port}/in", b'{"a":1}', {}, 5, guard) == 204
        assert seen == [(f"hooks.example:{port}", '{"a":1}')] and lookups == ["hooks.example"]
        strict = OutboundGuard([], resolver=lambda h, p: ["10.1.2.3"])
        with pytest.raises(OutboundRefused, match="10.1.2.3"):
            post("http://innocent.example/in", b"{}", {}, 5, strict)
    finally:
        receiver.shutdown()


# -- 14: credentials shown -----------------------------------------------------------------


def test_configure_view_hides_url_credentials_from_everyone(tmp_path: Path) -> None:
    c = client(
        tmp_path / "data",
        language_model={
            "provider": "openai",
            "options": {"model": "m", "base_url": "http://proxyuser:hunter2secret@127.0.0.1:9/v1"},
        },
    )
    register_admin(c)
    bob = make_user(c, "bob@example.com")
    for headers in (bearer(bob["access_token"]), ADMIN_HEADERS):
        shown = c.simulate_get("/configure", headers=headers)
        assert shown.status_code == 200
        assert "hunter2secret" not in shown.text
        assert shown.json["language_model"]["options"]["base_url"] == "http://proxyuser:**********@127.0.0.1:9/v1"


def test_config_show_masks_the_database_password(tmp_path: Path) -> None:
    env = {
        "MEMORIST_DATA_DIR": str(tmp_path / "data"),
        "MEMORIST_DATABASE__URL": "postgresql+psycopg://memorist:db-pass-12345@db.internal:5432/memorist",
        "MEMORIST_EMBEDDER__PROVIDER": "hashing",
        "MEMORIST_PLUGIN_MODULES": "tests.plugins.hashing",
        "JWT_SECRET": JWT,
    }
    result = CliRunner().invoke(cli, ["config", "show"], env=env)
    assert result.exit_code == 0, result.output
    assert "db-pass-12345" not in result.output and JWT not in result.output
    shown = json.loads(result.output)
    assert shown["database"]["url"] == "postgresql+psycopg://memorist:**********@db.internal:5432/memorist"


# -- 16: config check warns about a short JWT secret -----------------------------------------


@pytest.mark.parametrize(("secret", "warned"), [("x", True), ("short-but-not-32-bytes", True), (JWT, False)])
def test_config_check_warns_about_a_short_jwt_secret(tmp_path: Path, secret: str, warned: bool) -> None:
    env = {
        "MEMORIST_DATA_DIR": str(tmp_path / "data"),
        "MEMORIST_EMBEDDER__PROVIDER": "hashing",
        "MEMORIST_PLUGIN_MODULES": "tests.plugins.hashing",
        "JWT_SECRET": secret,
    }
    result = CliRunner().invoke(cli, ["config", "check"], env=env)
    assert result.exit_code == 0, result.output
    assert ("JWT_SECRET is shorter than 32 bytes" in result.output) is warned
    assert "configuration ok" in result.output


# -- 17: a reranker is checked at configure time -------------------------------------------


def test_configure_refuses_a_reranker_that_cannot_load(c: falcon.testing.TestClient) -> None:
    resp = c.simulate_post(
        "/configure",
        headers=ADMIN_HEADERS,
        json={"reranker": {"provider": "cross-encoder", "options": {"model": "no-such-org/no-such-cross-encoder"}}},
    )
    assert resp.status_code == 400, resp.text
    assert "reranker.options.model" in resp.json["detail"]
    assert c.simulate_get("/configure", headers=ADMIN_HEADERS).json["reranker"]["provider"] == "mmr"
    search = c.simulate_post("/search", headers=ADMIN_HEADERS, json={"query": "q", "user_id": "u", "rerank": True})
    assert search.status_code == 200, search.text


def test_provider_client_transport_connects_to_the_checked_address() -> None:
    """The OpenAI client's transport: resolve once, check, connect there; Host keeps the name."""
    import httpx
    from memorist.outbound import guarded_transport

    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            seen.append(self.headers["Host"])
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        trusted = OutboundGuard(["llm.example"], resolver=lambda h, p: ["127.0.0.1"])
        with httpx.Client(transport=guarded_transport(trusted)) as http:
            assert http.get(f"http://llm.example:{port}/v1/models").status_code == 200
        assert seen == [f"llm.example:{port}"]
        rebound = OutboundGuard([], resolver=lambda h, p: ["169.254.169.254"])
        with httpx.Client(transport=guarded_transport(rebound)) as http, pytest.raises(OutboundRefused):
            http.get(f"http://llm.example:{port}/v1/models")
        assert len(seen) == 1
    finally:
        server.shutdown()


def test_runtime_provider_clients_carry_the_guard(tmp_path: Path) -> None:
    """A language model configured through /configure gets the guarded transport (startup hosts stay trusted)."""
    from memorist.config.configure_policy import guarded
    from memorist.config.settings import load_settings
    from memorist.engine.components import provider_guard

    base = load_settings(
        None,
        {
            "data_dir": str(tmp_path),
            "language_model": {
                "provider": "openai",
                "options": {"model": "m", "base_url": "http://localhost:11434/v1"},
            },
        },
    )
    assert provider_guard(base) is None  # embedded use: the author wrote every URL
    guard = provider_guard(guarded(base))
    assert guard is not None
    guard.check("http://localhost:11434/v1")  # the deployer's own local server stays reachable
    with pytest.raises(OutboundRefused):
        guard.check("http://127.0.0.1:8000/v1")
