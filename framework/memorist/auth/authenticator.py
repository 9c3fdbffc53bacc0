"""Resolving the principal of a request from its credentials, per the route's policy.

The kernel builds one :class:`Authenticator` per running system
(:class:`memorist.kernel.core.Kernel`), over its authentication stores; every door
that takes credentials (both HTTP surfaces, the dashboard, ``/mcp``) uses it. It reads
a request only through :class:`Presented` (two headers and the peer address), so it
knows no web framework: a Falcon request is one.

Modes: ``Authorization: Bearer <JWT>``; ``X-API-Key: svcsk_...`` (a user's
key, acting as that user); ``X-API-Key: <ADMIN_API_KEY>`` (admin, no user);
``AUTH_DISABLED=true`` (everything open, as admin); and, for the platform
surface, ``Authorization: Token <key>`` (one organization and project).
"""

from __future__ import annotations

import hmac
import logging
from typing import Protocol

from ..config.settings import AuthSettings
from ..errors import NotFoundError
from .api_keys import PLATFORM_PREFIX, SELFHOSTED_PREFIX, ApiKeyStore
from .errors import AuthenticationError, PermissionDenied
from .principal import ANONYMOUS_ADMIN, Principal
from .throttle import FailureThrottle
from .tokens import TokenService
from .users import SELFHOSTED, User, UserStore
from .warnings import secret_warnings

log = logging.getLogger("memorist.auth")


class Presented(Protocol):
    """What a request shows of itself to be authenticated (``falcon.Request`` is one)."""

    @property
    def remote_addr(self) -> str: ...

    def get_header(self, name: str) -> str | None: ...


#: The 401 body names every way in, so a first request without credentials is not a dead end.
UNAUTHENTICATED = (
    "authentication required: send 'Authorization: Bearer <access token>' or 'X-API-Key: <key>'. "
    "No account yet? POST /auth/register creates the first (admin) account, or run `memorist init` "
    "for the admin account and an API key in one step; POST /api-keys makes further keys. "
    "For a throw-away local server, AUTH_DISABLED=true opens every route."
)


#: A self-hosted key (``memorist init``, ``POST /api-keys``) sent to a platform route as ``Token``.
SELFHOSTED_KEY_ON_PLATFORM = (
    "this is a self-hosted API key (svcsk_...): the platform routes (/v1/, /v2/, /v3/, /api/v1/) take a "
    "platform key ('Authorization: Token m0-...', made by `memorist admin bootstrap` or "
    "`memorist admin create-key`); send this key as 'X-API-Key: svcsk_...' to the self-hosted routes "
    "(/memories, /search, /mcp) instead"
)


def _key_as_bearer(credential: str) -> str | None:
    """What to send instead when an API key comes as ``Authorization: Bearer`` (a JWT's place)."""
    if credential.startswith(SELFHOSTED_PREFIX):
        return (
            "an API key goes in the X-API-Key header, not 'Authorization: Bearer' (that is for the "
            "access token POST /auth/login returns): send 'X-API-Key: svcsk_...'"
        )
    if credential.startswith(PLATFORM_PREFIX):
        return (
            "a platform key goes in 'Authorization: Token m0-...', not 'Authorization: Bearer' "
            "(that is for the access token POST /auth/login returns)"
        )
    return None


def client_address(req: Presented, trusted_hops: int = 0) -> str:
    """The caller's address: the socket peer, or the ``X-Forwarded-For`` entry ``trusted_hops`` from the right.

    Only entries appended by proxies the deployer trusts count; anything further left
    was written by the client and could be anything.
    """
    if trusted_hops > 0:
        forwarded = [part.strip() for part in (req.get_header("X-Forwarded-For") or "").split(",") if part.strip()]
        if len(forwarded) >= trusted_hops:
            return forwarded[-trusted_hops][:64]
    return req.remote_addr or "unknown"


