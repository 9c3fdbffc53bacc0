"""Warnings about weak or missing secrets: the server's startup log and ``memorist config check``.

Kept out of the HTTP layer so the command line can check a configuration
without importing it.
"""

from __future__ import annotations

from ..config.settings import AuthSettings

ADMIN_KEY_MIN = 16
#: HS256 needs a key at least as long as its hash (RFC 7518 3.2): shorter ones can be brute-forced.
JWT_SECRET_MIN_BYTES = 32


def secret_warnings(settings: AuthSettings) -> list[str]:
    """Warnings about weak or missing secrets (startup log and ``memorist config check``).

    The JWT secret comes first: without it logins fail, and the startup log shows it
    before the model load's own output.
    """
    warnings = []
    secret = settings.jwt_secret.get_secret_value() if settings.jwt_secret else ""
    if not settings.disabled and not secret:
        warnings.append(
            "JWT_SECRET is not set: login and dashboard sessions will answer 500 "
            "(`memorist serve` generates one in the data directory; or set JWT_SECRET)"
        )
    elif secret and len(secret.encode("utf-8")) < JWT_SECRET_MIN_BYTES:
        warnings.append(
            f"JWT_SECRET is shorter than {JWT_SECRET_MIN_BYTES} bytes: tokens signed with it can be forged by "
            "guessing it; use e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`"
        )
    if settings.disabled:
        warnings.append("AUTH_DISABLED=true: every protected endpoint is open to anyone who can reach it")
    admin_key = settings.admin_api_key.get_secret_value() if settings.admin_api_key else ""
    if admin_key and len(admin_key) < ADMIN_KEY_MIN:
        warnings.append(f"ADMIN_API_KEY is shorter than {ADMIN_KEY_MIN} characters; use a long random value")
    return warnings
