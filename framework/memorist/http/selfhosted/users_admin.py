"""``/users``: account administration for admins (list, role, disable, delete, reset password).

Every change that reduces what an account may do (role change, disable, delete,
password reset) bumps the account's token version, so its sessions and access
tokens stop working at once; its API keys fail with it (a disabled account's
keys are refused, a deleted account's keys are revoked). The last enabled admin
cannot be demoted, disabled or deleted (409), so the deployment never ends up
with nobody able to administer it. The dashboard's Users screen reads exactly
these paths and field names.
"""

from __future__ import annotations

import falcon

from ...auth.api_keys import ApiKeyStore
from ...auth.services import AuthServices
from ...errors import NotFoundError, ValidationError
from ..declaration import operation
from . import models as m

TAGS = ("users",)


class UsersList:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Every self-hosted account with its role, state and last login (admin)",
        auth="admin",
        tags=TAGS,
        response=list[m.AdminUserOut],
        errors=(401, 403),
        credentials=True,
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = [u.admin_view() for u in self._auth.users.list()]


class OneUser:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Change an account's role or disable/enable it (admin; 409 for the last admin)",
        auth="admin",
        tags=TAGS,
        body=m.UserPatch,
        response=m.AdminUserOut,
        errors=(400, 401, 403, 404, 409, 422),
        credentials=True,
    )
    def on_patch(self, req: falcon.Request, resp: falcon.Response, user_id: str, body: m.UserPatch) -> None:
        if body.role is None and body.disabled is None:
            raise ValidationError("body: give role and/or disabled")
        resp.media = self._auth.users.administer(user_id, role=body.role, disabled=body.disabled).admin_view()

    @operation(
        "Delete an account, its sessions and keys (admin; 409 for the last admin)",
        auth="admin",
        tags=TAGS,
        response=m.Message,
        errors=(401, 403, 404, 409),
        credentials=True,
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, user_id: str) -> None:
        self._auth.users.delete(user_id)
        resp.media = {"message": "user deleted"}


class UserPassword:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Set a new password for an account (admin); its sessions are signed out",
        auth="admin",
        tags=TAGS,
        body=m.PasswordReset,
        response=m.Message,
        errors=(400, 401, 403, 404, 422),
        credentials=True,
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, user_id: str, body: m.PasswordReset) -> None:
        self._auth.users.get_selfhosted(user_id)
        self._auth.users.set_password(user_id, body.password, field="password")
        resp.media = {"message": "password reset; the account's sessions were signed out"}


class UserKeys:
    def __init__(self, keys: ApiKeyStore, auth: AuthServices) -> None:
        self._keys = keys
        self._auth = auth

    @operation(
        "An account's active API keys (admin); revoke one with DELETE /api-keys/{key_id}",
        auth="admin",
        tags=TAGS,
        response=list[m.KeyOut],
        errors=(401, 403, 404),
        credentials=True,
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response, user_id: str) -> None:
        try:
            self._auth.users.get_selfhosted(user_id)
        except NotFoundError:
            raise NotFoundError(f"user '{user_id}' not found") from None
        resp.media = [k.public() for k in self._keys.list(user_id)]
