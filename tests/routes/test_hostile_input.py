"""Hostile input: every case gets a clear answer and nobody else's data moves.

Why: the README promises that malformed JSON, invalid UTF-8, over-deep JSON,
oversized bodies, out-of-range values and hostile filters are refused with a
4xx naming the problem, and that "nothing is stored when a request is
refused". Unit tests exercise the parser; here the same inputs go through the
whole app (in process, ``server``) and, where the wire itself is hostile
(absent or lying ``Content-Length``, chunked bodies, raw request targets, the
request-line limit), through gunicorn and raw sockets (``wire``: a real server
on the *same* data directory). After *every* case a snapshot of the victims'
data (a self-hosted user, a platform tenant, the accounts and keys) must be
unchanged. Refused requests must also leave the attacker's own scope untouched.

Attacker-controlled identifiers all start with ``mallory`` so the snapshot can
tell the attacker's rows (allowed to change when a hostile-but-valid write is
accepted) from everyone else's (never).
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import requests
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN, Server

LIMIT = 2 * 1024 * 1024  # limits.max_body_bytes default
ATTACKER = "mallory"
VICTIM = "victim"
#: SQL, LIKE, FTS and shell metacharacters, alone and combined, plus NUL.
METACHARACTERS = [
    "'",
    '"',
    ";",
    "--",
    "%",
    "_",
    "\\",
    "*",
    "(",
    ")",
    ":",
    "^",
    "~",
    "AND",
    "OR",
    "NOT",
    "\x00",
    "' OR '1'='1",
    '"; DROP TABLE memories; --',
    "\\%\\_ %' OR 1=1 --",
    'NEAR(a b) AND "x" col:* ^2 ~1',
    "a\x00b",
    "$(id)`id` */ /*\u202e\ufeff",
]


def token(key: str) -> dict[str, str]:
    return {"Authorization": f"Token {key}"}


@dataclass
class World:
    """The seeded victims and the attacker's platform key."""

    victim_ids: list[str]
    victim_platform: dict[str, str]
    attacker_platform: dict[str, str]
    victim_project: str


