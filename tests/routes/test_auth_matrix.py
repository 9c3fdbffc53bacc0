"""Who may call what: every route of /openapi.json against thirteen principals, on the whole app in process.

Why: authorization bugs hide in the cells nobody writes a test for (a user key
on an admin route, a refresh token used as an access token, a READER key
deleting, another tenant's OWNER naming our ids). This module walks the whole
table. The expected answer of each cell is *generated* from the route's
declared ``security`` (the same declaration that makes ``@operation`` check
credentials) plus the README's rules, and the README's route table is kept
here as explicit data, so a route whose declared policy drifts from the
README fails even if the server is self-consistent.

Each known route has a request that succeeds for a principal that may call it
(so an allowed cell asserts the exact success status, e.g. 200/201) and a
"target" request aimed at data seeded for others; every write a principal must
not make is followed by re-reading the data it aimed at (as admin, or as the
project's OWNER) to prove nothing changed. Routes added later by plugins (e.g.
webhooks) get generic expectations from their ``security`` alone.

Principals: admin session (Bearer), user session, the user's ``svcsk_`` key, a
revoked key, an expired JWT, a JWT signed with another secret, an ``alg:
none`` token, a refresh token used as an access token, the legacy admin key, no
credentials, and platform keys: READER of the project, OWNER of another
project, OWNER of the project.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import jwt
import pytest
import requests
from click.testing import CliRunner
from memorist.cli import cli as main_cli
from memorist.testing.inprocess import AppServer as Server
from memorist.testing.inprocess import environment
from memorist.testing.server import ADMIN, JWT_SECRET, bearer

Policy = Literal["open", "user", "admin", "jwt", "platform"]
SESSIONS = ("admin_session", "user_session")
SELF_HOSTED = ("admin_session", "user_session", "user_key", "legacy_admin_key")
INVALID = ("revoked_key", "expired_jwt", "foreign_jwt", "alg_none", "refresh_as_access")
PLATFORM = ("platform_reader", "platform_other_owner", "platform_owner")
PRINCIPALS = (*SELF_HOSTED, *INVALID, "anonymous", *PLATFORM)
ADMINS = ("admin_session", "legacy_admin_key")

ORG, PROJECT = "porg", "pproj"
P = "/api/v1/orgs/organizations/{org_id}/projects/{project_id}/"
ADMIN_USER = {"name": "Ada", "email": "ada@matrix.test", "password": "correct horse"}
USER = {"name": "Bob", "email": "bob@matrix.test", "password": "bob-password"}

#: The README's route table ("HTTP API"), copied by hand: the declared security must agree with it.
README_POLICY: dict[tuple[str, str], Policy] = {
    ("GET", "/"): "open",
    ("GET", "/health"): "open",
    ("GET", "/ready"): "open",
    ("POST", "/memories"): "user",
    ("POST", "/memories/batch"): "user",
    ("GET", "/memories"): "user",
    ("DELETE", "/memories"): "user",
    ("GET", "/memories/{memory_id}"): "user",
    ("PUT", "/memories/{memory_id}"): "user",
    ("DELETE", "/memories/{memory_id}"): "user",
    ("GET", "/memories/{memory_id}/history"): "user",
    ("GET", "/memories/{memory_id}/entities"): "user",
    ("GET", "/graph"): "user",
    ("POST", "/search"): "user",
    ("POST", "/reset"): "admin",
    ("GET", "/configure"): "user",
    ("POST", "/configure"): "admin",
    ("GET", "/configure/providers"): "user",
    ("GET", "/auth/setup-status"): "open",
    ("POST", "/auth/register"): "open",
    ("POST", "/auth/login"): "open",
    ("POST", "/auth/refresh"): "open",
    ("GET", "/auth/me"): "jwt",
    ("PATCH", "/auth/me"): "jwt",
    ("POST", "/auth/change-password"): "jwt",
    ("POST", "/auth/logout"): "jwt",
    ("POST", "/auth/users"): "admin",
    ("GET", "/auth/users"): "admin",
    ("GET", "/api-keys"): "jwt",
    ("POST", "/api-keys"): "jwt",
    ("DELETE", "/api-keys/{key_id}"): "jwt",
    ("GET", "/users"): "admin",
    ("PATCH", "/users/{user_id}"): "admin",
    ("DELETE", "/users/{user_id}"): "admin",
    ("POST", "/users/{user_id}/password"): "admin",
    ("GET", "/users/{user_id}/api-keys"): "admin",
    ("GET", "/requests"): "user",
    ("GET", "/events/{event_id}"): "user",
    ("GET", "/entities"): "user",
    ("DELETE", "/entities/{entity_type}/{entity_id}"): "user",
    ("GET", "/v1/ping/"): "platform",
    ("GET", P): "platform",
    ("PATCH", P): "platform",
    ("DELETE", P): "platform",
    ("POST", "/api/v1/orgs/organizations/{org_id}/projects/"): "platform",
    ("GET", P + "members/"): "platform",
    ("POST", P + "members/"): "platform",
    ("PUT", P + "members/"): "platform",
    ("DELETE", P + "members/"): "platform",
    ("POST", "/v3/memories/add/"): "platform",
    ("POST", "/v3/memories/add/batch/"): "platform",
    ("POST", "/v3/memories/search/"): "platform",
    ("POST", "/v3/memories/"): "platform",
    ("GET", "/v1/event/{event_id}/"): "platform",
    ("GET", "/v1/events/"): "platform",
    ("GET", "/v1/memories/{memory_id}/"): "platform",
    ("PUT", "/v1/memories/{memory_id}/"): "platform",
    ("DELETE", "/v1/memories/{memory_id}/"): "platform",
    ("DELETE", "/v1/memories/"): "platform",
    ("GET", "/v1/memories/{memory_id}/history/"): "platform",
    ("GET", "/v1/entities/"): "platform",
    ("DELETE", "/v2/entities/{entity_type}/{entity_name}/"): "platform",
    ("PUT", "/v1/batch/"): "platform",
    ("DELETE", "/v1/batch/"): "platform",
    ("POST", "/api/v1/admin/bootstrap/"): "admin",
    ("GET", "/api/v1/admin/keys/"): "admin",
    ("DELETE", "/api/v1/admin/keys/{key_id}/"): "admin",
    ("POST", "/v1/feedback/"): "platform",
    ("POST", "/v1/exports/"): "platform",
    ("POST", "/v1/exports/get/"): "platform",
    ("POST", "/v1/summary/"): "platform",
    # v1/v2 memory routes of older clients (docs/platform.md)
    ("GET", "/v1/memories/"): "platform",
    ("POST", "/v1/memories/"): "platform",
    ("POST", "/v1/memories/search/"): "platform",
    ("POST", "/v2/memories/search/"): "platform",
    ("POST", "/v2/memories/"): "platform",
    # memory profiles: "not supported" answers, after the key check
    ("GET", "/v2/entities/user/{entity_id}/profile/"): "platform",
    ("POST", "/v2/profiles/jobs/"): "platform",
    ("GET", "/v2/profiles/jobs/{job_id}/"): "platform",
    ("GET", "/v2/profiles/settings/"): "platform",
    ("POST", "/v2/profiles/settings/"): "platform",
    ("PATCH", "/v2/profiles/settings/"): "platform",
}
#: Schemes each policy declares (operations.py ``SECURITY``); ``user`` and ``admin`` look alike.
SCHEMES: dict[Policy, frozenset[str]] = {
    "open": frozenset(),
    "user": frozenset({"bearerAuth", "apiKeyAuth"}),
    "admin": frozenset({"bearerAuth", "apiKeyAuth"}),
    "jwt": frozenset({"bearerAuth"}),
    "platform": frozenset({"platformToken"}),
}
#: Where the declared security cannot tell ``admin`` from ``user``, the README's list decides.
README_ADMIN_ONLY = {route for route, policy in README_POLICY.items() if policy == "admin"}
#: Platform POSTs a READER may make (README: read = get, list, search, history, events, members, exports,
#: summaries; feedback: any member). Every other platform POST/PUT/PATCH/DELETE needs OWNER.
PLATFORM_READS = {
    ("POST", "/v3/memories/search/"),
    ("POST", "/v3/memories/"),
    ("POST", "/v1/exports/"),
    ("POST", "/v1/exports/get/"),
    ("POST", "/v1/summary/"),
    ("POST", "/v1/feedback/"),
    ("POST", "/v1/memories/search/"),
    ("POST", "/v2/memories/search/"),
    ("POST", "/v2/memories/"),
    # profile routes change nothing: every member gets the same "not supported" 400
    ("POST", "/v2/profiles/jobs/"),
    ("POST", "/v2/profiles/settings/"),
    ("PATCH", "/v2/profiles/settings/"),
}
#: Self-hosted routes that act *as a user*: the legacy admin key has none, so they answer 403.
NEEDS_A_USER = {("PATCH", "/auth/me"), ("POST", "/auth/change-password")}
#: A self-hosted user (session or ``svcsk_`` key) is confined to its own ``user_id`` on every door
#: (docs/security.md): aimed at the matrix's user, its memory routes answer these, and change nothing.
CONFINED = ("user_session", "user_key")
CONFINED_STATUS: dict[tuple[str, str], int] = {
    ("POST", "/memories"): 400,  # names another user_id
    ("POST", "/memories/batch"): 400,
    ("GET", "/memories"): 400,
    ("DELETE", "/memories"): 400,
    ("GET", "/memories/{memory_id}"): 404,  # another user's memory: as if it did not exist
    ("PUT", "/memories/{memory_id}"): 404,
    ("DELETE", "/memories/{memory_id}"): 404,
    ("GET", "/memories/{memory_id}/history"): 404,
    ("GET", "/memories/{memory_id}/entities"): 404,
    ("GET", "/graph"): 400,
    ("POST", "/search"): 400,
    ("DELETE", "/entities/{entity_type}/{entity_id}"): 400,
    ("GET", "/events/{event_id}"): 404,
}


def policy_of(method: str, path: str, security: list[dict[str, Any]]) -> Policy:
    schemes = frozenset(name for requirement in security for name in requirement)
    if schemes == SCHEMES["user"]:
        return "admin" if (method, path) in README_ADMIN_ONLY else "user"
    for policy, declared in SCHEMES.items():
        if schemes == declared:
            return policy
    raise AssertionError(f"{method} {path}: unexpected security {security}")


def is_write(method: str, path: str, policy: Policy) -> bool:
    if method == "GET":
        return False
    if policy == "platform":
        return (method, path) not in PLATFORM_READS
    return (method, path) not in {("POST", "/search")}


# -- principals and seeded data ------------------------------------------------------------


@dataclass
class Env:
    """The server, everyone's credentials and the ids seeded for them."""

    server: Server
    headers: dict[str, dict[str, str]]
    admin_token: str
    user_token: str
    user_key_id: str
    spare_platform_key: str
    candidate_pool: int
    reader_email: str
    outsider_email: str
    ids: dict[str, str] = field(default_factory=dict)

    def fresh(self) -> str:
        return uuid.uuid4().hex[:10]

    def ok(self, resp: requests.Response, status: int = 200) -> Any:
        assert resp.status_code == status, f"setup: {resp.request.method} {resp.request.path_url}: {resp.text}"
        return resp.json()

    def memory(self, user_id: str) -> str:
        body = {
            "messages": [{"role": "user", "content": f"matrix fact of {user_id}"}],
            "user_id": user_id,
            "infer": False,
        }
        return self.ok(self.server.post("/memories", headers=ADMIN, json=body))["results"][0]["id"]

    def platform_memory(self, user_id: str) -> str:
        body = {
            "messages": [{"role": "user", "content": f"matrix fact of {user_id}"}],
            "user_id": user_id,
            "infer": False,
        }
        return self.ok(self.server.post("/v3/memories/add/", headers=self.headers["platform_owner"], json=body))[
            "results"
        ][0]["id"]

    def platform_member(self) -> str:
        """A platform account of the organization (members are added from the organization's people)."""
        fresh = self.fresh()
        email = f"member-{fresh}@matrix.test"
        body = {
            "org_name": ORG,
            "org_id": ORG,
            "project_name": f"m-{fresh}",
            "project_id": f"m-{fresh}",
            "email": email,
        }
        self.ok(self.server.post("/api/v1/admin/bootstrap/", headers=ADMIN, json=body), 201)
        return email

    def user_id(self) -> str:
        """The id of the self-hosted user (Bob)."""
        if "user" not in self.ids:
            self.ids["user"] = self.ok(self.server.get("/auth/me", headers=bearer(self.user_token)))["id"]
        return self.ids["user"]

    def fresh_user(self) -> str:
        fresh = self.fresh()
        body = {"name": "F", "email": f"fresh-{fresh}@matrix.test", "password": "fresh-password"}
        return str(self.ok(self.server.post("/auth/users", headers=ADMIN, json=body), 201)["id"])


