"""Admin-only bootstrap routes (admin key or admin session): the HTTP twin of ``memorist admin``."""

from __future__ import annotations

from typing import Any

import falcon

from ...bootstrap import Bootstrap
from ...errors import MemoristError, NotFoundError
from ...tenancy import ProjectError
from ..declaration import operation
from . import models as m

TAGS = ("platform admin",)


class BootstrapRefused(MemoristError):
    """A tenancy refusal (e.g. 409 project exists) answered as ``{"detail"}``, like every non-project route."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class BootstrapResource:
    def __init__(self, bootstrap: Bootstrap, limits: Any) -> None:
        self._bootstrap, self._limits = bootstrap, limits

    @operation(
        "Create an organization, project, member and platform key (the key is shown once)",
        auth="admin",
        tags=TAGS,
        body=m.Bootstrap,
        response=m.BootstrapOut,
        status=201,
        errors=(400, 403, 409, 422),
        credentials=True,
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.Bootstrap) -> None:
        try:
            resp.media = self._bootstrap.everything(
                body.org_name,
                body.project_name,
                body.email,
                body.name,
                body.password,
                body.role,
                body.org_id,
                body.project_id,
            )
        except ProjectError as exc:
            raise BootstrapRefused(exc.message, exc.status) from None
        resp.status = falcon.HTTP_201


class PlatformKeys:
    def __init__(self, bootstrap: Bootstrap) -> None:
        self._bootstrap = bootstrap

    @operation(
        "Every platform key (without its value)",
        auth="admin",
        tags=TAGS,
        response=m.PlatformKeysOut,
        errors=(403,),
        credentials=True,
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"results": self._bootstrap.list_keys()}


class PlatformKey:
    def __init__(self, bootstrap: Bootstrap) -> None:
        self._bootstrap = bootstrap

    @operation(
        "Revoke a platform key",
        auth="admin",
        tags=TAGS,
        response=m.PlatformMessage,
        errors=(403, 404),
        credentials=True,
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, key_id: str) -> None:
        if not self._bootstrap.keys.revoke(key_id):
            raise NotFoundError(f"key '{key_id}' not found")
        resp.media = {"message": "key revoked"}
