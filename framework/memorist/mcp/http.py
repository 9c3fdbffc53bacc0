"""``/mcp`` on the running app: MCP's Streamable HTTP transport bridged into Falcon (WSGI).

Why a bridge and not a second (ASGI) listener: the app runs under gunicorn
with several worker processes and no sticky sessions, and every other door
authenticates in Falcon. The SDK's *stateless JSON-response* mode makes each
MCP POST self-contained (one JSON-RPC message in, one JSON body out, no
session to pin to a worker, no open stream), which is exactly a WSGI request.
So ``/mcp`` is an ordinary Falcon route: the credentials are checked by the
same :class:`~memorist.auth.authenticator.Authenticator` (the kernel's) as the REST API, the caller's
scope is fixed from them, and the request is handed to the SDK's ASGI
handler on a small event loop that each worker process starts on first use
(after the fork). One port, one process model, one authentication path.

GET (a server-to-client SSE stream) is answered 405, which the transport
allows for servers that send nothing unprompted; Memorist never does.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import falcon

from ..auth.errors import PermissionDenied
from ..auth.principal import Principal
from ..errors import MemoristError, ValidationError
from ..operations.caller import Caller, ScopeError, caller_for
from ..records import ENTITY_SCOPE_FIELDS
from ..tenancy import Tenancy
from .scope import CALLER_KEY

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from ..operations import Operations

log = logging.getLogger("memorist.mcp")
PATH = "/mcp"
#: Credentials are consumed here; the SDK (and the tools) never see them.
CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "cookie"})
MAX_ID = 255


class McpUnavailable(MemoristError):
    status = 501


class PayloadTooLarge(MemoristError):
    status = 413


def mcp_caller(principal: Principal, tenancy: Tenancy) -> Caller:
    """The caller a credential makes on ``/mcp`` (documented in docs/mcp.md, "Who sees what").

    The same as on every door (:func:`memorist.operations.caller_for`: a platform
    key's project and member role; a self-hosted user confined to its own
    ``user_id``; an admin unconfined), plus one convenience for a model: a
    self-hosted admin account's ``user_id`` defaults to its own email.
    """
    caller = caller_for(principal, tenancy)
    own = principal.email or principal.user_id
    if principal.is_admin and principal.user_id is not None and own is not None:
        return replace(caller, defaults={"user_id": own})
    return caller


class Bridge:
    """The SDK's stateless JSON-response handler on a private event loop, called from WSGI threads."""

    def __init__(self, operations: Operations) -> None:
        self._operations = operations
        self._lock = threading.Lock()
        self._portal: BlockingPortal | None = None
        self._manager: Any = None

    def _started(self) -> BlockingPortal:
        with self._lock:
            if self._portal is None:
                from anyio.from_thread import start_blocking_portal
                from mcp.server.transport_security import TransportSecuritySettings

                from .adapter import MemoryAccess
                from .tools import build_server, request_caller

                server = build_server(MemoryAccess(lambda: self._operations), request_caller)
                # Made for its session manager (the SDK's public mounting path); the Starlette app
                # itself is not served. Host/Origin checks are off: every request carries
                # credentials in headers a cross-site page cannot send, and Falcon checked them.
                server.streamable_http_app(
                    streamable_http_path=PATH,
                    json_response=True,
                    stateless_http=True,
                    transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
                )
                manager = server.session_manager
                portal_cm = start_blocking_portal(name="memorist-mcp")
                portal = portal_cm.__enter__()
                portal.wrap_async_context_manager(manager.run()).__enter__()
                self._manager, self._portal, self._portal_cm = manager, portal, portal_cm
            return self._portal

    def handle(self, scope: dict[str, Any], body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        portal = self._started()
        answer: tuple[int, list[tuple[bytes, bytes]], bytes] = portal.call(self._exchange, scope, body)
        return answer

    async def _exchange(self, scope: dict[str, Any], body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        import anyio

        status = 500
        headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []
        sent = False
        done = anyio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(bytes(message.get("body", b"")))
                if not message.get("more_body", False):
                    done.set()

        await self._manager.handle_request(scope, receive, send)
        done.set()
        return status, headers, b"".join(chunks)


class McpResource:
    """``POST /mcp``: one MCP message per request, as the caller its credentials allow.

    Query parameters (``?agent_id=cursor``, ``user_id``, ``run_id``, ``app_id``) pin more
    identifiers for every call of that client, so one key can serve several agents with
    separate memories; they narrow what the credentials allow and never widen it (403).
    """

    def __init__(self, operations: Operations, tenancy: Tenancy, max_body_bytes: int) -> None:
        self._tenancy = tenancy
        self._max_body = max_body_bytes
        self._bridge = Bridge(operations)
        self._available = importlib.util.find_spec("mcp") is not None

    def _caller(self, req: falcon.Request) -> Caller:
        scheme = (req.get_header("Authorization") or "").partition(" ")[0].lower()
        policy = "platform" if scheme == "token" else "user"
        principal = req.context.authenticator.require(req, policy)
        req.context.principal = principal
        caller = mcp_caller(principal, self._tenancy)
        extra: dict[str, str] = {}
        for name, value in req.params.items():
            if name not in ENTITY_SCOPE_FIELDS:
                raise ValidationError(f"{name}: unknown query parameter; /mcp takes {', '.join(ENTITY_SCOPE_FIELDS)}")
            if not isinstance(value, str) or not value or len(value) > MAX_ID:
                raise ValidationError(f"{name}: one non-empty value of at most {MAX_ID} characters")
            extra[name] = value
        try:
            return caller.narrowed(extra) if extra else caller
        except ScopeError as exc:
            raise PermissionDenied(exc.message) from None

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        caller = self._caller(req)
        if not self._available:
            raise McpUnavailable("the MCP endpoint needs the 'mcp' package: pip install 'memorist[mcp]'")
        body = req.bounded_stream.read(self._max_body + 1)
        if len(body) > self._max_body:
            raise PayloadTooLarge(f"request body: larger than {self._max_body} bytes")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": req.scheme,
            "path": PATH,
            "raw_path": PATH.encode(),
            "root_path": "",
            "query_string": req.query_string.encode("latin-1"),
            "headers": [
                (name.lower().encode("latin-1"), value.encode("latin-1"))
                for name, value in req.headers.items()
                if name.lower() not in CREDENTIAL_HEADERS
            ],
            "client": (req.remote_addr or "", 0),
            "server": (req.host, req.port),
            CALLER_KEY: caller,
        }
        status, headers, data = self._bridge.handle(scope, body)
        resp.status = falcon.code_to_http_status(status)
        for name, value in headers:
            if name.lower() not in (b"content-length",):
                resp.append_header(name.decode("latin-1"), value.decode("latin-1"))
        resp.data = data

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._caller(req)
        resp.status = falcon.HTTP_405
        resp.set_header("Allow", "POST")
        resp.media = {"detail": "this MCP endpoint is stateless: POST one JSON-RPC message per request"}

    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        self.on_get(req, resp)


def add_mcp_route(
    app: falcon.App[falcon.Request, falcon.Response], operations: Operations, tenancy: Tenancy, max_body_bytes: int
) -> None:
    """Mount ``/mcp`` (not in /openapi.json: it speaks JSON-RPC, documented in docs/mcp.md)."""
    app.add_route(PATH, McpResource(operations, tenancy, max_body_bytes))
