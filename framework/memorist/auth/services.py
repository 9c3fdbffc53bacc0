"""What the account routes share (``/auth/*``, ``/api-keys``, the admin's user routes).

Built once per running system by the kernel (:class:`memorist.kernel.core.Kernel`)
over its authentication stores, so the dashboard's session routes and every other
door count failed logins in the same limiters.
"""

from __future__ import annotations

from typing import Any

from ..config.settings import AuthSettings, LimitsSettings
from .authenticator import Presented, client_address
from .errors import AuthMisconfigured, PermissionDenied
from .rate_limit import RateLimiter
from .tokens import TokenService
from .users import UserStore


class AuthServices:
    """What the account routes share: settings, accounts, tokens and the login limiters."""

    def __init__(
        self,
        settings: AuthSettings,
        users: UserStore,
        tokens: TokenService,
        limiter: RateLimiter,
        limits: LimitsSettings,
        address_limiter: RateLimiter | None = None,
    ) -> None:
        self.settings = settings
        self.users = users
        self.tokens = tokens
        #: Failed logins per account.
        self.limiter = limiter
        #: Failed logins (and registrations) per client address.
        self.address_limiter = address_limiter or limiter
        self.limits = limits

    def address(self, req: Presented) -> str:
        return client_address(req, self.settings.trusted_proxy_hops)

    def issue(self, user_id: str) -> dict[str, str]:
        """A new login (token pair) for ``user_id`` at its current token version."""
        return self.tokens.issue(user_id, version=self.users.get(user_id).token_version).body()

    def need_secret(self) -> None:
        if not self.settings.disabled and not self.settings.jwt_secret:
            raise AuthMisconfigured("JWT_SECRET is not set: authentication endpoints cannot work until it is")

    def user_id(self, req: Any) -> str:
        principal = req.context.principal
        if principal is None or principal.user_id is None:
            raise PermissionDenied("this route needs a dashboard user (not the admin key or auth-disabled mode)")
        return str(principal.user_id)
