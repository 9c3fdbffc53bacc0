"""Declaring what a responder is: its auth policy and its pydantic models.

``@operation(...)`` on a Falcon responder is the single source for three
things: authentication (checked before the responder runs), request
validation (the same models parse the body and query), and the OpenAPI
document (generated from the declarations, see :mod:`.openapi`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import falcon
from pydantic import BaseModel

Policy = Literal["open", "user", "admin", "jwt", "platform"]
Responder = Callable[..., None]


@dataclass(frozen=True)
class Operation:
    summary: str
    auth: Policy
    tags: tuple[str, ...] = ()
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: Any = None
    status: int = 200
    errors: tuple[int, ...] = ()
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def operation(
    summary: str,
    *,
    auth: Policy,
    tags: tuple[str, ...] = (),
    body: type[BaseModel] | None = None,
    query: type[BaseModel] | None = None,
    response: Any = None,
    status: int = 200,
    errors: tuple[int, ...] = (),
    description: str = "",
) -> Callable[[Responder], Responder]:
    """Mark a responder; authentication runs before it, per ``auth``.

    ``open``: no credentials; ``user``: any valid credential; ``admin``: an admin
    principal; ``jwt``: a dashboard session (Bearer JWT) only; ``platform``: an
    ``Authorization: Token`` platform key.
    """
    op = Operation(summary, auth, tags, body, query, response, status, errors, description)

    def wrap(responder: Responder) -> Responder:
        @functools.wraps(responder)
        def guarded(self: Any, req: falcon.Request, resp: falcon.Response, **params: Any) -> None:
            if op.auth != "open":
                req.context.principal = req.context.authenticator.require(req, op.auth)
            responder(self, req, resp, **params)
            if resp.status == falcon.HTTP_200 and op.status != 200:
                resp.status = falcon.code_to_http_status(op.status)

        guarded.__operation__ = op  # type: ignore[attr-defined]
        return guarded

    return wrap


def operations_of(resource: object) -> dict[str, Operation]:
    """``{"get": Operation, ...}`` for the responders of a resource (suffix-less)."""
    found = {}
    for method in ("get", "post", "put", "patch", "delete"):
        responder = getattr(resource, f"on_{method}", None)
        op = getattr(responder, "__operation__", None)
        if op is not None:
            found[method] = op
    return found