def token_variants(admin: dict[str, str]) -> dict[str, str]:
    """Forged, expired, unsigned and wrong-type tokens, all claiming to be the admin."""
    claims = jwt.decode(admin["access_token"], options={"verify_signature": False})
    return {
        "expired_jwt": jwt.encode({**claims, "exp": int(time.time()) - 60}, JWT_SECRET, algorithm="HS256"),
        "foreign_jwt": jwt.encode(claims, "another-secret-another-secret-another-0", algorithm="HS256"),
        "alg_none": jwt.encode(claims, None, algorithm="none"),
        "refresh_as_access": admin["refresh_token"],
    }


def cli(server: Server, *args: str) -> dict[str, Any]:
    """``memorist admin ...`` on the server's database (how a READER key of an existing project is made).

    Through click's runner in this process, with exactly the app's environment: the command, not a
    process, is what is used here."""
    with environment(server.env):
        done = CliRunner().invoke(main_cli, ["admin", *args], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("matrix") / "data",
        # Thousands of deliberately wrong credentials come from one address here; throttling is tested elsewhere.
        env={"MEMORIST_AUTH__LOGIN_ATTEMPTS": "100000", "MEMORIST_AUTH__FAILED_AUTH_ATTEMPTS": "1000000"},
    ).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def env(server: Server) -> Env:
    registered = server.post("/auth/register", json=ADMIN_USER)
    assert registered.status_code == 201, registered.text
    admin = registered.json()
    created = server.post("/auth/users", headers=bearer(admin["access_token"]), json=USER)
    assert created.status_code == 201, created.text
    user = server.post("/auth/login", json={"email": USER["email"], "password": USER["password"]}).json()
    user_key = server.post("/api-keys", headers=bearer(user["access_token"]), json={"label": "live"}).json()
    revoked = server.post("/api-keys", headers=bearer(user["access_token"]), json={"label": "revoked"}).json()
    assert server.request("DELETE", f"/api-keys/{revoked['id']}", headers=bearer(user["access_token"])).ok

    def boot(org: str, project: str, email: str, role: str = "OWNER") -> dict[str, Any]:
        resp = server.post(
            "/api/v1/admin/bootstrap/",
            headers=ADMIN,
            json={
                "org_name": org,
                "project_name": project,
                "email": email,
                "org_id": org,
                "project_id": project,
                "role": role,
            },
        )
        assert resp.status_code == 201, resp.text
        return resp.json()

    owner = boot(ORG, PROJECT, "owner@matrix.test")
    other = boot("qorg", "qproj", "other-owner@matrix.test")
    spare = boot("sorg", "sproj", "spare@matrix.test")
    reader_email, outsider_email = "reader@matrix.test", "outsider@matrix.test"
    # Platform accounts: the reader is brought into the project by an admin, the outsider exists elsewhere.
    cli(server, "add-member", PROJECT, reader_email, "--role", "READER")
    cli(server, "create-user", outsider_email)
    reader = cli(server, "create-key", ORG, PROJECT, reader_email)
    headers = {
        "admin_session": bearer(admin["access_token"]),
        "user_session": bearer(user["access_token"]),
        "user_key": {"X-API-Key": user_key["key"]},
        "revoked_key": {"X-API-Key": revoked["key"]},
        **{name: bearer(value) for name, value in token_variants(admin).items()},
        "legacy_admin_key": dict(ADMIN),
        "anonymous": {},
        "platform_reader": {"Authorization": f"Token {reader['key']}"},
        "platform_other_owner": {"Authorization": f"Token {other['key']}"},
        "platform_owner": {"Authorization": f"Token {owner['key']}"},
    }
    pool = server.get("/configure", headers=ADMIN).json()["engine"]["candidate_pool"]
    e = Env(
        server,
        headers,
        admin["access_token"],
        user["access_token"],
        user_key["id"],
        spare["id"],
        pool,
        reader_email,
        outsider_email,
    )
    e.ids["memory"] = e.memory("matrix")
    e.ids["platform_memory"] = e.platform_memory("pmatrix")
    queued = server.post(
        "/v3/memories/add/",
        headers=headers["platform_owner"],
        json={"messages": [{"role": "user", "content": "My sister Maya lives in Porto."}], "user_id": "pmatrix"},
    )
    e.ids["event"] = e.ok(queued)["event_id"]
    deadline = time.monotonic() + 60  # let the extraction land before any before/after comparison
    while server.get(f"/v1/event/{e.ids['event']}/", headers=headers["platform_owner"]).json()["status"] not in (
        "SUCCEEDED",
        "FAILED",
    ):
        assert time.monotonic() < deadline, "the seeded add never finished"
        time.sleep(0.1)
    export = server.post("/v1/exports/", headers=headers["platform_owner"], json={"filters": {"user_id": "pmatrix"}})
    e.ids["export"] = e.ok(export, 201)["id"]
    return e