class Authenticator:
    def __init__(
        self,
        settings: AuthSettings,
        tokens: TokenService,
        keys: ApiKeyStore,
        users: UserStore,
        throttle: FailureThrottle | None = None,
    ) -> None:
        self._settings = settings
        self._tokens = tokens
        self._keys = keys
        self._users = users
        self._throttle = throttle
        admin_key = settings.admin_api_key.get_secret_value() if settings.admin_api_key else None
        self._admin_key = admin_key or None

    @property
    def disabled(self) -> bool:
        return self._settings.disabled

    def startup_warnings(self) -> list[str]:
        return secret_warnings(self._settings)

    def address(self, req: Presented) -> str:
        return client_address(req, self._settings.trusted_proxy_hops)

    def require(self, req: Presented, policy: str) -> Principal:
        """The principal for ``policy``, or 401 (no/invalid credentials) / 403 (not allowed) / 429 (guessing).

        The credential is checked before any failure count is looked at: a valid one is
        served whatever its address's count; only a wrong one can answer 429.
        """
        if policy != "platform" and self._settings.disabled:
            return ANONYMOUS_ADMIN
        presented = bool(req.get_header("Authorization") or req.get_header("X-API-Key"))
        try:
            principal = self._platform(req) if policy == "platform" else self._resolve(req)
        except AuthenticationError:
            if presented and self._throttle is not None:
                self._throttle.failed(self.address(req))
            raise
        if principal is None:
            raise AuthenticationError(UNAUTHENTICATED)
        if policy == "jwt" and principal.auth_type != "jwt":
            raise AuthenticationError("this route needs a dashboard session: 'Authorization: Bearer <access token>'")
        if policy == "admin" and not principal.is_admin:
            raise PermissionDenied("this route is for admins")
        return principal

    def _account(self, user_id: str, what: str) -> User:
        """The enabled self-hosted account behind a token or key (platform members are not users here)."""
        try:
            user = self._users.get(user_id)
        except NotFoundError:
            raise AuthenticationError(f"the {what}'s user no longer exists") from None
        if user.kind != SELFHOSTED:
            raise AuthenticationError(f"this {what} belongs to a platform account, not a self-hosted user")
        if user.disabled:
            raise AuthenticationError("this account is disabled")
        return user

    def _resolve(self, req: Presented) -> Principal | None:
        authorization = req.get_header("Authorization") or ""
        scheme, _, credential = authorization.partition(" ")
        if scheme.lower() == "bearer" and credential.strip():
            wrong_place = _key_as_bearer(credential.strip())
            if wrong_place:
                raise AuthenticationError(wrong_place)
            claims = self._tokens.decode(credential.strip(), "access")
            user = self._account(str(claims["sub"]), "token")
            session = str(claims.get("fam") or "") or None
            if int(claims.get("ver") or 0) != user.token_version or (
                session is not None and self._tokens.family_revoked(session)
            ):
                raise AuthenticationError("this session was signed out; log in again")
            return Principal("jwt", "admin" if user.role == "admin" else "user", user.id, user.email, session=session)
        api_key = (req.get_header("X-API-Key") or "").strip()
        if not api_key:
            return None
        if api_key.startswith(SELFHOSTED_PREFIX):
            key = self._keys.lookup(api_key)
            if key is None or key.kind != "selfhosted":
                raise AuthenticationError("invalid or revoked API key")
            user = self._account(key.user_id, "key")
            return Principal("api_key", "admin" if user.role == "admin" else "user", user.id, user.email, key_id=key.id)
        if self._admin_key and hmac.compare_digest(api_key.encode(), self._admin_key.encode()):
            return Principal("admin_key", "admin")
        raise AuthenticationError("invalid API key")

    def _platform(self, req: Presented) -> Principal:
        authorization = req.get_header("Authorization") or ""
        scheme, _, credential = authorization.partition(" ")
        if scheme.lower() != "token" or not credential.strip():
            sent = credential.strip() or (req.get_header("X-API-Key") or "").strip()
            if sent.startswith(SELFHOSTED_PREFIX):
                raise AuthenticationError(SELFHOSTED_KEY_ON_PLATFORM)
            raise AuthenticationError("authentication required: send 'Authorization: Token <API key>'")
        credential = credential.strip()
        if credential.startswith(SELFHOSTED_PREFIX) or (
            self._admin_key and hmac.compare_digest(credential.encode(), self._admin_key.encode())
        ):
            raise AuthenticationError(SELFHOSTED_KEY_ON_PLATFORM)
        key = self._keys.lookup(credential) if credential.startswith(PLATFORM_PREFIX) else None
        if key is None or key.kind != "platform":
            raise AuthenticationError("invalid or revoked API key")
        try:
            user = self._users.get(key.user_id)
        except NotFoundError:
            raise AuthenticationError("the key's user no longer exists") from None
        if user.disabled:
            raise AuthenticationError("this account is disabled")
        return Principal(
            "platform_key",
            "admin" if user.role == "admin" else "user",
            user.id,
            user.email,
            org_id=key.org_id,
            project_id=key.project_id,
            key_id=key.id,
        )


__all__ = ["UNAUTHENTICATED", "Authenticator", "Presented", "client_address"]
