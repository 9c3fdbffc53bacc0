"""``/auth/*``: setup status, first-admin registration, login, refresh, logout, profile, password.

Registration is open only while no account exists; it creates the admin, who
then creates further accounts with ``POST /auth/users``. Failed logins are
limited per account and client address (checked before the password: that
address may not keep guessing that account) and per client address (looked at
only after a wrong password, 429 with ``Retry-After``): a correct password is
never refused because others failed from the same address or on other accounts. Account changes need a dashboard
session (JWT), not an API key; changing the email or password needs the
current password.
"""

from __future__ import annotations

import hashlib

import falcon

from ...auth.errors import AuthenticationError, PermissionDenied
from ...auth.services import AuthServices
from ...errors import ValidationError
from ..declaration import Gate, operation
from . import models as m

TAGS = ("auth",)
#: What ``GET /auth/me`` answers while ``AUTH_DISABLED=true`` (no account is behind the request).
ANONYMOUS_ME = {
    "id": "anonymous",
    "name": "Anonymous (authentication disabled)",
    "email": "",
    "role": "admin",
    "created_at": "1970-01-01T00:00:00+00:00",
}


def _gate(bucket: str | None = None) -> Gate:
    """Before the body is read: the JWT secret must exist (else 500), and ``bucket`` counts the attempt."""

    def gate(resource: object, req: falcon.Request) -> None:
        auth: AuthServices = resource._auth  # type: ignore[attr-defined]
        auth.need_secret()
        if bucket is not None:
            auth.address_limiter.hit(f"{bucket}:{auth.address(req)}")

    return gate


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
        gate=_gate("register"),
        response=m.Tokens,
        status=201,
        errors=(403, 409, 422, 429, 500),
        credentials=True,
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.Register) -> None:
        user = self._auth.users.register_first(body.name, body.email, body.password)
        resp.media = self._auth.issue(user.id)
        resp.status = falcon.HTTP_201


class Login:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Log in with email and password",
        auth="open",
        tags=TAGS,
        body=m.Login,
        gate=_gate(),
        response=m.Tokens,
        errors=(401, 422, 429, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.Login) -> None:
        # A digest keeps the key within the column for any email the body allows (320 characters).
        account = hashlib.sha256(body.email.strip().lower().encode("utf-8")).hexdigest()[:40]
        address = self._auth.address(req)
        # The account's budget is per address: guessing one account's password from an address is
        # refused before the password is read, while the owner signing in from elsewhere is not.
        account_key = f"login-account:{account}:{address}"
        self._auth.limiter.check(account_key)
        try:
            user = self._auth.users.authenticate(body.email, body.password)
        except AuthenticationError:
            self._auth.limiter.hit(account_key)
            # The address's budget counts failures only and is looked at only after a failure, so a
            # correct password is never refused for other accounts' failures from a shared address.
            self._auth.address_limiter.hit(f"login-address:{address}")
            raise
        resp.media = self._auth.tokens.issue(user.id, version=user.token_version).body()


class Refresh:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Exchange a refresh token for a new pair (rotation; reuse revokes the login)",
        auth="open",
        tags=TAGS,
        body=m.Refresh,
        gate=_gate(),
        response=m.Tokens,
        errors=(401, 422, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.Refresh) -> None:
        _, pair = self._auth.tokens.rotate(body.refresh_token)
        resp.media = pair.body()


class Me:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "The current user (with AUTH_DISABLED=true: an anonymous admin)",
        auth="jwt",
        tags=TAGS,
        response=m.UserOut,
        errors=(401, 500),
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        if self._auth.settings.disabled:
            resp.media = dict(ANONYMOUS_ME)
            return
        self._auth.need_secret()
        resp.media = self._auth.users.get(self._auth.user_id(req)).public()

    @operation(
        "Change the current user's name or email (an email change needs current_password; 409 if in use)",
        auth="jwt",
        tags=TAGS,
        body=m.UpdateMe,
        gate=_gate(),
        response=m.UserOut,
        errors=(400, 401, 403, 409, 422, 500),
    )
    def on_patch(self, req: falcon.Request, resp: falcon.Response, body: m.UpdateMe) -> None:
        user_id = self._auth.user_id(req)
        if body.email is not None:
            if not body.current_password:
                raise ValidationError("current_password: required to change the email")
            self._auth.users.check_password(user_id, body.current_password)
        resp.media = self._auth.users.update_profile(user_id, body.name, body.email).public()


class ChangePassword:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Change the current user's password; this session goes on, every other one is signed out at once",
        auth="jwt",
        tags=TAGS,
        body=m.ChangePassword,
        gate=_gate(),
        response=m.PasswordChanged,
        errors=(400, 401, 403, 422, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.ChangePassword) -> None:
        user_id = self._auth.user_id(req)
        session = req.context.principal.session
        self._auth.users.change_password(user_id, body.current_password, body.new_password, keep_session=session)
        if session is not None:
            resp.media = {"message": "password changed; other sessions were signed out"}
        else:  # a token without a session id cannot be kept apart: everything was revoked, here is a new login
            resp.media = {"message": "password changed; all sessions were signed out", **self._auth.issue(user_id)}


class Logout:
    def __init__(self, auth: AuthServices) -> None:
        self._auth = auth

    @operation(
        "Sign out: this session, the login of a given refresh_token of yours, or every session (everywhere=true)",
        auth="jwt",
        tags=TAGS,
        body=m.Logout,
        body_required=False,
        gate=_gate(),
        response=m.Message,
        errors=(401, 403, 422, 500),
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.Logout) -> None:
        user_id = self._auth.user_id(req)
        session = req.context.principal.session
        if body.everywhere:
            self._auth.users.bump_version(user_id)
            self._auth.tokens.revoke_user(user_id)
            resp.media = {"message": "signed out of every session"}
            return
        if body.refresh_token is not None:  # another login of the caller (e.g. a lost device)
            claims = self._auth.tokens.decode(body.refresh_token, "refresh")
            if str(claims.get("sub")) != user_id:
                raise PermissionDenied("refresh_token: not one of your sessions")
            session = str(claims.get("fam") or "") or None
        if session is not None:
            self._auth.tokens.revoke_family(session)
        else:  # a token from before sessions were tracked: only signing out everywhere can revoke it
            self._auth.users.bump_version(user_id)
            self._auth.tokens.revoke_user(user_id)
        resp.media = {"message": "signed out"}


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
        credentials=True,
    )
    def on_post(self, req: falcon.Request, resp: falcon.Response, body: m.CreateUser) -> None:
        resp.media = self._auth.users.create(body.name, body.email, body.password, role=body.role).public()
        resp.status = falcon.HTTP_201

    @operation(
        "List accounts (admin only)",
        auth="admin",
        tags=TAGS,
        response=list[m.UserOut],
        errors=(401, 403),
        credentials=True,
    )
    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = [u.public() for u in self._auth.users.list()]
