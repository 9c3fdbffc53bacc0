"""Webhooks end to end: a real gunicorn server (2 workers) POSTs to a local receiver thread.

Memories are changed through the self-hosted routes (organization and project
``default``), so these tests need nothing from the rest of the platform
surface; webhooks are managed through their platform routes with platform keys.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from memorist.auth.api_keys import ApiKeyStore
from memorist.auth.users import UserStore
from memorist.db import Database
from memorist.records import MemoryRecord, normalized_hash, utcnow
from memorist.tenancy import ProjectError, Tenancy
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.server import ADMIN

ROOT = Path(__file__).resolve().parents[2]
#: Until the ``webhooks`` entry point is installed, the plugin comes in by module path.
INSTALLED = any(ep.name == "webhooks" for ep in entry_points(group="memorist"))
if not INSTALLED:
    sys.path.insert(0, str(ROOT / "plugins"))

import memorist_webhooks  # noqa: E402
from memorist_webhooks import signing  # noqa: E402
from memorist_webhooks.config import DeliveryPolicy  # noqa: E402
from memorist_webhooks.deliveries import DELIVERED, FAILED, PENDING, DeliveryQueue  # noqa: E402
from memorist_webhooks.store import WebhookStore  # noqa: E402

MAX_ATTEMPTS = 4


# -- the receiver ----------------------------------------------------------------------
@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.body)


class Receiver:
    """Records every POST; ``/flaky/...`` answers 500 twice then 200, ``/down/...`` always 503."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver._lock:
                    seen = receiver._counts[self.path] = receiver._counts.get(self.path, 0) + 1
                    status = 200
                    if self.path.startswith("/flaky") and seen <= 2:
                        status = 500
                    elif self.path.startswith("/down"):
                        status = 503
                    receiver.requests.append(Received(self.path, dict(self.headers.items()), body, status))
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def at(self, path: str) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_for(predicate: Callable[[], Any], seconds: float = 20.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if result := predicate():
            return result
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


# -- fixtures --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    rec = Receiver()
    yield rec
    rec.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    modules = "memorist.testing.hashing" + ("" if INSTALLED else ",memorist_webhooks")
    env = {
        "MEMORIST_PLUGIN_MODULES": modules,
        "MEMORIST_WEBHOOKS_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
        "MEMORIST_WEBHOOKS_BACKOFF_SECONDS": "0.2",
        "MEMORIST_WEBHOOKS_POLL_SECONDS": "0.2",
        "MEMORIST_WEBHOOKS_TIMEOUT_SECONDS": "3",
        "MEMORIST_WEBHOOKS_LEASE_SECONDS": "10",
        "NO_PROXY": "127.0.0.1,localhost",
        # The receivers here are local: the operator allow-list lets deliveries reach them.
        "MEMORIST_SECURITY__OUTBOUND_ALLOW": '["127.0.0.1"]',
    }
    srv = Server(tmp_path_factory.mktemp("webhooks") / "data", env=env).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def db(server: Server) -> Iterator[Database]:
    database = Database(f"sqlite:///{server.data_dir / 'memorist.db'}")
    yield database
    database.dispose()


@dataclass
class Keys:
    owner: dict[str, str]
    reader: dict[str, str]
    stranger: dict[str, str]


def _key(db: Database, email: str, org_id: str, project_id: str, role: str) -> dict[str, str]:
    user = UserStore(db).create(email.split("@")[0], email, "a long password 123")
    Tenancy(db).set_member(project_id, user.id, role, create=True)
    _, full = ApiKeyStore(db).create(user.id, "test", kind="platform", org_id=org_id, project_id=project_id)
    return {"Authorization": f"Token {full}"}


@pytest.fixture(scope="module")
def keys(db: Database) -> Keys:
    """Keys of the self-hosted surface's project (``default``/``default``) and of an unrelated project."""
    tenancy = Tenancy(db)
    if not tenancy.org_exists("default"):
        tenancy.create_org("Default", org_id="default")
    try:
        tenancy.project("default", "default")
    except ProjectError:
        tenancy.create_project("default", "Default", project_id="default")
    tenancy.create_org("Other", org_id="org_other")
    tenancy.create_project("org_other", "Other", project_id="proj_other")
    return Keys(
        owner=_key(db, "owner@example.com", "default", "default", "OWNER"),
        reader=_key(db, "reader@example.com", "default", "default", "READER"),
        stranger=_key(db, "stranger@example.com", "org_other", "proj_other", "OWNER"),
    )


def create_hook(server: Server, keys: Keys, url: str, event_types: list[str]) -> dict[str, Any]:
    resp = server.post(
        "/api/v1/webhooks/projects/default/",
        headers=keys.owner,
        json={"url": url, "name": "test hook", "event_types": event_types},
    )
    assert resp.status_code == 201, resp.text
    return resp.json()


def add_memory(server: Server, text: str, user_id: str = "alice") -> str:
    resp = server.post(
        "/memories",
        headers=ADMIN,
        json={"messages": [{"role": "user", "content": text}], "user_id": user_id, "infer": False},
    )
    assert resp.status_code == 200, resp.text
    return str(resp.json()["results"][0]["id"])


def delete_hook(server: Server, keys: Keys, webhook_id: str) -> None:
    assert server.request("DELETE", f"/api/v1/webhooks/{webhook_id}/", headers=keys.owner).status_code == 200


# -- delivery --------------------------------------------------------------------------
def test_add_update_delete_are_delivered_signed(server: Server, keys: Keys, receiver: Receiver) -> None:
    hook = create_hook(server, keys, f"{receiver.url}/events", ["memory_add", "memory:update", "memory_delete"])
    assert hook["event_types"] == ["memory_add", "memory_update", "memory_delete"]
    assert hook["secret"].startswith("whsec_") and hook["webhook_id"] and hook["is_active"] is True
    assert hook["project"] == "default"

    memory_id = add_memory(server, "Alice keeps bees on her roof.")
    added = wait_for(lambda: receiver.at("/events"), what="the add delivery")[0]
    assert signing.verify(
        hook["secret"], added.body, added.headers[signing.SIGNATURE_HEADER], added.headers[signing.TIMESTAMP_HEADER]
    )
    assert added.headers["Content-Type"] == "application/json"
    event = added.json
    assert event["event_type"] == "memory_add" and added.headers["X-Memorist-Event"] == "memory_add"
    assert event["memory"]["id"] == memory_id and event["memory"]["memory"] == "Alice keeps bees on her roof."
    assert event["memory"]["user_id"] == "alice" and event["memory"]["project_id"] == "default"
    assert event["delivery_id"] == added.headers["X-Memorist-Delivery"] and event["timestamp"]
    assert event["event_details"] == {
        "id": memory_id,
        "data": {"memory": "Alice keeps bees on her roof."},
        "event": "ADD",
    }

    assert (
        server.request(
            "PUT", f"/memories/{memory_id}", headers=ADMIN, json={"text": "Alice keeps two hives."}
        ).status_code
        == 200
    )
    updated = wait_for(lambda: receiver.at("/events")[1:], what="the update delivery")[0].json
    assert updated["event_type"] == "memory_update" and updated["memory"]["memory"] == "Alice keeps two hives."
    assert updated["previous"]["memory"] == "Alice keeps bees on her roof."

    assert server.request("DELETE", f"/memories/{memory_id}", headers=ADMIN).status_code == 200
    deleted = wait_for(lambda: receiver.at("/events")[2:], what="the delete delivery")[0].json
    assert deleted["event_type"] == "memory_delete" and deleted["memory"]["id"] == memory_id

    time.sleep(0.5)
    assert len(receiver.at("/events")) == 3  # each event once, no duplicates across the two workers
    delete_hook(server, keys, hook["webhook_id"])


def test_platform_routes_and_queued_adds_notify_only_their_project(
    server: Server, keys: Keys, receiver: Receiver
) -> None:
    """An asynchronous v3 add (the add worker emits the event), then v1 update and delete, in another project."""
    theirs = server.post(
        "/api/v1/webhooks/projects/proj_other/",
        headers=keys.stranger,
        json={
            "url": f"{receiver.url}/other",
            "name": "other",
            "event_types": ["memory_add", "memory_update", "memory_delete"],
        },
    )
    assert theirs.status_code == 201, theirs.text
    ours = create_hook(server, keys, f"{receiver.url}/ours-only", ["memory_add", "memory_update", "memory_delete"])

    queued = server.post(
        "/v3/memories/add/",
        headers=keys.stranger,
        json={"messages": [{"role": "user", "content": "I love hiking in the Alps."}], "filters": {"user_id": "bob"}},
    )
    assert queued.status_code == 200 and queued.json()["status"] == "PENDING", queued.text
    event_id = queued.json()["event_id"]
    event = wait_for(
        lambda: (
            (e := server.get(f"/v1/event/{event_id}/", headers=keys.stranger).json())["status"]
            in ("SUCCEEDED", "FAILED")
            and e
        ),
        what="the add event",
    )
    assert event["status"] == "SUCCEEDED" and event["results"], event
    memory_id = event["results"][0]["id"]
    added = wait_for(lambda: receiver.at("/other"), what="the add delivery")[0].json
    assert added["event_type"] == "memory_add" and added["memory"]["id"] == memory_id
    assert added["memory"]["project_id"] == "proj_other" and added["memory"]["user_id"] == "bob"

    assert (
        server.request(
            "PUT", f"/v1/memories/{memory_id}/", headers=keys.stranger, json={"text": "Bob hikes in the Dolomites."}
        ).status_code
        == 200
    )
    assert server.request("DELETE", f"/v1/memories/{memory_id}/", headers=keys.stranger).status_code == 200
    count = len(event["results"])
    got = wait_for(lambda: len(receiver.at("/other")) >= count + 2 and receiver.at("/other"), what="3 deliveries")
    assert [r.json["event_type"] for r in got[-2:]] == ["memory_update", "memory_delete"]
    time.sleep(0.5)
    assert receiver.at("/ours-only") == []  # project default hears nothing of proj_other
    assert (
        server.request("DELETE", f"/api/v1/webhooks/{theirs.json()['webhook_id']}/", headers=keys.stranger).status_code
        == 200
    )
    delete_hook(server, keys, ours["webhook_id"])


def test_a_tampered_or_stale_delivery_does_not_verify(server: Server, keys: Keys, receiver: Receiver) -> None:
    hook = create_hook(server, keys, f"{receiver.url}/verify", ["memory_add"])
    add_memory(server, "Alice collects stamps.")
    got = wait_for(lambda: receiver.at("/verify"), what="a delivery")[0]
    signature, stamp = got.headers[signing.SIGNATURE_HEADER], got.headers[signing.TIMESTAMP_HEADER]
    assert signing.verify(hook["secret"], got.body, signature, stamp)
    assert not signing.verify(hook["secret"], got.body + b" ", signature, stamp)
    assert not signing.verify("whsec_wrong", got.body, signature, stamp)
    assert not signing.verify(hook["secret"], got.body, signature, str(int(stamp) + 1))
    assert not signing.verify(hook["secret"], got.body, signature, stamp, now=int(stamp) + 3600)
    delete_hook(server, keys, hook["webhook_id"])


def test_only_subscribed_event_types_are_sent(server: Server, keys: Keys, receiver: Receiver) -> None:
    hook = create_hook(server, keys, f"{receiver.url}/deletes-only", ["memory_delete"])
    memory_id = add_memory(server, "Alice plays the cello.")
    server.request("DELETE", f"/memories/{memory_id}", headers=ADMIN)
    got = wait_for(lambda: receiver.at("/deletes-only"), what="the delete delivery")
    time.sleep(0.5)
    assert [r.json["event_type"] for r in receiver.at("/deletes-only")] == ["memory_delete"]
    assert got[0].json["memory"]["id"] == memory_id
    delete_hook(server, keys, hook["webhook_id"])


def test_failing_receiver_gets_the_event_once_after_retries(
    server: Server, keys: Keys, receiver: Receiver, db: Database
) -> None:
    hook = create_hook(server, keys, f"{receiver.url}/flaky", ["memory_add"])
    add_memory(server, "Alice repairs old clocks.")
    queue = DeliveryQueue(db, DeliveryPolicy())
    done = wait_for(
        lambda: [d for d in queue.for_webhook(hook["webhook_id"]) if d.status == DELIVERED],
        what="the delivery to succeed",
    )
    assert done[0].attempts == 3 and done[0].last_error is None and done[0].delivered_at is not None
    time.sleep(0.6)
    calls = receiver.at("/flaky")
    assert [c.status for c in calls] == [500, 500, 200]
    assert {c.json["delivery_id"] for c in calls} == {done[0].id}
    assert [c.headers["X-Memorist-Attempt"] for c in calls] == ["1", "2", "3"]
    delete_hook(server, keys, hook["webhook_id"])


def test_delivery_fails_after_the_attempt_limit(server: Server, keys: Keys, receiver: Receiver, db: Database) -> None:
    hook = create_hook(server, keys, f"{receiver.url}/down", ["memory_add"])
    add_memory(server, "Alice sails on weekends.")
    queue = DeliveryQueue(db, DeliveryPolicy())
    failed = wait_for(
        lambda: [d for d in queue.for_webhook(hook["webhook_id"]) if d.status == FAILED], what="the delivery to fail"
    )[0]
    assert failed.attempts == MAX_ATTEMPTS
    assert "HTTP 503" in (failed.last_error or "")
    time.sleep(0.6)
    assert len(receiver.at("/down")) == MAX_ATTEMPTS
    delete_hook(server, keys, hook["webhook_id"])


def test_unreachable_receiver_is_a_failed_attempt(server: Server, keys: Keys, db: Database) -> None:
    from memorist.testing import free_port

    hook = create_hook(server, keys, f"http://127.0.0.1:{free_port()}/nobody", ["memory_add"])
    add_memory(server, "Alice learns Welsh.")
    queue = DeliveryQueue(db, DeliveryPolicy())
    failed = wait_for(
        lambda: [d for d in queue.for_webhook(hook["webhook_id"]) if d.status == FAILED], what="the delivery to fail"
    )[0]
    assert failed.attempts == MAX_ATTEMPTS and "Connection" in (failed.last_error or "")
    delete_hook(server, keys, hook["webhook_id"])


def test_webhook_stored_directly_and_inactive_webhooks(
    server: Server, keys: Keys, receiver: Receiver, db: Database
) -> None:
    """A webhook written by another process (the store class here) is used at once; a disabled one is not."""
    hook = WebhookStore(db).create("default", "direct", f"{receiver.url}/direct", ["memory_add"])
    add_memory(server, "Alice bakes sourdough.")
    got = wait_for(lambda: receiver.at("/direct"), what="the delivery")[0]
    assert signing.verify(
        hook.secret, got.body, got.headers[signing.SIGNATURE_HEADER], got.headers[signing.TIMESTAMP_HEADER]
    )
    resp = server.request("PUT", f"/api/v1/webhooks/{hook.id}/", headers=keys.owner, json={"is_active": False})
    assert resp.status_code == 200 and resp.json()["is_active"] is False
    add_memory(server, "Alice bakes rye bread.")
    time.sleep(1.0)
    assert len(receiver.at("/direct")) == 1
    assert len(DeliveryQueue(db, DeliveryPolicy()).for_webhook(hook.id)) == 1
    delete_hook(server, keys, hook.id)
    assert DeliveryQueue(db, DeliveryPolicy()).for_webhook(hook.id) == []


# -- management and isolation -----------------------------------------------------------
def test_list_update_rotate_and_delete(server: Server, keys: Keys, receiver: Receiver) -> None:
    hook = create_hook(server, keys, f"{receiver.url}/managed", ["memory_add"])
    listed = server.get("/api/v1/webhooks/projects/default/", headers=keys.reader)
    assert listed.status_code == 200
    mine = [h for h in listed.json() if h["webhook_id"] == hook["webhook_id"]]
    assert len(mine) == 1 and "secret" not in mine[0]

    path = f"/api/v1/webhooks/{hook['webhook_id']}/"
    changed = server.request(
        "PUT", path, headers=keys.owner, json={"name": "renamed", "event_types": ["memory_update", "memory_add"]}
    )
    assert changed.status_code == 200
    body = changed.json()
    assert body["message"] == "Webhook updated successfully" and body["name"] == "renamed"
    assert body["event_types"] == ["memory_update", "memory_add"] and "secret" not in body

    rotated = server.request("PUT", path, headers=keys.owner, json={"rotate_secret": True}).json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != hook["secret"]

    gone = server.request("DELETE", path, headers=keys.owner)
    assert gone.status_code == 200 and gone.json() == {"message": "Webhook deleted successfully"}
    assert server.request("DELETE", path, headers=keys.owner).status_code == 404
    listed = server.get("/api/v1/webhooks/projects/default/", headers=keys.owner).json()
    assert hook["webhook_id"] not in {h["webhook_id"] for h in listed}


def test_other_projects_and_readers_cannot_change_webhooks(server: Server, keys: Keys, receiver: Receiver) -> None:
    hook = create_hook(server, keys, f"{receiver.url}/isolated", ["memory_add"])
    path = f"/api/v1/webhooks/{hook['webhook_id']}/"
    stranger = keys.stranger
    assert server.get("/api/v1/webhooks/projects/default/", headers=stranger).status_code == 404
    assert (
        server.post(
            "/api/v1/webhooks/projects/default/",
            headers=stranger,
            json={"url": f"{receiver.url}/x", "name": "x", "event_types": ["memory_add"]},
        ).status_code
        == 404
    )
    for method in ("PUT", "DELETE"):
        resp = server.request(method, path, headers=stranger, json={"name": "taken"})
        assert resp.status_code == 404 and "detail" in resp.json()
    assert server.get("/api/v1/webhooks/projects/proj_other/", headers=stranger).json() == []

    assert server.request("PUT", path, headers=keys.reader, json={"name": "r"}).status_code == 403
    assert server.request("DELETE", path, headers=keys.reader).status_code == 403
    assert (
        server.post(
            "/api/v1/webhooks/projects/default/",
            headers=keys.reader,
            json={"url": f"{receiver.url}/x", "name": "x", "event_types": ["memory_add"]},
        ).status_code
        == 403
    )
    assert server.get("/api/v1/webhooks/projects/default/").status_code == 401
    assert server.get("/api/v1/webhooks/projects/default/", headers={"Authorization": "Token nope"}).status_code == 401

    still = [
        h
        for h in server.get("/api/v1/webhooks/projects/default/", headers=keys.owner).json()
        if h["webhook_id"] == hook["webhook_id"]
    ]
    assert still[0]["name"] == "test hook"
    delete_hook(server, keys, hook["webhook_id"])


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"url": "ftp://example.com/x", "name": "x", "event_types": ["memory_add"]}, 400, "url"),
        ({"url": "http://127.0.0.1:1/x", "name": "x", "event_types": ["memory_explode"]}, 400, "event_types"),
        ({"url": "http://127.0.0.1:1/x", "name": "x", "event_types": []}, 422, "event_types"),
        ({"url": "http://127.0.0.1:1/x", "name": "x"}, 422, "event_types"),
    ],
)
def test_invalid_webhooks_are_refused(
    server: Server, keys: Keys, body: dict[str, Any], status: int, field: str
) -> None:
    resp = server.post("/api/v1/webhooks/projects/default/", headers=keys.owner, json=body)
    assert resp.status_code == status
    assert resp.json()["detail"].startswith(field)