# -- one request per route: "fresh" (may succeed) or "target" (aims at others' data) -------

Mode = Literal["fresh", "target"]
Request = tuple[str, dict[str, Any]]  # filled path, requests kwargs


@dataclass(frozen=True)
class Spec:
    """How to call a route, what a permitted call answers, and what another tenant's OWNER gets."""

    ok: int
    build: Callable[[Env, str, Mode], Request]
    foreign: Literal["404", "own"] = "own"  # platform OWNER of another project: 404, or works on its own project


def _p(path: str) -> str:
    return path.replace("{org_id}", ORG).replace("{project_id}", PROJECT)


def _login(env: Env) -> str:
    return env.ok(env.server.post("/auth/login", json={"email": USER["email"], "password": USER["password"]}))[
        "refresh_token"
    ]


def _selfhosted_event(env: Env) -> str:
    """The event of a self-hosted add large enough to be queued (202), made once per run."""
    if "selfhosted_event" not in env.ids:
        content = "A long note about the garden and the weather. " * 200  # past limits.sync_add_chars
        body = {"messages": [{"role": "user", "content": content}], "user_id": "matrix-events", "infer": False}
        resp = env.server.post("/memories", headers=ADMIN, json=body)
        assert resp.status_code == 202, resp.text
        env.ids["selfhosted_event"] = resp.json()["event_id"]
    return env.ids["selfhosted_event"]


