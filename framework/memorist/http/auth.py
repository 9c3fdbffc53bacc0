"""Resolving the principal of a request from its headers, per the route's policy.

Modes: ``Authorization: Bearer <JWT>``; ``X-API-Key: svcsk_...`` (a user's
key, acting as that user); ``X-API-Key: <ADMIN_API_KEY>`` (admin, no user);
``AUTH_DISABLED=true`` (everything open, as admin); and, for the platform
surface, ``Authorization: Token <key>`` (one organization and project).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable

import falcon

from ..auth.api_keys import PLATFORM_PREFIX, SELFHOSTED_PREFIX, ApiKeyStore
from ..auth.errors import AuthenticationError, PermissionDenied
from ..auth.principal import ANONYMOUS_ADMIN, Principal
from ..auth.tokens import TokenService
from ..auth.users import UserStore
from ..errors import NotFoundError
from ..settings import AuthSettings

log = logging.getLogger("memorist.auth")
ADMIN_KEY_MIN = 16


class Authenticator:
    def __init__(
        self,
        settings: AuthSettings,
        tokens: TokenService,
        keys: ApiKeyStore,
        users: UserStore,
        is_disabled: Callable[[str], bool] | None = None,
    ) -> None:
        self._settings = settings
        self._is_disabled = is_disabled
        self._tokens = tokens
        self._keys = keys
        self._users = users
        admin_key = settings.admin_api_key.get_secret_value() if settings.admin_api_key else None
        self._admin_key = admin_key or None

    @property
    def disabled(self) -> bool:
        return self._settings.disabled

    def startup_warnings(self) -> list[str]:
        warnings = []
        if self._settings.disabled:
            warnings.append("AUTH_DISABLED=true: every protected endpoint is open to anyone who can reach it")
        if self._admin_key and len(self._admin_key) < ADMIN_KEY_MIN:
            warnings.append(f"ADMIN_API_KEY is shorter than {ADMIN_KEY_MIN} characters; use a long random value")
        if not self._settings.disabled and not self._settings.jwt_secret:
            warnings.append("JWT_SECRET is not set: login and dashboard sessions will answer 500")
        return warnings

    def require(self, req: falcon.Request, policy: str) -> Principal:
        """The principal for ``policy``, or 401 (no/invalid credentials) / 403 (not allowed)."""
        if policy == "platform":
            return self._platform(req)
        if self._settings.disabled:
            return ANONYMOUS_ADMIN
        principal = self._resolve(req)
        if principal is None:
            raise AuthenticationError(
                "authentication required: send 'Authorization: Bearer <access token>' or 'X-API-Key: <key>'"
            )
        self._check_enabled(principal.user_id)
        if policy == "jwt" and principal.auth_type != "jwt":
            raise AuthenticationError("this route needs a dashboard session: 'Authorization: Bearer <access token>'")
        if policy == "admin" and not principal.is_admin:
            raise PermissionDenied("this route is for admins")
        return principal

    def _check_enabled(self, user_id: str | None) -> None:
        """A disabled account's every credential (session, API key, platform key) stops at once."""
        if user_id is not None and self._is_disabled is not None and self._is_disabled(user_id):
            raise AuthenticationError("this account is disabled; ask an admin")

    def _resolve(self, req: falcon.Request) -> Principal | None:
        authorization = req.get_header("Authorization") or ""
        scheme, _, credential = authorization.partition(" ")
        if scheme.lower() == "bearer" and credential.strip():
            claims = self._tokens.decode(credential.strip(), "access")
            try:
                user = self._users.get(str(claims["sub"]))
            except NotFoundError:
                raise AuthenticationError("the token's user no longer exists") from None
            return Principal("jwt", "admin" if user.role == "admin" else "user", user.id, user.email)
        api_key = (req.get_header("X-API-Key") or "").strip()
        if not api_key:
            return None
        if api_key.startswith(SELFHOSTED_PREFIX):
            key = self._keys.lookup(api_key)
            if key is None or key.kind != "selfhosted":
                raise AuthenticationError("invalid or revoked API key")
            try:
                user = self._users.get(key.user_id)
            except NotFoundError:
                raise AuthenticationError("the key's user no longer exists") from None
            return Principal("api_key", "admin" if user.role == "admin" else "user", user.id, user.email, key_id=key.id)
        if self._admin_key and hmac.compare_digest(api_key.encode(), self._admin_key.encode()):
            return Principal("admin_key", "admin")
        raise AuthenticationError("invalid API key")

    def _platform(self, req: falcon.Request) -> Principal:
        authorization = req.get_header("Authorization") or ""
        scheme, _, credential = authorization.partition(" ")
        if scheme.lower() != "token" or not credential.strip():
            raise AuthenticationError("authentication required: send 'Authorization: Token <API key>'")
        credential = credential.strip()
        key = self._keys.lookup(credential) if credential.startswith(PLATFORM_PREFIX) else None
        if key is None or key.kind != "platform":
            raise AuthenticationError("invalid or revoked API key")
        try:
            user = self._users.get(key.user_id)
        except NotFoundError:
            raise AuthenticationError("the key's user no longer exists") from None
        self._check_enabled(user.id)
        return Principal(
            "platform_key",
            "admin" if user.role == "admin" else "user",
            user.id,
            user.email,
            org_id=key.org_id,
            project_id=key.project_id,
            key_id=key.id,
        )


class AuthenticatorMiddleware:
    """Hands the authenticator to responders (``@operation`` calls it)."""

    def __init__(self, authenticator: Authenticator) -> None:
        self._authenticator = authenticator

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.authenticator = self._authenticator
        req.context.principal = None