def test_routes_are_in_the_openapi_document(server: Server) -> None:
    paths = server.get("/openapi.json").json()["paths"]
    assert set(paths["/api/v1/webhooks/projects/{project_id}/"]) == {"get", "post"}
    assert set(paths["/api/v1/webhooks/{webhook_id}/"]) == {"put", "delete"}


def test_the_platform_client_manages_webhooks(
    server: Server, keys: Keys, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The existing client's webhook calls."""
    monkeypatch.setenv("MEM0_TELEMETRY", "False")
    monkeypatch.setenv("MEM0_DIR", str(tmp_path))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    from mem0 import MemoryClient

    client = MemoryClient(
        api_key=keys.owner["Authorization"].split(" ", 1)[1], host=server.url, client=server.httpx_client()
    )
    created = client.create_webhook(
        url=f"{receiver.url}/client", name="client hook", project_id="default", event_types=["memory_add"]
    )
    assert created["secret"] and created["event_types"] == ["memory_add"]
    assert created["webhook_id"] in {h["webhook_id"] for h in client.get_webhooks(project_id="default")}
    assert client.update_webhook(webhook_id=created["webhook_id"], name="again")["name"] == "again"
    assert client.delete_webhook(webhook_id=created["webhook_id"]) == {"message": "Webhook deleted successfully"}


# -- the lease, without a server ---------------------------------------------------------
def _record(text: str) -> MemoryRecord:
    now = utcnow()
    return MemoryRecord(
        id=f"m-{text}",
        text=text,
        hash=normalized_hash(text),
        user_id="u",
        observed_at=now,
        created_at=now,
        updated_at=now,
    )


def test_a_leased_delivery_is_claimed_once_and_a_stale_sender_is_fenced(tmp_path: Path) -> None:
    from memorist_webhooks.tables import webhook_deliveries
    from sqlalchemy import update

    database = Database(f"sqlite:///{tmp_path / 'lease.db'}")
    database.upgrade([("webhooks", memorist_webhooks.MIGRATIONS)])  # the plugin owns its tables
    hook = WebhookStore(database).create("p", "h", "http://127.0.0.1:9/x", ["memory_add"])
    policy = DeliveryPolicy(max_attempts=3, backoff_seconds=0.01, lease_seconds=30)
    first, second = DeliveryQueue(database, policy), DeliveryQueue(database, policy)
    [delivery_id] = first.enqueue([hook], "memory_add", _record("x"))

    mine = first.claim()
    assert mine is not None and mine.id == delivery_id and mine.attempts == 1
    assert second.claim() is None  # leased: nobody else may send it

    with database.begin() as conn:  # the first sender stalls past its lease
        conn.execute(update(webhook_deliveries).values(lease_expires_at=utcnow()))
    time.sleep(0.01)
    theirs = second.claim()
    assert theirs is not None and theirs.attempts == 2
    assert first.succeed(mine) is False  # fenced: its lease is gone
    assert second.succeed(theirs) is True
    [row] = first.for_webhook(hook.id)
    assert row.status == DELIVERED and row.attempts == 2
    assert first.claim() is None

    [again] = first.enqueue([hook], "memory_add", _record("y"))
    for attempt in range(1, 4):
        claimed = wait_for(first.claim, seconds=2, what=f"attempt {attempt}")
        assert claimed.id == again and claimed.attempts == attempt
        assert first.fail(claimed, "boom") == (FAILED if attempt == 3 else PENDING)
    assert first.claim() is None
    assert DeliveryQueue(database, DeliveryPolicy(retention_days=1e-9)).purge() == 2  # finished rows age out
    assert first.for_webhook(hook.id) == []
    database.dispose()


def test_subscriptions_are_cached_and_every_change_by_another_process_is_seen(tmp_path: Path) -> None:
    """``subscribed`` (asked per stored memory) is cached per project; a create, update or
    delete made through another store (another process: its own engine) is seen at once."""
    url = f"sqlite:///{tmp_path / 'subs.db'}"
    mine_db, theirs_db = Database(url), Database(url)
    mine_db.upgrade([("webhooks", memorist_webhooks.MIGRATIONS)])
    mine, theirs = WebhookStore(mine_db), WebhookStore(theirs_db)
    assert mine.subscribed("p", "memory_add") == []
    hook = theirs.create("p", "h", "http://127.0.0.1:9/x", ["memory_add"])
    assert [h.id for h in mine.subscribed("p", "memory_add")] == [hook.id]
    assert mine.subscribed("other", "memory_add") == []
    assert mine.subscribed("p", "memory_delete") == []
    theirs.update(hook.id, event_types=["memory_delete"])
    assert mine.subscribed("p", "memory_add") == []
    assert [h.id for h in mine.subscribed("p", "memory_delete")] == [hook.id]
    theirs.update(hook.id, is_active=False)
    assert mine.subscribed("p", "memory_delete") == []
    theirs.update(hook.id, is_active=True)
    assert theirs.delete(hook.id)
    assert mine.subscribed("p", "memory_delete") == []
    again = theirs.create("p", "h2", "http://127.0.0.1:9/y", ["memory_add"])
    assert [h.id for h in mine.subscribed("p", "memory_add")] == [again.id]
    mine_db.dispose()
    theirs_db.dispose()