def _own_login(env: Env, principal: str) -> str:
    """A new login of the principal's own account (its refresh token): logging it out ends nothing else."""
    person = _person(principal)
    body = {"email": person["email"], "password": person["password"]}
    return str(env.ok(env.server.post("/auth/login", json=body))["refresh_token"])


def _own_key(env: Env, principal: str) -> str:
    return env.ok(env.server.post("/api-keys", headers=env.headers[principal], json={"label": "tmp"}), 201)["id"]


def _person(principal: str) -> dict[str, str]:
    return ADMIN_USER if principal == "admin_session" else USER


def _fresh_platform_key(env: Env) -> str:
    org = f"k{env.fresh()}"
    return env.ok(
        env.server.post(
            "/api/v1/admin/bootstrap/",
            headers=ADMIN,
            json={"org_name": org, "project_name": org, "email": f"{org}@matrix.test"},
        ),
        201,
    )["id"]


def _entity(env: Env, platform: bool) -> str:
    name = f"ent-{env.fresh()}"
    (env.platform_memory if platform else env.memory)(name)
    return name


def _fresh_memory(env: Env) -> str:
    return env.memory(f"matrix-{env.fresh()}")


def _fresh_platform_memory(env: Env) -> str:
    return env.platform_memory(f"pmatrix-{env.fresh()}")


