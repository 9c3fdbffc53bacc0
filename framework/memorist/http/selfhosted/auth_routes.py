"""``/auth/*``: setup status, first-admin registration, login, refresh, profile, password.

Registration is open only while no account exists; it creates the admin, who
then creates further accounts with ``POST /auth/users``. Login and register
are rate limited per client address (429 with ``Retry-After``).
"""

from __future__ import annotations

from collections.abc import Callable

import falcon

from ...auth.errors import AuthenticationError, AuthMisconfigured, PermissionDenied
from ...auth.rate_limit import RateLimiter
from ...auth.tokens import TokenService
from ...auth.users import UserStore
from ...settings import AuthSettings, LimitsSettings
from .. import parsing
from ..operations import operation
from . import models as m

TAGS = ("auth",)


def client_address(req: falcon.Request) -> str:
    return req.remote_addr or "unknown"


class AuthServices:
    """What the auth resources share."""

    def __init__(
        self,
        settings: AuthSettings,
        users: UserStore,
        tokens: TokenService,
        limiter: RateLimiter,
        limits: LimitsSettings,
        is_disabled: Callable[[str], bool] | None = None,
    ) -> None:
        self.settings = settings
        self.is_disabled = is_disabled
        self.users = users
        self.tokens = tokens
        self.limiter = limiter
        self.limits = limits

    def need_secret(self) -> None:
        if not self.settings.disabled and not self.settings.jwt_secret:
            raise AuthMisconfigured("JWT_SECRET is not set: authentication endpoints cannot work until it is")

    def user_id(self, req: falcon.Request) -> str:
        principal = req.context.principal
        if principal is None or principal.user_id is None:
            raise PermissionDenied("this route needs a dashboard user (not the admin key or auth-disabled mode)")
        return str(principal.user_id)


class SetupStatus:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation("Whether the first admin still has to register", auth="open", tags=TAGS, response=m.SetupStatus)
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        # The two extra flags let the dashboard explain a misconfigured server before anyone types a password.
        resp.media = {
            "needsSetup": self._auth.users.count() == 0,
            "authDisabled": self._auth.settings.disabled,
            "jwtConfigured": bool(self._auth.settings.jwt_secret),
        }


class Register:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Register the first admin (403 once an account exists)",
        auth="open",
        tags=TAGS,
        body=m.Register,
        response=m.Tokens,
        status=201,
        errors=(403, 409, 422, 429, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._auth.need_secret()
        self._auth.limiter.hit(f"register:{client_address(req)}")
        body = parsing.body(req, m.Register, self._auth.limits)
        user = self._auth.users.register_first(body.name, body.email, body.password)
        resp.media = self._auth.tokens.issue(user.id).body()
        resp.status = falcon.HTTP_201


class Login:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Log in with email and password",
        auth="open",
        tags=TAGS,
        body=m.Login,
        response=m.Tokens,
        errors=(401, 422, 429, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._auth.need_secret()
        self._auth.limiter.hit(f"login:{client_address(req)}")
        body = parsing.body(req, m.Login, self._auth.limits)
        user = self._auth.users.authenticate(body.email, body.password)
        if self._auth.is_disabled is not None and self._auth.is_disabled(user.id):
            raise AuthenticationError("this account is disabled; ask an admin")
        resp.media = self._auth.tokens.issue(user.id).body()


class Refresh:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Exchange a refresh token for a new pair (rotation; reuse revokes the login)",
        auth="open",
        tags=TAGS,
        body=m.Refresh,
        response=m.Tokens,
        errors=(401, 422, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._auth.need_secret()
        body = parsing.body(req, m.Refresh, self._auth.limits)
        user_id, pair = self._auth.tokens.rotate(body.refresh_token)
        if self._auth.is_disabled is not None and self._auth.is_disabled(user_id):
            self._auth.tokens.revoke_user(user_id)
            raise AuthenticationError("this account is disabled; ask an admin")
        resp.media = pair.body()


class Me:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation("The current user", auth="jwt", tags=TAGS, response=m.UserOut, errors=(401, 500))
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._auth.need_secret()
        resp.media = self._auth.users.get(self._auth.user_id(req)).public()

    @operation(
        "Change the current user's name or email (409 if the email is in use)",
        auth="user",
        tags=TAGS,
        body=m.UpdateMe,
        response=m.UserOut,
        errors=(401, 403, 409, 422, 500),
    )
    def on_patch(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._auth.need_secret()
        body = parsing.body(req, m.UpdateMe, self._auth.limits)
        resp.media = self._auth.users.update_profile(self._auth.user_id(req), body.name, body.email).public()


class ChangePassword:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Change the current user's password (401 if the current one is wrong)",
        auth="user",
        tags=TAGS,
        body=m.ChangePassword,
        response=m.Message,
        errors=(400, 401, 403, 422, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        self._auth.need_secret()
        body = parsing.body(req, m.ChangePassword, self._auth.limits)
        user_id = self._auth.user_id(req)
        self._auth.users.change_password(user_id, body.current_password, body.new_password)
        self._auth.tokens.revoke_user(user_id)
        resp.media = {"message": "password changed; other sessions were signed out"}


class Users:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Create an account (admin only)",
        auth="admin",
        tags=TAGS,
        body=m.CreateUser,
        response=m.UserOut,
        status=201,
        errors=(401, 403, 409, 422),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = parsing.body(req, m.CreateUser, self._auth.limits)
        resp.media = self._auth.users.create(body.name, body.email, body.password, role=body.role).public()
        resp.status = falcon.HTTP_201

    @operation("List accounts (admin only)", auth="admin", tags=TAGS, response=list[m.UserOut], errors=(401, 403))
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = [u.public() for u in self._auth.users.list()]
