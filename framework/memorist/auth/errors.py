"""Authentication and authorization errors (401, 403, 409, 429, 500)."""

from __future__ import annotations

from ..errors import MemoristError


class AuthenticationError(MemoristError):
    status = 401


class PermissionDenied(MemoristError):
    status = 403


class ConflictError(MemoristError):
    status = 409


class RateLimited(MemoristError):
    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class AuthMisconfigured(MemoristError):
    """Auth is on but JWT_SECRET is unset: auth endpoints answer 500 saying so."""

    status = 500