SPECS: dict[tuple[str, str], Spec] = {
    ("GET", "/"): Spec(200, lambda e, p, m: ("/", {})),
    ("GET", "/health"): Spec(200, lambda e, p, m: ("/health", {})),
    ("GET", "/ready"): Spec(200, lambda e, p, m: ("/ready", {})),
    ("POST", "/memories"): Spec(
        200,
        lambda e, p, m: (
            "/memories",
            {
                "json": {
                    "messages": [{"role": "user", "content": "added by the matrix"}],
                    "infer": False,
                    "user_id": f"matrix-{e.fresh()}" if m == "fresh" else "matrix",
                }
            },
        ),
    ),
    ("POST", "/memories/batch"): Spec(
        200,
        lambda e, p, m: (
            "/memories/batch",
            {
                "json": {
                    "items": [
                        {
                            "messages": [{"role": "user", "content": "batch-added by the matrix"}],
                            "infer": False,
                            "user_id": f"matrix-{e.fresh()}" if m == "fresh" else "matrix",
                        }
                    ]
                }
            },
        ),
    ),
    ("GET", "/memories"): Spec(200, lambda e, p, m: ("/memories", {"params": {"user_id": "matrix"}})),
    ("DELETE", "/memories"): Spec(
        200, lambda e, p, m: ("/memories", {"params": {"user_id": _entity(e, False) if m == "fresh" else "matrix"}})
    ),
    ("GET", "/memories/{memory_id}"): Spec(200, lambda e, p, m: (f"/memories/{e.ids['memory']}", {})),
    ("PUT", "/memories/{memory_id}"): Spec(
        200,
        lambda e, p, m: (
            f"/memories/{_fresh_memory(e) if m == 'fresh' else e.ids['memory']}",
            {"json": {"text": "changed"}},
        ),
    ),
    ("DELETE", "/memories/{memory_id}"): Spec(
        200, lambda e, p, m: (f"/memories/{_fresh_memory(e) if m == 'fresh' else e.ids['memory']}", {})
    ),
    ("GET", "/memories/{memory_id}/history"): Spec(200, lambda e, p, m: (f"/memories/{e.ids['memory']}/history", {})),
    ("GET", "/memories/{memory_id}/entities"): Spec(200, lambda e, p, m: (f"/memories/{e.ids['memory']}/entities", {})),
    ("GET", "/graph"): Spec(200, lambda e, p, m: ("/graph?user_id=matrix", {})),
    ("POST", "/search"): Spec(200, lambda e, p, m: ("/search", {"json": {"query": "matrix", "user_id": "matrix"}})),
    ("GET", "/configure"): Spec(200, lambda e, p, m: ("/configure", {})),
    ("POST", "/configure"): Spec(
        200,
        lambda e, p, m: (
            "/configure",
            {"json": {"engine": {"candidate_pool": e.candidate_pool if m == "fresh" else e.candidate_pool + 7}}},
        ),
    ),
    ("GET", "/configure/providers"): Spec(200, lambda e, p, m: ("/configure/providers", {})),
    ("GET", "/auth/setup-status"): Spec(200, lambda e, p, m: ("/auth/setup-status", {})),
    ("POST", "/auth/register"): Spec(
        403,
        lambda e, p, m: (
            "/auth/register",
            {"json": {"name": "Eve", "email": f"eve-{e.fresh()}@matrix.test", "password": "eve-password"}},
        ),
    ),
    ("POST", "/auth/login"): Spec(
        200, lambda e, p, m: ("/auth/login", {"json": {"email": USER["email"], "password": USER["password"]}})
    ),
    ("POST", "/auth/refresh"): Spec(200, lambda e, p, m: ("/auth/refresh", {"json": {"refresh_token": _login(e)}})),
    ("GET", "/auth/me"): Spec(200, lambda e, p, m: ("/auth/me", {})),
    ("PATCH", "/auth/me"): Spec(
        200, lambda e, p, m: ("/auth/me", {"json": {"name": _person(p)["name"] if m == "fresh" else "pwned"}})
    ),
    ("POST", "/auth/change-password"): Spec(
        200,
        lambda e, p, m: (
            "/auth/change-password",
            {
                "json": {
                    "current_password": _person(p)["password"],
                    "new_password": _person(p)["password"] if m == "fresh" else "pwned-password",
                }
            },
        ),
    ),
    ("GET", "/auth/users"): Spec(200, lambda e, p, m: ("/auth/users", {})),
    ("POST", "/auth/users"): Spec(
        201,
        lambda e, p, m: (
            "/auth/users",
            {
                "json": {
                    "name": "New",
                    "email": f"new-{e.fresh()}@matrix.test" if m == "fresh" else "pwned@matrix.test",
                    "password": "new-password",
                    "role": "user" if m == "fresh" else "admin",
                }
            },
        ),
    ),
    ("GET", "/api-keys"): Spec(200, lambda e, p, m: ("/api-keys", {})),
    ("POST", "/api-keys"): Spec(201, lambda e, p, m: ("/api-keys", {"json": {"label": "matrix"}})),
    ("DELETE", "/api-keys/{key_id}"): Spec(
        200, lambda e, p, m: (f"/api-keys/{_own_key(e, p) if m == 'fresh' else e.user_key_id}", {})
    ),
    ("POST", "/auth/logout"): Spec(
        200, lambda e, p, m: ("/auth/logout", {"json": {"refresh_token": _own_login(e, p)}})
    ),
    ("GET", "/users"): Spec(200, lambda e, p, m: ("/users", {})),
    ("PATCH", "/users/{user_id}"): Spec(
        200,
        lambda e, p, m: (
            f"/users/{e.fresh_user() if m == 'fresh' else e.user_id()}",
            {"json": {"disabled": m != "fresh"}},
        ),
    ),
    ("DELETE", "/users/{user_id}"): Spec(
        200, lambda e, p, m: (f"/users/{e.fresh_user() if m == 'fresh' else e.user_id()}", {})
    ),
    ("POST", "/users/{user_id}/password"): Spec(
        200,
        lambda e, p, m: (
            f"/users/{e.fresh_user() if m == 'fresh' else e.user_id()}/password",
            {"json": {"password": "reset-password" if m == "fresh" else "pwned-password"}},
        ),
    ),
    ("GET", "/users/{user_id}/api-keys"): Spec(200, lambda e, p, m: (f"/users/{e.user_id()}/api-keys", {})),
    ("GET", "/requests"): Spec(200, lambda e, p, m: ("/requests", {})),
    ("GET", "/events/{event_id}"): Spec(200, lambda e, p, m: (f"/events/{_selfhosted_event(e)}", {})),
    ("GET", "/entities"): Spec(200, lambda e, p, m: ("/entities", {})),
    ("DELETE", "/entities/{entity_type}/{entity_id}"): Spec(
        200, lambda e, p, m: (f"/entities/user/{_entity(e, False) if m == 'fresh' else 'matrix'}", {})
    ),
    # -- platform --
    ("GET", "/v1/ping/"): Spec(200, lambda e, p, m: ("/v1/ping/", {})),
    ("GET", P): Spec(200, lambda e, p, m: (_p(P), {}), "404"),
    ("PATCH", P): Spec(
        200,
        lambda e, p, m: (_p(P), {"json": {"custom_instructions": "matrix rules" if m == "fresh" else "pwned"}}),
        "404",
    ),
    # Allowed: the OWNER deletes a project it just made (its key reaches it at once); refused
    # principals aim at the seeded project, which the witness re-reads unchanged.
    ("DELETE", P): Spec(
        200,
        lambda e, p, m: (_own_fresh_project(e) if m == "fresh" else _p(P), {}),
        "404",
    ),
    ("POST", "/api/v1/orgs/organizations/{org_id}/projects/"): Spec(
        201,
        lambda e, p, m: (f"/api/v1/orgs/organizations/{ORG}/projects/", {"json": {"name": f"matrix-{e.fresh()}"}}),
        "404",
    ),
    ("GET", P + "members/"): Spec(200, lambda e, p, m: (_p(P) + "members/", {}), "404"),
    ("POST", P + "members/"): Spec(
        200,
        lambda e, p, m: (
            _p(P) + "members/",
            {"json": {"email": e.platform_member() if m == "fresh" else e.outsider_email, "role": "OWNER"}},
        ),
        "404",
    ),
    ("PUT", P + "members/"): Spec(
        200,
        lambda e, p, m: (
            _p(P) + "members/",
            {"json": {"email": e.reader_email, "role": "READER" if m == "fresh" else "OWNER"}},
        ),
        "404",
    ),
    ("DELETE", P + "members/"): Spec(
        200,
        lambda e, p, m: (
            _p(P) + "members/",
            {"params": {"email": _added_member(e) if m == "fresh" else e.reader_email}},
        ),
        "404",
    ),
    ("POST", "/v3/memories/add/"): Spec(
        200,
        lambda e, p, m: (
            "/v3/memories/add/",
            {
                "json": {
                    "messages": [{"role": "user", "content": "added by the matrix"}],
                    "infer": False,
                    "user_id": f"pmatrix-{e.fresh()}" if m == "fresh" else "pmatrix",
                }
            },
        ),
    ),
    ("POST", "/v3/memories/add/batch/"): Spec(
        200,
        lambda e, p, m: (
            "/v3/memories/add/batch/",
            {
                "json": {
                    "items": [
                        {
                            "messages": [{"role": "user", "content": "batch-added by the matrix"}],
                            "infer": False,
                            "user_id": f"pmatrix-{e.fresh()}" if m == "fresh" else "pmatrix",
                        }
                    ]
                }
            },
        ),
    ),
    ("POST", "/v3/memories/search/"): Spec(
        200, lambda e, p, m: ("/v3/memories/search/", {"json": {"query": "matrix", "filters": {"user_id": "pmatrix"}}})
    ),
    ("POST", "/v3/memories/"): Spec(
        200, lambda e, p, m: ("/v3/memories/", {"json": {"filters": {"user_id": "pmatrix"}}})
    ),
    ("GET", "/v1/memories/"): Spec(200, lambda e, p, m: ("/v1/memories/", {"params": {"user_id": "pmatrix"}})),
    ("POST", "/v1/memories/"): Spec(
        200,
        lambda e, p, m: (
            "/v1/memories/",
            {
                "json": {
                    "messages": [{"role": "user", "content": "added by the matrix (v1)"}],
                    "infer": False,
                    "user_id": f"pmatrix-{e.fresh()}" if m == "fresh" else "pmatrix",
                }
            },
        ),
    ),
    ("POST", "/v1/memories/search/"): Spec(
        200, lambda e, p, m: ("/v1/memories/search/", {"json": {"query": "matrix", "user_id": "pmatrix"}})
    ),
    ("POST", "/v2/memories/search/"): Spec(
        200, lambda e, p, m: ("/v2/memories/search/", {"json": {"query": "matrix", "filters": {"user_id": "pmatrix"}}})
    ),
    ("POST", "/v2/memories/"): Spec(
        200, lambda e, p, m: ("/v2/memories/", {"json": {"filters": {"user_id": "pmatrix"}}})
    ),
    # Memory profiles: a permitted call gets the documented "not supported" 400.
    ("GET", "/v2/entities/user/{entity_id}/profile/"): Spec(
        400, lambda e, p, m: ("/v2/entities/user/pmatrix/profile/", {})
    ),
    ("POST", "/v2/profiles/jobs/"): Spec(
        400, lambda e, p, m: ("/v2/profiles/jobs/", {"json": {"operation": "trigger"}})
    ),
    ("GET", "/v2/profiles/jobs/{job_id}/"): Spec(400, lambda e, p, m: ("/v2/profiles/jobs/job-1/", {})),
    ("GET", "/v2/profiles/settings/"): Spec(400, lambda e, p, m: ("/v2/profiles/settings/", {})),
    ("POST", "/v2/profiles/settings/"): Spec(
        400, lambda e, p, m: ("/v2/profiles/settings/", {"json": {"enabled": True}})
    ),
    ("PATCH", "/v2/profiles/settings/"): Spec(
        400, lambda e, p, m: ("/v2/profiles/settings/", {"json": {"enabled": True}})
    ),
    ("DELETE", "/v1/memories/"): Spec(
        200, lambda e, p, m: ("/v1/memories/", {"params": {"user_id": _entity(e, True) if m == "fresh" else "pmatrix"}})
    ),
    ("GET", "/v1/memories/{memory_id}/"): Spec(
        200, lambda e, p, m: (f"/v1/memories/{e.ids['platform_memory']}/", {}), "404"
    ),
    ("PUT", "/v1/memories/{memory_id}/"): Spec(
        200,
        lambda e, p, m: (
            f"/v1/memories/{_fresh_platform_memory(e) if m == 'fresh' else e.ids['platform_memory']}/",
            {"json": {"text": "changed"}},
        ),
        "404",
    ),
    ("DELETE", "/v1/memories/{memory_id}/"): Spec(
        200,
        lambda e, p, m: (
            f"/v1/memories/{_fresh_platform_memory(e) if m == 'fresh' else e.ids['platform_memory']}/",
            {},
        ),
        "404",
    ),
    ("GET", "/v1/memories/{memory_id}/history/"): Spec(
        200, lambda e, p, m: (f"/v1/memories/{e.ids['platform_memory']}/history/", {}), "404"
    ),
    ("GET", "/v1/entities/"): Spec(200, lambda e, p, m: ("/v1/entities/", {})),
    ("DELETE", "/v2/entities/{entity_type}/{entity_name}/"): Spec(
        200, lambda e, p, m: (f"/v2/entities/user/{_entity(e, True) if m == 'fresh' else 'pmatrix'}/", {})
    ),
    ("PUT", "/v1/batch/"): Spec(
        200,
        lambda e, p, m: (
            "/v1/batch/",
            {
                "json": {
                    "memories": [
                        {
                            "memory_id": _fresh_platform_memory(e) if m == "fresh" else e.ids["platform_memory"],
                            "text": "changed",
                        }
                    ]
                }
            },
        ),
        "404",
    ),
    ("DELETE", "/v1/batch/"): Spec(
        200,
        lambda e, p, m: (
            "/v1/batch/",
            {
                "json": {
                    "memories": [{"memory_id": _fresh_platform_memory(e) if m == "fresh" else e.ids["platform_memory"]}]
                }
            },
        ),
        "404",
    ),
    ("GET", "/v1/event/{event_id}/"): Spec(200, lambda e, p, m: (f"/v1/event/{e.ids['event']}/", {}), "404"),
    ("GET", "/v1/events/"): Spec(200, lambda e, p, m: ("/v1/events/", {})),
    ("POST", "/v1/feedback/"): Spec(
        200,
        lambda e, p, m: ("/v1/feedback/", {"json": {"memory_id": e.ids["platform_memory"], "feedback": "POSITIVE"}}),
        "404",
    ),
    ("POST", "/v1/exports/"): Spec(
        201, lambda e, p, m: ("/v1/exports/", {"json": {"filters": {"user_id": "pmatrix"}}})
    ),
    ("POST", "/v1/exports/get/"): Spec(
        200, lambda e, p, m: ("/v1/exports/get/", {"json": {"memory_export_id": e.ids["export"]}}), "404"
    ),
    ("POST", "/v1/summary/"): Spec(
        200, lambda e, p, m: ("/v1/summary/", {"json": {"filters": {"user_id": "pmatrix"}}})
    ),
    ("POST", "/api/v1/admin/bootstrap/"): Spec(
        201,
        lambda e, p, m: (
            "/api/v1/admin/bootstrap/",
            {
                "json": (
                    {"org_name": "B", "project_name": "B", "email": f"b-{e.fresh()}@matrix.test"}
                    if m == "fresh"
                    else {
                        "org_name": "B",
                        "project_name": "B",
                        "email": "owner@matrix.test",
                        "org_id": ORG,
                        "project_id": "pwned",
                    }
                )
            },
        ),
    ),
    ("GET", "/api/v1/admin/keys/"): Spec(200, lambda e, p, m: ("/api/v1/admin/keys/", {})),
    ("DELETE", "/api/v1/admin/keys/{key_id}/"): Spec(
        200,
        lambda e, p, m: (f"/api/v1/admin/keys/{_fresh_platform_key(e) if m == 'fresh' else e.spare_platform_key}/", {}),
    ),
}


