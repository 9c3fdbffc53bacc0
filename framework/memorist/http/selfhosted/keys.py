"""``/api-keys``: a dashboard user's ``svcsk_`` keys (a JWT session is required).

An admin's ``DELETE /api-keys/{key_id}`` revokes any user's key (offboarding).
With ``AUTH_DISABLED=true`` there are no users and no keys are needed: the list
is empty and creating one answers 409 saying why.
"""

from __future__ import annotations

import falcon

from ...auth.api_keys import ApiKeyStore
from ...auth.errors import ConflictError
from ...auth.services import AuthServices
from ...config.settings import LimitsSettings
from ...errors import NotFoundError
from ..declaration import operation
from . import models as m

TAGS = ("api-keys",)


def _keys_in_use(resource: object, req: falcon.Request) -> None:
    """Before the body is read: with AUTH_DISABLED=true there are no keys to create (409)."""
    auth: AuthServices = resource._auth  # type: ignore[attr-defined]
    if auth.settings.disabled:
        raise ConflictError("API keys are not used while AUTH_DISABLED=true: every request is already allowed")


class ApiKeys:
    def __init__(self, keys: ApiKeyStore, auth: AuthServices, limits: LimitsSettings) -> None:
        self._keys = keys
        self._auth = auth
        self._limits = limits

    @operation("List the caller's active keys", auth="jwt", tags=TAGS, response=list[m.KeyOut], errors=(401,))
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        if self._auth.settings.disabled:
            resp.media = []
            return
        resp.media = [k.public() for k in self._keys.list(self._auth.user_id(req))]

    @operation(
        "Create a key; the full value is in this response only",
        auth="jwt",
        tags=TAGS,
        body=m.CreateKey,
        body_required=False,
        gate=_keys_in_use,
        response=m.CreatedKey,
        status=201,
        errors=(401, 409, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.CreateKey) -> None:
        key, full = self._keys.create(self._auth.user_id(req), body.label)
        resp.media = {
            "id": key.id,
            "key": full,
            "label": key.label,
            "key_prefix": key.key_prefix,
            "created_at": key.created_at.isoformat(),
        }
        resp.status = falcon.HTTP_201


class OneApiKey:
    def __init__(self, keys: ApiKeyStore, auth: AuthServices) -> None:
        self._keys = keys
        self._auth = auth

    @operation(
        "Revoke a key (it fails at once); admins may revoke any user's key",
        auth="jwt",
        tags=TAGS,
        response=m.Message,
        errors=(401, 404),
        credentials=True,
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, key_id: str) -> None:
        principal = req.context.principal
        owner = None if principal.is_admin else self._auth.user_id(req)
        if not self._keys.revoke(key_id, owner, kind="selfhosted"):
            raise NotFoundError(f"API key '{key_id}' not found")
        resp.media = {"message": "API key revoked"}
