"""``/users``: account administration for admins (list, role, disable, delete, set password).

A minimal version written for the dashboard's Users screen while the hardening work adds the
full one; the integrator reconciles the two. The ``disabled`` flag lives in the shared
key/value table (``user_disabled:<id>``), so no migration is needed: a disabled account's
credentials (JWT and API keys) answer 401 and its refresh tokens are revoked at once.
"""

from __future__ import annotations

from typing import Any, Literal

import falcon
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, insert, select, update

from ...auth.errors import AuthenticationError, ConflictError
from ...auth.passwords import check_policy, hash_password
from ...auth.tokens import TokenService
from ...auth.users import User, UserStore
from ...db import Database
from ...db.schema import api_keys, kv, refresh_tokens, users
from ...records import utcnow
from ...settings import LimitsSettings
from .. import parsing
from ..operations import operation

TAGS = ("users",)
DISABLED_PREFIX = "user_disabled:"


class UserAdminOut(BaseModel):
    id: str
    email: str
    name: str
    role: str
    disabled: bool
    created_at: str


class UserList(BaseModel):
    results: list[UserAdminOut]


class UserPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["admin", "user"] | None = None
    disabled: bool | None = None


class SetPassword(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: str = Field(max_length=1024)


class DisabledUsers:
    """Which accounts are disabled (read on every authenticated request: one indexed lookup)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def is_disabled(self, user_id: str) -> bool:
        with self._db.connect() as conn:
            row = conn.execute(select(kv.c.value).where(kv.c.key == DISABLED_PREFIX + user_id)).first()
        return bool(row is not None and row.value)

    def all(self) -> set[str]:
        with self._db.connect() as conn:
            rows = conn.execute(select(kv.c.key, kv.c.value).where(kv.c.key.startswith(DISABLED_PREFIX)))
            return {r.key[len(DISABLED_PREFIX) :] for r in rows if r.value}

    def mark(self, user_id: str, disabled: bool) -> None:
        key = DISABLED_PREFIX + user_id
        with self._db.begin() as conn:
            conn.execute(delete(kv).where(kv.c.key == key))
            if disabled:
                conn.execute(insert(kv).values(key=key, value=True, updated_at=utcnow()))


class UserAdmin:
    """The rules: an admin cannot lock themself out, and the last active admin stays an admin."""

    def __init__(self, db: Database, users_store: UserStore, tokens: TokenService, disabled: DisabledUsers) -> None:
        self.db = db
        self.users = users_store
        self.tokens = tokens
        self.disabled = disabled

    def view(self, user: User, disabled: set[str] | None = None) -> dict[str, Any]:
        off = self.disabled.is_disabled(user.id) if disabled is None else user.id in disabled
        return {
            "id": user.id,
            "email": user.email,
            "name": user.name,
            "role": user.role,
            "disabled": off,
            "created_at": user.created_at.isoformat(),
        }

    def _active_admins(self) -> set[str]:
        off = self.disabled.all()
        return {u.id for u in self.users.list() if u.role == "admin" and u.id not in off}

    def _guard(self, caller: str | None, target: str, action: str) -> None:
        if caller == target:
            raise ConflictError(f"you cannot {action} your own account here")
        admins = self._active_admins()
        if admins == {target}:
            raise ConflictError(f"cannot {action} the last active admin")

    def patch(self, caller: str | None, user_id: str, body: UserPatch) -> User:
        user = self.users.get(user_id)
        if body.role == "user" and user.role == "admin":
            self._guard(caller, user_id, "demote")
        if body.disabled:
            self._guard(caller, user_id, "disable")
        if body.role is not None and body.role != user.role:
            with self.db.begin() as conn:
                conn.execute(update(users).where(users.c.id == user_id).values(role=body.role, updated_at=utcnow()))
        if body.disabled is not None:
            self.disabled.mark(user_id, body.disabled)
            if body.disabled:
                self.tokens.revoke_user(user_id)
        return self.users.get(user_id)

    def delete(self, caller: str | None, user_id: str) -> None:
        self.users.get(user_id)
        self._guard(caller, user_id, "delete")
        with self.db.begin() as conn:
            conn.execute(delete(api_keys).where(api_keys.c.user_id == user_id))
            conn.execute(delete(refresh_tokens).where(refresh_tokens.c.user_id == user_id))
            conn.execute(delete(users).where(users.c.id == user_id))
        self.disabled.mark(user_id, False)

    def set_password(self, user_id: str, password: str) -> None:
        self.users.get(user_id)
        check_policy(password)
        with self.db.begin() as conn:
            conn.execute(
                update(users)
                .where(users.c.id == user_id)
                .values(password_hash=hash_password(password), updated_at=utcnow())
            )
        self.tokens.revoke_user(user_id)


def _caller(req: falcon.Request) -> str | None:
    principal = req.context.principal
    return principal.user_id if principal is not None else None


class Users:
    def __init__(self, admin: UserAdmin) -> None:
        self._admin = admin

    @operation(
        "List accounts with role and state (admin only)", auth="admin", tags=TAGS, response=UserList, errors=(401, 403)
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        off = self._admin.disabled.all()
        resp.media = {"results": [self._admin.view(u, off) for u in self._admin.users.list()]}


class OneUser:
    def __init__(self, admin: UserAdmin, limits: LimitsSettings) -> None:
        self._admin = admin
        self._limits = limits

    @operation(
        "Change an account's role or disable it (admin only; never the last active admin)",
        auth="admin",
        tags=TAGS,
        body=UserPatch,
        response=UserAdminOut,
        errors=(400, 401, 403, 404, 409, 422),
    )
    def on_patch(self, req: falcon.Request, resp: falcon.Response, user_id: str) -> None:
        body = parsing.body(req, UserPatch, self._limits)
        resp.media = self._admin.view(self._admin.patch(_caller(req), user_id, body))

    @operation(
        "Delete an account and its API keys (admin only; never yourself or the last admin)",
        auth="admin",
        tags=TAGS,
        errors=(401, 403, 404, 409),
    )
    def on_delete(self, req: falcon.Request, resp: falcon.Response, user_id: str) -> None:
        self._admin.delete(_caller(req), user_id)
        resp.media = {"message": "user deleted"}


class UserPassword:
    def __init__(self, admin: UserAdmin, limits: LimitsSettings) -> None:
        self._admin = admin
        self._limits = limits

    @operation(
        "Set an account's password (admin only; signs the account out everywhere)",
        auth="admin",
        tags=TAGS,
        body=SetPassword,
        errors=(400, 401, 403, 404, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, user_id: str) -> None:
        body = parsing.body(req, SetPassword, self._limits)
        self._admin.set_password(user_id, body.password)
        resp.media = {"message": "password set; the account's sessions were signed out"}


def check_not_disabled(disabled: DisabledUsers, user_id: str | None) -> None:
    """Raised from authentication: a disabled account's credentials stop working at once."""
    if user_id is not None and disabled.is_disabled(user_id):
        raise AuthenticationError("this account is disabled; ask an admin")