def _own_fresh_project(env: Env) -> str:
    body = {"name": f"doomed-{env.fresh()}"}
    made = env.server.post(
        f"/api/v1/orgs/organizations/{ORG}/projects/", headers=env.headers["platform_owner"], json=body
    )
    return f"/api/v1/orgs/organizations/{ORG}/projects/{env.ok(made, 201)['project_id']}/"


def _added_member(env: Env) -> str:
    email = env.platform_member()
    resp = env.server.post(
        _p(P) + "members/", headers=env.headers["platform_owner"], json={"email": email, "role": "READER"}
    )
    env.ok(resp)
    return email


# -- expectations ------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    policy: Policy
    write: bool
    has_body: bool

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.path


@dataclass(frozen=True)
class Expect:
    """``status``: the exact answer; None = passes authorization (not 401/403, not 5xx), for plugin routes."""

    allowed: bool
    status: int | None
    mode: Mode


def expect(principal: str, route: Route) -> Expect:
    spec = SPECS.get(route.key)
    ok = spec.ok if spec else None
    denied = Expect(False, 401, "target")
    if route.policy == "open":
        return Expect(True, ok, "fresh")  # credentials are not even looked at
    if route.policy == "platform":
        if principal == "platform_owner" or (principal == "platform_reader" and not route.write):
            return Expect(True, ok, "fresh")
        if principal == "platform_reader":
            return Expect(False, 403 if spec else None, "target")
        if principal == "platform_other_owner":
            if spec is None:
                return Expect(True, None, "target")
            return Expect(spec.foreign == "own", ok if spec.foreign == "own" else 404, "target")
        return denied
    if principal in INVALID or principal in PLATFORM or principal == "anonymous":
        return denied
    if route.policy == "jwt":
        return Expect(True, ok, "fresh") if principal in SESSIONS else denied
    if route.policy == "admin":
        return Expect(True, ok, "fresh") if principal in ADMINS else Expect(False, 403, "target")
    if principal == "legacy_admin_key" and route.key in NEEDS_A_USER:
        return Expect(False, 403, "target")
    if principal in CONFINED and route.key in CONFINED_STATUS:
        return Expect(False, CONFINED_STATUS[route.key], "target")
    return Expect(True, ok, "fresh")


