"""Declaring what a responder is: its auth policy, its request and response models.

``@operation(...)`` on a Falcon responder is the single source for four
things: authentication (checked before the responder runs), the least role a
platform route outside the operations layer needs (``role=``; checked by the
platform's ``access`` through :func:`memorist.operations.authorize_role`;
memory routes need no declaration here, the operations they call declare
theirs), request parsing
and validation (the declared ``body`` and ``query`` models parse the request,
and the responder receives the validated models as its ``body=`` and
``query=`` keyword arguments; no responder reads the request by hand), and the
OpenAPI document (generated from the same declarations, see :mod:`.openapi`).
Every operation declares its ``response`` model, so the document has no
empty schema.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import falcon
from pydantic import BaseModel

from ..auth.errors import PermissionDenied
from ..auth.roles import Role
from ..config.settings import LimitsSettings
from ..tenancy import ProjectError
from . import parsing

Policy = Literal["open", "user", "admin", "jwt", "platform"]
Responder = Callable[..., None]
#: Runs after authentication and before the request is parsed: ``gate(resource, req)``.
Gate = Callable[[Any, falcon.Request], None]
#: Looks at the raw JSON before validation (for a 400 a model cannot give): ``check(data)``.
RawCheck = Callable[[Any], None]
DEFAULT_LIMITS = LimitsSettings()
CREDENTIALS_WHILE_DISABLED = (
    "AUTH_DISABLED=true: this server hands out, lists and changes no credentials or accounts (anyone "
    "who reaches it is an anonymous admin). Run `memorist admin ...` or `memorist init` on the server, "
    "or turn authentication on"
)


@dataclass(frozen=True)
class Operation:
    summary: str
    auth: Policy
    response: Any
    tags: tuple[str, ...] = ()
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    status: int = 200
    errors: tuple[int, ...] = ()
    description: str = ""
    #: False: an empty body is read as ``{}`` (every field has a default).
    body_required: bool = True
    gate: Gate | None = None
    raw_check: RawCheck | None = None
    #: Project routes answer their validation errors as ``{"message"}`` (the platform spec's shape).
    project_errors: bool = False
    #: Issues, lists or changes credentials or accounts: refused (403) while AUTH_DISABLED=true.
    credentials: bool = False
    #: The least role a member needs (platform routes the operations layer does not serve).
    role: Role | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def operation(
    summary: str,
    *,
    auth: Policy,
    response: Any,
    tags: tuple[str, ...] = (),
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    status: int = 200,
    errors: tuple[int, ...] = (),
    description: str = "",
    body_required: bool = True,
    gate: Gate | None = None,
    raw_check: RawCheck | None = None,
    project_errors: bool = False,
    credentials: bool = False,
    role: Role | str | None = None,
) -> Callable[[Responder], Responder]:
    """Mark a responder; authentication runs before it, per ``auth``, then parsing.

    ``open``: no credentials; ``user``: any valid credential; ``admin``: an admin
    principal; ``jwt``: a dashboard session (Bearer JWT) only; ``platform``: an
    ``Authorization: Token`` platform key. The responder is called with
    ``body=`` and/or ``query=`` when the operation declares them.

    ``credentials``: the route issues, lists or changes keys, passwords or accounts. With
    ``AUTH_DISABLED=true`` anyone who reaches the server is an anonymous admin; such a
    caller must not mint a platform key (the platform surface still checks its keys), set
    someone's password or read the member list, so these routes answer 403 then.

    ``role``: the least :class:`~memorist.auth.roles.Role` a platform member needs
    here (``"OWNER"`` to change project settings, members, webhooks).
    """
    op = Operation(
        summary,
        auth,
        response,
        tags,
        body,
        query,
        status,
        errors,
        description,
        body_required,
        gate,
        raw_check,
        project_errors,
        credentials,
        Role(role) if role is not None else None,
    )

    def wrap(responder: Responder) -> Responder:
        @functools.wraps(responder)
        def guarded(self: Any, req: falcon.Request, resp: falcon.Response, **params: Any) -> None:
            req.context.required_role = op.role
            if op.auth != "open":
                req.context.principal = req.context.authenticator.require(req, op.auth)
            if op.credentials and req.context.authenticator.disabled:
                raise PermissionDenied(CREDENTIALS_WHILE_DISABLED)
            if op.gate is not None:
                op.gate(self, req)
            try:
                params.update(parse(op, req))
            except (parsing.UnprocessableEntity, parsing.NotAnObject) as exc:
                if op.project_errors:
                    raise ProjectError(exc.message, 400) from None
                raise
            responder(self, req, resp, **params)
            if resp.status == falcon.HTTP_200 and op.status != 200:
                resp.status = falcon.code_to_http_status(op.status)

        guarded.__operation__ = op  # type: ignore[attr-defined]
        return guarded

    return wrap


TENANT_FIELDS = ("org_id", "project_id")


def named_tenant(req: falcon.Request, data: Any) -> dict[str, str]:
    """``org_id``/``project_id`` a platform request names: the query string first, then a JSON object body.

    The older platform clients send them with every call; the platform's ``access``
    serves the request in that project when the key's user is a member of it.
    """
    found: dict[str, str] = {}
    for name in TENANT_FIELDS:
        value = req.get_param(name)
        if value is None and isinstance(data, dict):
            value = data.get(name)
        if isinstance(value, str) and value:
            found[name] = value
    return found


def parse(op: Operation, req: falcon.Request) -> dict[str, Any]:
    """The declared ``query`` and ``body`` of ``req``, validated (query first, as a URL is read first)."""
    parsed: dict[str, Any] = {}
    data: Any = None
    if op.query is not None:
        parsed["query"] = parsing.query(req, op.query)
    if op.body is not None:
        limits = getattr(req.context, "limits", None) or DEFAULT_LIMITS
        data = parsing.read_json(
            req, max_bytes=limits.max_body_bytes, max_depth=limits.max_json_depth, required=op.body_required
        )
        if op.raw_check is not None:
            op.raw_check(data)
        parsed["body"] = parsing.validate(op.body, data)
    if op.auth == "platform":
        req.context.named_tenant = named_tenant(req, data)
    return parsed


class LimitsMiddleware:
    """Hands the body limits to ``@operation`` parsing (settings may differ per app)."""

    def __init__(self, limits: LimitsSettings) -> None:
        self._limits = limits

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.limits = self._limits


def operations_of(resource: object) -> dict[str, Operation]:
    """``{"get": Operation, ...}`` for the responders of a resource (suffix-less)."""
    found = {}
    for method in ("get", "post", "put", "patch", "delete"):
        responder = getattr(resource, f"on_{method}", None)
        op = getattr(responder, "__operation__", None)
        if op is not None:
            found[method] = op
    return found