HOSTILE_ENV = {"MEMORIST_AUTH__LOGIN_ATTEMPTS": "100000"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """The app in process: every case whose hostility is in the request's content."""
    srv = AppServer(tmp_path_factory.mktemp("hostile") / "data", env=HOSTILE_ENV).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def wire(server: AppServer) -> Iterator[Server]:
    """gunicorn (2 workers) on the same data: cases whose hostility is on the wire. Started on first use."""
    srv = Server(server.data_dir, env=HOSTILE_ENV, workers=2).start()
    yield srv
    srv.stop()


def bootstrap(server: AppServer | Server, org: str, project: str, email: str) -> dict[str, str]:
    resp = server.post(
        "/api/v1/admin/bootstrap/",
        headers=ADMIN,
        json={"org_name": org, "project_name": project, "email": email, "org_id": org, "project_id": project},
    )
    assert resp.status_code == 201, resp.text
    return token(resp.json()["key"])


@pytest.fixture(scope="module")
def world(server: AppServer) -> World:
    ids = []
    for text, metadata in [
        ("Victim likes quiet mornings.", {"mood": "calm"}),
        ("Victim's password hint is 'blue' (not really).", {"kind": "hint", "n": 1}),
        ("Victim lives at 1 Main Street.", {}),
    ]:
        resp = server.post(
            "/memories",
            headers=ADMIN,
            json={
                "messages": [{"role": "user", "content": text}],
                "user_id": VICTIM,
                "agent_id": f"{VICTIM}-agent",
                "metadata": metadata,
                "infer": False,
            },
        )
        assert resp.status_code == 200, resp.text
        ids.append(resp.json()["results"][0]["id"])
    victim = bootstrap(server, "vorg", "vproj", "owner@victim.test")
    attacker = bootstrap(server, "morg", "mproj", "owner@mallory.test")
    for text in ("Victim tenant fact one.", "Victim tenant fact two."):
        resp = server.post(
            "/v3/memories/add/",
            headers=victim,
            json={"messages": [{"role": "user", "content": text}], "user_id": VICTIM, "infer": False},
        )
        assert resp.status_code == 200, resp.text
    return World(ids, victim, attacker, "/api/v1/orgs/organizations/vorg/projects/vproj/")


def snapshot(server: AppServer, world: World) -> dict[str, Any]:
    """Everyone's data as the admin and the tenants' owners see it; ``attacker`` is the attacker's own."""

    def ok(resp: requests.Response) -> Any:
        assert resp.status_code == 200, resp.text
        return resp.json()

    entities = ok(server.get("/entities", headers=ADMIN))
    return {
        "memories": ok(server.get("/memories", params={"user_id": VICTIM, "page_size": 1000}, headers=ADMIN)),
        "history": ok(server.get(f"/memories/{world.victim_ids[1]}/history", headers=ADMIN)),
        "entities": sorted(
            (e["type"], e["id"], e["total_memories"], e["updated_at"])
            for e in entities
            if not e["id"].startswith(ATTACKER)
        ),
        "platform": ok(server.post("/v3/memories/", params={"page_size": 200}, headers=world.victim_platform, json={})),
        "project": ok(server.get(world.victim_project, headers=world.victim_platform)),
        "users": sorted(u["email"] for u in ok(server.get("/auth/users", headers=ADMIN))),
        "keys": sorted(
            (k["id"], k["revoked"]) for k in ok(server.get("/api/v1/admin/keys/", headers=ADMIN))["results"]
        ),
        "attacker": (
            sorted((e["type"], e["id"], e["total_memories"]) for e in entities if e["id"].startswith(ATTACKER)),
            ok(server.post("/v3/memories/", params={"page_size": 1}, headers=world.attacker_platform, json={}))[
                "count"
            ],
            ok(server.get("/v1/events/", headers=world.attacker_platform))["count"],
        ),
    }


@pytest.fixture(scope="module")
def state(server: AppServer, world: World) -> dict[str, Any]:
    """The data as last read (one case's "after" is the next one's "before"), and this case's strictness."""
    return {"snapshot": snapshot(server, world), "refusal": False}


@pytest.fixture(autouse=True)
def nothing_changes(server: AppServer, world: World, state: dict[str, Any]) -> Iterator[None]:
    """After every case: nobody else's data moved; after a refusal, not even the attacker's."""
    yield
    before, after = state["snapshot"], snapshot(server, world)
    state["snapshot"], strict, state["refusal"] = after, state["refusal"], False
    if not strict:
        before, after = {**before, "attacker": None}, {**after, "attacker": None}
    assert after == before, (
        "a hostile request changed data it does not own" if not strict else "a refused request stored something"
    )


@pytest.fixture
def refusal(state: dict[str, Any]) -> None:
    """This case is refused outright: the attacker's own rows must not change either."""
    state["refusal"] = True


def refused(resp: requests.Response, status: int, *needles: str) -> None:
    """``status`` with a JSON ``detail`` naming the problem."""
    assert resp.status_code == status, f"{resp.status_code} {resp.text[:500]}"
    detail = resp.json()["detail"]
    for needle in needles:
        assert needle in detail, detail


def raw_http(server: Server, data: bytes, *, timeout: float = 10, half_close: bool = False) -> tuple[int, bytes]:
    """Send bytes as they are (no client normalization) and return (status, whole answer)."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as conn:
        conn.sendall(data)
        if half_close:
            conn.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    status_line = answer.split(b"\r\n", 1)[0]
    return int(status_line.split()[1]), answer


def http_request(
    method: str, target: str, body: bytes, *extra: str, length: int | None = None, auth: dict[str, str] = ADMIN
) -> bytes:
    """A request as raw bytes; ``extra`` header lines and ``length`` (Content-Length) are sent as given."""
    headers = [
        f"{method} {target} HTTP/1.1",
        "Host: memorist",
        *(f"{k}: {v}" for k, v in auth.items()),
        "Content-Type: application/json",
        "Connection: close",
        *extra,
    ]
    if length is not None:
        headers.append(f"Content-Length: {length}")
    return ("\r\n".join(headers) + "\r\n\r\n").encode() + body


# -- bodies past the size limit ----------------------------------------------------------


def _oversized() -> bytes:
    return json.dumps(
        {"messages": [{"role": "user", "content": "x" * (LIMIT + 1024)}], "user_id": f"{ATTACKER}-big", "query": "x"}
    ).encode()


BODY_ROUTES = [
    ("POST", "/memories"),
    ("POST", "/search"),
    ("POST", "/configure"),
    ("POST", "/v3/memories/add/"),
    ("POST", "/v3/memories/search/"),
    ("PUT", "/v1/batch/"),
    ("PATCH", "/api/v1/orgs/organizations/morg/projects/mproj/"),
]


def _headers_for(world: World, path: str) -> dict[str, str]:
    platform = path.startswith(("/v1/", "/v2/", "/v3/", "/api/v1/orgs/"))
    return {**(world.attacker_platform if platform else ADMIN), "Content-Type": "application/json"}


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
def test_body_over_the_limit_is_413(server: AppServer, world: World, refusal: None, method: str, path: str) -> None:
    resp = server.request(method, path, data=_oversized(), headers=_headers_for(world, path))
    refused(resp, 413, str(LIMIT))


@pytest.mark.process  # a real gunicorn: bytes on the wire
@pytest.mark.parametrize(("method", "path"), BODY_ROUTES)
def test_chunked_body_over_the_limit_is_413(wire: Server, world: World, refusal: None, method: str, path: str) -> None:
    """No Content-Length at all: the server must still stop at the limit (it used to read nothing: 400)."""
    body = _oversized()
    chunks = (body[i : i + 65536] for i in range(0, len(body), 65536))
    resp = wire.request(method, path, data=chunks, headers=_headers_for(world, path))
    assert resp.request.headers.get("Transfer-Encoding") == "chunked"
    refused(resp, 413, str(LIMIT))


@pytest.mark.process  # a real gunicorn: bytes on the wire
def test_a_chunked_body_is_read(server: AppServer, wire: Server, world: World) -> None:
    """A legitimate chunked request is answered from its body, not as if it had none."""
    body = json.dumps(
        {"messages": [{"role": "user", "content": "chunked note"}], "user_id": f"{ATTACKER}-chunk", "infer": False}
    ).encode()
    resp = wire.post("/memories", data=iter([body[:10], body[10:]]), headers=_headers_for(world, "/memories"))
    assert resp.status_code == 200, resp.text
    listed = server.get("/memories", params={"user_id": f"{ATTACKER}-chunk"}, headers=ADMIN).json()
    assert [r["memory"] for r in listed["results"]] == ["chunked note"]
    search = json.dumps({"query": "chunked", "user_id": f"{ATTACKER}-chunk", "threshold": 0}).encode()
    found = wire.post("/search", data=iter([search]), headers=_headers_for(world, "/search"))
    assert found.status_code == 200 and found.json()["results"], found.text


@pytest.mark.process  # a real gunicorn: bytes on the wire
def test_lying_content_length(wire: Server, world: World, refusal: None) -> None:
    """Claims bigger than the limit, smaller than the body, bigger than the body, or malformed."""
    add = json.dumps(
        {"messages": [{"role": "user", "content": "lie"}], "user_id": f"{ATTACKER}-lie", "infer": False}
    ).encode()
    # Announced past the limit: refused before reading a byte.
    status, answer = raw_http(wire, http_request("POST", "/memories", add, length=LIMIT * 4))
    assert status == 413 and str(LIMIT).encode() in answer, answer[:500]
    # Announced shorter than sent: only the announced bytes are the body (malformed JSON); the rest is
    # not taken as a second request on this connection.
    status, answer = raw_http(wire, http_request("POST", "/memories", add, length=10))
    assert status == 400 and b"malformed JSON" in answer, answer[:500]
    # Announced longer than sent, then the client stops sending: answered, not left hanging.
    started = time.monotonic()
    status, answer = raw_http(wire, http_request("POST", "/memories", add[:-5], length=len(add) + 500), half_close=True)
    assert status == 400 and b"malformed JSON" in answer and time.monotonic() - started < 10, answer[:500]
    # Not a number, negative, twice, or with chunked encoding too (request smuggling): 400.
    for extra in (
        ["Content-Length: abc"],
        ["Content-Length: -1"],
        ["Content-Length: 5", "Content-Length: 6"],
        ["Transfer-Encoding: chunked", f"Content-Length: {len(add)}"],
    ):
        body = f"{len(add):x}\r\n".encode() + add + b"\r\n0\r\n\r\n" if "chunked" in extra[0] else add
        status, answer = raw_http(wire, http_request("POST", "/memories", body, *extra))
        assert status == 400, (extra, answer[:500])


# -- malformed and pathological JSON -----------------------------------------------------

DEEP = 10_000


@pytest.mark.parametrize(
    "body",
    [
        "[" * DEEP + "]" * DEEP,
        '{"a":' * DEEP + "1" + "}" * DEEP,
        '{"query": "x", "user_id": "mallory", "filters": ' + '{"AND": [' * DEEP + "{}" + "]}" * DEEP + "}",
        '{"messages": [{"role": "user", "content": "x"}], "user_id": "mallory", "metadata": '
        + '{"k": [' * DEEP
        + "1"
        + "]}" * DEEP
        + "}",
    ],
    ids=["arrays", "objects", "filters", "metadata"],
)
@pytest.mark.parametrize("path", ["/memories", "/configure", "/v3/memories/search/"])
def test_deeply_nested_json_is_400(server: AppServer, world: World, refusal: None, body: str, path: str) -> None:
    """10 000 levels: a 400 naming the depth limit, not a RecursionError or a dead worker."""
    resp = server.post(path, data=body.encode(), headers=_headers_for(world, path))
    refused(resp, 400, "nested deeper than 64 levels")


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (b'{"query": "caf\xe9", "user_id": "mallory"}', "invalid UTF-8"),  # latin-1
        (b'{"query": "\xc0\xaf", "user_id": "mallory"}', "invalid UTF-8"),  # overlong '/'
        (b'{"query": "\xed\xa0\x80", "user_id": "mallory"}', "invalid UTF-8"),  # encoded surrogate
        (b'{"query": "\xe2\x82", "user_id": "mallory"}', "invalid UTF-8"),  # truncated sequence
        (b"\xff\xfe{\x00}\x00", "invalid UTF-8"),  # UTF-16 with BOM
        (b'{"query": "\\ud800", "user_id": "mallory"}', "unpaired surrogate"),  # valid bytes, invalid text
        (b'{"query": "x", "user_id": "mallory\\udfff"}', "unpaired surrogate"),
        (b'{"query": "x", "user_id": "mallory", "threshold": NaN}', "NaN"),
        (b'{"query": "x", "user_id": "mallory", "threshold": -Infinity}', "Infinity"),
        (b'{"query": "x", "user_id": "mallory", "threshold": 1e400}', "out of range"),
        (b'{"query": "x", "user_id": "mallory", "top_k": 1' + b"0" * 5000 + b"}", "too many digits"),
        (b'{"query": "x", "user_id": "mallory"', "malformed JSON"),
        (b'{"query": "x", "user_id": "mallory"} trailing', "malformed JSON"),
        (b"\x00" * 64, "malformed JSON"),
    ],
)
@pytest.mark.parametrize("path", ["/memories", "/v3/memories/add/"])
def test_undecodable_bodies_are_400(
    server: AppServer, world: World, refusal: None, raw: bytes, needle: str, path: str
) -> None:
    resp = server.post(path, data=raw, headers=_headers_for(world, path))
    refused(resp, 400, needle)


def test_non_json_numbers_never_reach_storage(server: AppServer, world: World, refusal: None) -> None:
    """NaN/Infinity used to be stored in metadata and answered back as bare NaN, which is not JSON."""
    for value in (b"NaN", b"Infinity", b"-Infinity", b"1e999"):
        body = (
            b'{"messages": [{"role": "user", "content": "n"}], "user_id": "mallory-nan", "infer": false,'
            b' "metadata": {"n": ' + value + b"}}"
        )
        resp = server.post("/memories", data=body, headers=_headers_for(world, "/memories"))
        assert resp.status_code == 400, resp.text
    listed = server.get("/memories", params={"user_id": "mallory-nan"}, headers=ADMIN)
    json.loads(listed.text, parse_constant=lambda name: pytest.fail(f"{name} in a response"))


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status", "needle"),
    [
        ("POST", "/search", {"json": {"query": "x", "user_id": ATTACKER, "top_k": 10**12}}, 422, "top_k"),
        ("POST", "/search", {"json": {"query": "x", "user_id": ATTACKER, "limit": -(10**12)}}, 422, "limit"),
        ("POST", "/search", {"json": {"query": "x", "user_id": ATTACKER, "top_k": "10"}}, None, None),
        ("POST", "/search", {"json": {"query": "x", "user_id": ATTACKER, "threshold": 10**12}}, 422, "threshold"),
        ("POST", "/v3/memories/search/", {"json": {"query": "x", "top_k": 10**12}}, 422, "top_k"),
        ("GET", "/memories", {"params": {"user_id": ATTACKER, "page_size": 10**12}}, 422, "page_size"),
        ("GET", "/memories", {"params": {"user_id": ATTACKER, "page": 10**30}}, 422, "page"),
        ("GET", "/memories", {"params": {"user_id": ATTACKER, "page": "1" + "0" * 3000}}, 422, "page"),
        ("GET", "/memories", {"params": {"user_id": ATTACKER, "page": -1}}, 422, "page"),
        ("GET", "/requests", {"params": {"limit": 10**12}}, 422, "limit"),
        ("POST", "/v3/memories/", {"params": {"page_size": 10**12}, "json": {}}, 422, "page_size"),
        ("GET", "/v1/events/", {"params": {"page": 10**30}}, 422, "page"),
    ],
)
def test_out_of_range_numbers_are_422(
    server: AppServer,
    world: World,
    refusal: None,
    method: str,
    path: str,
    kwargs: dict[str, Any],
    status: int | None,
    needle: str | None,
) -> None:
    resp = server.request(method, path, headers=_headers_for(world, path), **kwargs)
    if status is None:  # a numeric string: pydantic's lax mode accepts it; the point is no 5xx
        assert resp.status_code == 200, resp.text
    else:
        refused(resp, status, needle or "")


# -- filters -------------------------------------------------------------------------------


def _nested(kind: str, levels: int) -> str:
    """Filters nested ``levels`` deep, as JSON text (the client's json.dumps would recurse too deep)."""
    inner = json.dumps({"user_id": ATTACKER})
    if kind == "NOT":
        return '{"NOT": ' * levels + inner + "}" * levels
    return f'{{"{kind}": [' * levels + inner + "]}" * levels


FILTERS = [
    (json.dumps({"OR": [{"user_id": f"{ATTACKER}{i}"} for i in range(3000)]}), "more than 512 conditions"),
    # Two values a condition: the values bound (1,000) is met before the conditions bound.
    (json.dumps({"AND": [{f"metadata.k{i}": {"in": [i, str(i)]}} for i in range(2000)]}), "more than 1000 values"),
    (json.dumps({"user_id": {"in": [f"{ATTACKER}{i}" for i in range(600)]}}), None),  # one condition, 600 values
    (_nested("NOT", 40), "deeper than 32 levels"),
    (_nested("AND", 300), "deeper than 64 levels"),  # the JSON depth limit is met first
    (_nested("OR", 500), "deeper than 64 levels"),
]


@pytest.mark.parametrize(
    ("filters", "needle"), FILTERS, ids=["3000-or", "2000-and", "600-in", "40-not", "300-and", "500-or"]
)
@pytest.mark.parametrize("path", ["/search", "/v3/memories/search/", "/v3/memories/", "/v1/exports/", "/v1/summary/"])
def test_filter_limits_are_400_naming_the_limit(
    server: AppServer, world: World, refusal: None, filters: str, needle: str | None, path: str
) -> None:
    body = '{"query": "x", "filters": ' + filters + "}" if "search" in path else '{"filters": ' + filters + "}"
    resp = server.post(path, data=body.encode(), headers=_headers_for(world, path))
    if needle is None:
        assert resp.status_code in (200, 201), resp.text
    else:
        refused(resp, 400, needle)


# -- metacharacters in every string field --------------------------------------------------


def _no_victims(resp: requests.Response) -> None:
    """A 2xx answer of a read names no victim row (LIKE wildcards must not widen a match)."""
    assert resp.status_code < 500, f"{resp.request.method} {resp.request.path_url}: {resp.status_code} {resp.text}"
    if resp.status_code < 300:
        text = resp.text
        assert VICTIM not in text.replace(f"{ATTACKER}", ""), text[:500]


@pytest.mark.parametrize("meta", METACHARACTERS, ids=[repr(m) for m in METACHARACTERS])
def test_metacharacters_in_self_hosted_fields(server: AppServer, world: World, meta: str) -> None:
    """Stored verbatim when accepted, never a 5xx, and never a read or delete beyond the attacker's rows."""
    user = f"{ATTACKER}{meta}"
    add = server.post(
        "/memories",
        headers=ADMIN,
        json={
            "messages": [{"role": "user", "content": f"note {meta} end", "name": f"n{meta}"}],
            "user_id": user,
            "agent_id": f"{ATTACKER}-agent{meta}",
            "run_id": f"{ATTACKER}-run{meta}",
            "metadata": {f"k{meta}": f"v{meta}", "list": [meta]},
            "custom_instructions": meta,
            "infer": False,
        },
    )
    assert add.status_code in (200, 400, 422), add.text
    if add.status_code == 200:
        listed = server.get("/memories", params={"user_id": user}, headers=ADMIN).json()
        assert [(r["memory"], r["metadata"]) for r in listed["results"]] == [
            (f"note {meta} end", {f"k{meta}": f"v{meta}", "list": [meta]})
        ]
    for body in (
        {"query": meta, "user_id": user},
        {"query": f"note {meta}", "user_id": user, "threshold": 0, "explain": True},
        # A bare "*" is the documented wildcard ("field exists"), so it may match anyone: scope it.
        {"query": meta, "filters": {"user_id": meta}, **({"agent_id": f"{ATTACKER}-agent*"} if meta == "*" else {})},
        {"query": meta, "filters": {"user_id": {"contains": meta}}, "threshold": 0},
        {"query": meta, "filters": {"user_id": {"icontains": meta}, "agent_id": {"in": [meta, user]}}},
        {"query": meta, "filters": {f"metadata.{meta}": meta}},
        {"query": meta, "filters": {f"metadata.k{meta}": {"ne": meta}}, "user_id": user},
        {"query": meta, "filters": {"OR": [{"user_id": meta}, {"NOT": {"user_id": {"nin": [meta]}}}]}, "user_id": user},
    ):
        resp = server.post("/search", headers=ADMIN, json={"threshold": 0, **body})
        assert resp.status_code in (200, 400), resp.text
        _no_victims(resp)
    listings = ({"user_id": meta}, {"agent_id": meta}, {"user_id": user, "run_id": meta})
    for params in listings if meta != "*" else ({"user_id": user, "run_id": meta},):  # "*" alone: any user
        _no_victims(server.get("/memories", params=params, headers=ADMIN))
    quoted = quote(meta, safe="")
    for method, path in (
        ("GET", f"/memories/{quoted}"),
        ("GET", f"/memories/{quoted}/history"),
        ("DELETE", f"/memories/{quoted}"),
        ("PUT", f"/memories/{quoted}"),
    ):
        resp = server.request(method, path, headers=ADMIN, json={"text": meta})
        assert resp.status_code in (400, 404), f"{method} {path}: {resp.status_code} {resp.text}"
    # A bare "*" on delete-all is the documented wildcard (every memory of that entity type): from
    # this admin key it would rightly take the victims too, so it is tested on its own
    # (test_selfhosted_api.py::test_delete_all_wildcard_is_for_admins_and_never_a_literal_id).
    for params in ({"user_id": meta}, {"agent_id": meta}, {"run_id": meta}, {"app_id": meta}) if meta != "*" else ():
        resp = server.request("DELETE", "/memories", params=params, headers=ADMIN)
        assert resp.status_code in (200, 400, 422), resp.text
        assert resp.status_code != 200 or resp.json()["deleted"] == 0, resp.text
    resp = server.request("DELETE", f"/entities/user/{quoted}", headers=ADMIN)
    assert resp.status_code in (200, 400, 404) and (resp.status_code != 200 or resp.json()["deleted"] == 0), resp.text


@pytest.mark.parametrize("meta", METACHARACTERS, ids=[repr(m) for m in METACHARACTERS])
def test_metacharacters_in_platform_fields(server: AppServer, world: World, meta: str) -> None:
    """The same on the platform surface, from the attacker's own tenant: the victim tenant never moves."""
    key = world.attacker_platform
    user = f"{ATTACKER}{meta}"
    add = server.post(
        "/v3/memories/add/",
        headers=key,
        json={
            "messages": [{"role": "user", "content": f"note {meta} end"}],
            "user_id": user,
            "metadata": {f"k{meta}": meta},
            "infer": False,
            "custom_instructions": meta,
        },
    )
    assert add.status_code in (200, 400, 422), add.text
    memory_id = add.json()["results"][0]["id"] if add.status_code == 200 else None
    if memory_id:
        listed = server.post("/v3/memories/", headers=key, json={"filters": {"user_id": user}}).json()
        assert [r["memory"] for r in listed["results"]] == [f"note {meta} end"]
    for search in (
        {"query": meta, "filters": {"user_id": meta}},
        {"query": meta, "filters": {"user_id": {"contains": meta}}, "threshold": 0},
        {"query": meta, "filters": {f"metadata.{meta}": meta}, "categories": [meta], "fields": [meta]},
    ):
        resp = server.post("/v3/memories/search/", headers=key, json=search)
        assert resp.status_code in (200, 400), resp.text
        _no_victims(resp)
    for listing in (
        {"filters": {"user_id": meta}},
        {"filters": {"user_id": user}, "start_date": meta},
        {"categories": [meta]},
    ):
        _no_victims(server.post("/v3/memories/", headers=key, json=listing))
        _no_victims(server.post("/v1/exports/", headers=key, json=listing))
        _no_victims(server.post("/v1/summary/", headers=key, json=listing))
    quoted = quote(meta, safe="")
    calls: list[tuple[str, str, dict[str, Any] | None]] = [
        ("GET", f"/v1/memories/{quoted}/", None),
        ("PUT", f"/v1/memories/{quoted}/", {"text": meta}),
        ("DELETE", f"/v1/memories/{quoted}/", None),
        ("GET", f"/v1/memories/{quoted}/history/", None),
        ("GET", f"/v1/event/{quoted}/", None),
        ("PUT", "/v1/batch/", {"memories": [{"memory_id": meta, "text": meta}]}),
        ("DELETE", "/v1/batch/", {"memories": [{"memory_id": meta}]}),
        ("POST", "/v1/feedback/", {"memory_id": meta, "feedback": "POSITIVE"}),
        ("POST", "/v1/exports/get/", {"memory_export_id": meta}),
    ]
    for method, path, payload in calls:
        resp = server.request(method, path, headers=key, json=payload)
        assert resp.status_code in (400, 404, 422), f"{method} {path}: {resp.status_code} {resp.text}"
    for params in ({"user_id": meta}, {"agent_id": meta}):
        resp = server.request("DELETE", "/v1/memories/", params=params, headers=key)
        # "*" is the wildcard: it may empty the attacker's own project (the victim tenant never moves).
        emptied = resp.status_code != 200 or resp.json()["deleted"] == 0 or meta == "*"
        assert resp.status_code in (200, 400) and emptied, resp.text
    resp = server.request("DELETE", f"/v2/entities/user/{quoted}/", headers=key)
    assert resp.status_code in (200, 400, 404) and (resp.status_code != 200 or resp.json()["deleted"] == 0), resp.text
    members = f"/api/v1/orgs/organizations/morg/projects/mproj/members/?email={quoted}"
    assert server.request("DELETE", members, headers=key).status_code in (400, 404)
    patched = server.request(
        "PATCH", "/api/v1/orgs/organizations/morg/projects/mproj/", headers=key, json={"custom_instructions": meta}
    )
    assert patched.status_code in (200, 400), patched.text


# -- odd ids in path parameters ------------------------------------------------------------

ODD_IDS = [
    "../../etc/passwd",
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%252e%252e%252f",
    "..\\..\\windows",
    "a%2Fb",
    "%00",
    "%FF%FE",
    "%ED%A0%80",
    "%E2%98%83",
    "%F0%9F%92%A5" * 20,
    "%E2%80%AE" + "x" * 10,
    "x" * 3500,
    "victim",
    "*",
    "%25",
    "'%20OR%20'1'='1",
]


def _path_routes(world: World) -> list[tuple[str, str, dict[str, str], dict[str, Any] | None]]:
    """(method, path template, credentials, body) for every route with a path parameter."""
    key = world.attacker_platform
    orgs = "/api/v1/orgs/organizations"
    return [
        ("GET", "/memories/{}", ADMIN, None),
        ("PUT", "/memories/{}", ADMIN, {"text": "x"}),
        ("DELETE", "/memories/{}", ADMIN, None),
        ("GET", "/memories/{}/history", ADMIN, None),
        ("DELETE", "/entities/user/{}", ADMIN, None),
        ("DELETE", "/entities/{}/victim", ADMIN, None),
        ("DELETE", "/api/v1/admin/keys/{}/", ADMIN, None),
        ("GET", "/v1/memories/{}/", key, None),
        ("PUT", "/v1/memories/{}/", key, {"text": "x"}),
        ("DELETE", "/v1/memories/{}/", key, None),
        ("GET", "/v1/memories/{}/history/", key, None),
        ("GET", "/v1/event/{}/", key, None),
        ("DELETE", "/v2/entities/user/{}/", key, None),
        ("DELETE", "/v2/entities/{}/victim/", key, None),
        ("GET", orgs + "/{}/projects/vproj/", key, None),
        ("GET", orgs + "/vorg/projects/{}/", key, None),
        ("PATCH", orgs + "/vorg/projects/{}/", key, {"name": "pwned"}),
        ("PUT", orgs + "/vorg/projects/{}/members/", key, {"email": "owner@mallory.test", "role": "OWNER"}),
    ]


@pytest.mark.process  # a real gunicorn: bytes on the wire
@pytest.mark.parametrize("odd", ODD_IDS)
def test_odd_ids_in_path_parameters(wire: Server, world: World, refusal: None, odd: str) -> None:
    """Traversal, encoded slashes, NUL, invalid UTF-8, long and unicode ids: 404/400, nothing read or deleted.

    Sent as raw bytes so no client normalizes ``../``. Deleting an entity that does not exist answers
    200 with ``deleted: 0`` (idempotent). ``victim`` is only tried through the attacker's tenant: on the
    self-hosted surface memories are one shared space and deleting a user's entity is allowed.
    """
    for method, template, auth, payload in _path_routes(world):
        if odd == VICTIM and auth is ADMIN:
            continue
        target = template.format(odd)
        body = json.dumps(payload).encode() if payload is not None else b""
        status, answer = raw_http(wire, http_request(method, target, body, length=len(body), auth=auth))
        content = answer.split(b"\r\n\r\n", 1)[1]
        if status == 200 and method == "DELETE" and "entities" in template:
            assert json.loads(content)["deleted"] == 0, (target, content)
            continue
        assert status in (400, 404), (method, target, status, content[:300])
        assert b"Victim" not in content, content[:300]


@pytest.mark.process  # a real gunicorn: bytes on the wire
def test_an_id_past_the_request_line_limit_is_414(wire: Server, world: World, refusal: None) -> None:
    """A 10 KB id does not fit gunicorn's request line (8190 bytes): 414 before the app, no worker lost."""
    status, _ = raw_http(wire, http_request("GET", "/memories/" + "x" * 10_240, b""))
    assert status == 414
    status, _ = raw_http(wire, http_request("DELETE", "/v1/memories/" + "x" * 10_240 + "/", b""))
    assert status == 414
    assert wire.get("/health").status_code == 200


# -- an oversized message for the extractor, and a stalled body --------------------------


@pytest.fixture(scope="module")
def roomy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Body limit raised to 4 MiB so a 1 MB message reaches the app; a short read timeout for the stall."""
    srv = Server(
        tmp_path_factory.mktemp("roomy") / "data",
        workers=2,
        env={"MEMORIST_LIMITS__MAX_BODY_BYTES": str(4 * 1024 * 1024), "MEMORIST_SERVER__IO_TIMEOUT": "3"},
    ).start()
    yield srv
    srv.stop()


def _workers(server: Server) -> set[int]:
    assert server.process is not None
    out = subprocess.run(["pgrep", "-P", str(server.process.pid)], capture_output=True, text=True, check=False)
    return {int(pid) for pid in out.stdout.split()}


def _wait(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.mark.process  # a real gunicorn: bytes on the wire
def test_a_one_megabyte_message_is_handled_or_refused_clearly(roomy: Server) -> None:
    workers = _workers(roomy)
    megabyte = ("I moved to Lisbon last month and my sister Maya visits on Sundays. " * 15_000)[:1_000_000]
    # Self-hosted: a message is capped at 100 000 characters -> 422 naming the field.
    refused(
        roomy.post(
            "/memories", headers=ADMIN, json={"messages": [{"role": "user", "content": megabyte}], "user_id": "big"}
        ),
        422,
        "messages.0.content",
    )
    assert roomy.get("/memories", params={"user_id": "big"}, headers=ADMIN).json()["count"] == 0
    # Platform: more content than one add may hold (limits.max_add_chars) -> 413 before anything is queued.
    key = bootstrap(roomy, "big", "big", "big@example.com")
    refused(
        roomy.post(
            "/v3/memories/add/",
            headers=key,
            json={"messages": [{"role": "user", "content": megabyte}], "user_id": "big"},
            timeout=60,
        ),
        413,
        "messages: 1000000 characters",
    )
    assert roomy.post("/v3/memories/", headers=key, json={"filters": {"user_id": "big"}}).json()["count"] == 0
    assert roomy.get("/v1/events/", headers=key).json()["count"] == 0
    assert roomy.get("/health").status_code == 200 and _workers(roomy) == workers


@pytest.mark.process  # a real gunicorn: bytes on the wire
def test_a_stalled_body_does_not_hold_a_worker_forever(roomy: Server) -> None:
    """Content-Length promises more than is sent and the client goes quiet (slow-body attack).

    The read blocks one thread; the others keep answering, and after ``server.io_timeout`` (3 s
    here) the stalled request is answered 408 in JSON and its connection closed. No worker dies.
    """
    before = _workers(roomy)
    host, port = roomy.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(http_request("POST", "/search", b'{"query": "x", ', length=1000))
        time.sleep(0.5)
        started = time.monotonic()
        assert roomy.get("/health", timeout=5).status_code == 200
        assert time.monotonic() - started < 4, "one stalled body blocked the whole server"
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408"), answer[:300]
    assert "stopped sending" in json.loads(answer.split(b"\r\n\r\n", 1)[1])["detail"]
    assert roomy.get("/health").status_code == 200
    assert _workers(roomy) == before and "WORKER TIMEOUT" not in roomy.output()


@pytest.mark.process  # a real gunicorn: bytes on the wire
def test_server_survived(server: AppServer, wire: Server) -> None:
    """Runs last (file order): the app and the real server answer and logged no unhandled error."""
    for app in (server, wire):
        assert app.get("/health").status_code == 200
        log = app.output()
        assert "Traceback" not in log and "unhandled error" not in log, log[-6000:]
    assert len(_workers(wire)) == wire.workers
    assert Path(server.data_dir).exists()