# -- witnesses: what a refused write aimed at, re-read by someone entitled to see it ------


def family(route: Route) -> str:
    """Routes whose refused writes are checked by re-reading the same data."""
    if route.key == ("POST", "/auth/change-password"):
        return "password"
    if route.path.startswith("/api/v1/admin/"):
        return "platform-admin"
    if route.path.startswith("/api/v1/webhooks/"):
        return "webhooks"
    if route.policy == "platform":
        return "platform"
    if route.path.startswith("/configure"):
        return "configure"
    if route.path.startswith(("/auth", "/api-keys", "/users")):
        return "accounts"
    return "memories"


def witness(env: Env, route: Route) -> Any:
    s, owner = env.server, env.headers["platform_owner"]

    def read(resp: requests.Response) -> Any:
        if not resp.headers.get("content-type", "").startswith("application/json"):
            return resp.status_code, resp.text
        return resp.status_code, _without_usage(resp.json())

    if route.path.startswith("/api/v1/admin/"):
        return read(s.get("/api/v1/admin/keys/", headers=ADMIN)), read(s.get("/auth/users", headers=ADMIN))
    if route.policy == "platform":
        state = [
            read(s.get(_p(P), headers=owner)),
            read(s.post("/v3/memories/", params={"page_size": 200}, headers=owner, json={})),
        ]
        if route.path.startswith("/api/v1/webhooks/"):
            state.append(read(s.get(f"/api/v1/webhooks/projects/{PROJECT}/", headers=owner)))
        return state
    if route.path.startswith("/configure"):
        return read(s.get("/configure", headers=ADMIN))
    if route.key == ("POST", "/auth/change-password"):  # the refused change must not have taken
        return s.post("/auth/login", json={"email": USER["email"], "password": "pwned-password"}).status_code
    if route.path.startswith(("/auth", "/api-keys", "/users")):
        return (
            read(s.get("/users", headers=ADMIN)),
            read(s.get("/api-keys", headers=bearer(env.user_token))),
            read(s.get("/api-keys", headers=bearer(env.admin_token))),
        )
    return (
        read(s.get("/memories", params={"user_id": "matrix", "page_size": 1000}, headers=ADMIN)),
        read(s.get("/entities", headers=ADMIN)),
    )


