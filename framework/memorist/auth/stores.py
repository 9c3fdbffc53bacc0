"""The authentication services of one running system, built once by the kernel.

Every door that checks credentials (both HTTP surfaces, ``/mcp``, the
dashboard's session routes) shares these: the account and key stores, the
token service and the rate limiters whose counts live in the database (so
they hold across worker processes). The web layer only wraps them
(the kernel builds the authenticator and account services over them, :mod:`memorist.kernel.serving`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.settings import AuthSettings
from ..db import Database
from .api_keys import ApiKeyStore
from .rate_limit import RateLimiter
from .throttle import FailureThrottle
from .tokens import TokenService
from .users import UserStore


@dataclass(frozen=True)
class AuthStores:
    users: UserStore
    api_keys: ApiKeyStore
    tokens: TokenService
    #: Login attempts per account, and per client address.
    login_limiter: RateLimiter
    address_limiter: RateLimiter
    #: Failed credentials per address, on every route (slows down key guessing).
    throttle: FailureThrottle

    @classmethod
    def build(cls, db: Database, settings: AuthSettings) -> AuthStores:
        secret = settings.jwt_secret.get_secret_value() if settings.jwt_secret else None
        window = settings.login_window_seconds
        return cls(
            users=UserStore(db),
            api_keys=ApiKeyStore(db),
            tokens=TokenService(db, secret, settings.access_token_minutes, settings.refresh_token_days),
            login_limiter=RateLimiter(db, settings.login_attempts, window),
            address_limiter=RateLimiter(db, settings.login_address_attempts, window),
            throttle=FailureThrottle(RateLimiter(db, settings.failed_auth_attempts, window)),
        )