def _without_usage(value: Any) -> Any:
    """Drops ``last_used_at`` and ``last_login``: authenticating and logging in legitimately touch them."""
    if isinstance(value, dict):
        return {k: _without_usage(v) for k, v in value.items() if k not in ("last_used_at", "last_login")}
    if isinstance(value, list):
        return [_without_usage(v) for v in value]
    return value


def generic_request(route: Route) -> Request:
    """For routes this table does not know (plugins): a made-up id and an empty body."""
    path = route.path
    while "{" in path:
        start, end = path.index("{"), path.index("}")
        name = path[start + 1 : end]
        value = {"org_id": ORG, "project_id": PROJECT}.get(name, "matrix-missing")
        path = path[:start] + value + path[end + 1 :]
    return path, ({"json": {}} if route.has_body else {})


@pytest.fixture(scope="module")
def routes(server: Server) -> list[Route]:
    document = server.get("/openapi.json").json()
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            policy = policy_of(method.upper(), path, operation.get("security", []))
            found.append(
                Route(method.upper(), path, policy, is_write(method.upper(), path, policy), "requestBody" in operation)
            )
    return found


# -- tests ---------------------------------------------------------------------------------


def test_declared_security_matches_the_readme(routes: list[Route]) -> None:
    """The generated expectations rest on ``security``; the README's table is the explicit reference."""
    declared = {r.key: r.policy for r in routes}
    missing = sorted(set(README_POLICY) - set(declared))
    assert not missing, f"routes in the README but not in /openapi.json: {missing}"
    drift = {k: (declared[k], v) for k, v in README_POLICY.items() if declared[k] != v}
    assert not drift, f"declared policy differs from the README (declared, README): {drift}"
    unknown = sorted(k for k in declared if k not in README_POLICY)
    for method, path in unknown:  # plugin routes: platform-style only, checked generically below
        assert declared[(method, path)] == "platform", (method, path, declared[(method, path)])
    assert set(SPECS) == set(README_POLICY) - {("POST", "/reset")}, "every README route needs a request spec"


@pytest.mark.parametrize("principal", PRINCIPALS)
def test_principal_against_every_route(env: Env, routes: list[Route], principal: str) -> None:
    """One principal, every route: the documented answer, and nothing changed by a refused write."""
    problems: list[str] = []
    headers = env.headers[principal]
    # The last reading of each family. Only this principal's *permitted* writes may change data, so the
    # cache is dropped after one of them; otherwise a refused write's "after" is the next one's "before".
    seen: dict[str, Any] = {}
    for route in routes:
        if route.key == ("POST", "/reset"):
            continue  # it would wipe the seeded data: test_reset_is_admin_only, last
        want = expect(principal, route)
        spec = SPECS.get(route.key)
        path, kwargs = spec.build(env, principal, want.mode) if spec else generic_request(route)
        # A refused write, or another tenant's allowed one, must leave the project's data as it was.
        guarded = route.write and (not want.allowed or principal == "platform_other_owner")
        if guarded and family(route) not in seen:
            seen[family(route)] = witness(env, route)
        before = seen.get(family(route))
        resp = env.server.request(route.method, path, headers=headers, **kwargs)
        if route.write and not guarded:
            seen.clear()
        got = resp.status_code
        label = f"{route.method} {route.path} as {principal}"
        if want.status is not None and got != want.status:
            problems.append(f"{label}: {got} (want {want.status}) {resp.text[:200]}")
        elif want.status is None and (
            got >= 500 or (want.allowed and got in (401, 403)) or (not want.allowed and 200 <= got < 300)
        ):
            problems.append(f"{label}: {got} ({'allowed' if want.allowed else 'refused'} expected) {resp.text[:200]}")
        if guarded:
            seen[family(route)] = after = witness(env, route)
            if after != before:
                problems.append(f"{label}: answered {got} but CHANGED the data it aimed at")
        if got in (401, 403) and "application/json" in resp.headers.get("content-type", ""):
            body = resp.json()
            if not (body.get("detail") or body.get("message")):
                problems.append(f"{label}: {got} without a detail/message")
    assert not problems, f"{len(problems)} cells differ:\n" + "\n".join(problems)


def test_keys_are_per_user(env: Env) -> None:
    """A user cannot revoke another user's ``svcsk_`` key (404, as if it did not exist); an admin can (offboarding)."""
    key = env.ok(env.server.post("/api-keys", headers=bearer(env.user_token), json={"label": "mine"}), 201)
    admins = env.ok(env.server.post("/api-keys", headers=bearer(env.admin_token), json={"label": "admin's"}), 201)
    assert env.server.request("DELETE", f"/api-keys/{admins['id']}", headers=bearer(env.user_token)).status_code == 404
    assert env.server.get("/memories", params={"user_id": "x"}, headers={"X-API-Key": admins["key"]}).status_code == 200
    assert env.server.get("/memories", headers={"X-API-Key": key["key"]}).status_code == 200  # its own user's
    assert env.server.request("DELETE", f"/api-keys/{key['id']}", headers=bearer(env.admin_token)).status_code == 200
    assert env.server.get("/memories", headers={"X-API-Key": key["key"]}).status_code == 401


def test_reset_is_admin_only(env: Env) -> None:
    """Runs last (it wipes the memories): every other principal is refused and nothing is deleted."""
    route = Route("POST", "/reset", "admin", True, False)
    for principal in PRINCIPALS:
        if principal in ADMINS:
            continue
        before = witness(env, route)
        want = expect(principal, route)
        resp = env.server.post("/reset", headers=env.headers[principal])
        assert resp.status_code == want.status, (principal, resp.status_code, resp.text)
        assert witness(env, route) == before, f"/reset as {principal} deleted data"
    assert env.server.get("/memories", params={"user_id": "matrix"}, headers=ADMIN).json()["count"] >= 1
    for principal in ADMINS:
        assert env.server.post("/reset", headers=env.headers[principal]).status_code == 200, principal
    assert env.server.get("/memories", params={"user_id": "matrix"}, headers=ADMIN).json()["count"] == 0
