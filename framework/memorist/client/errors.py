"""The client's errors: one class per status the server answers, read from its error body.

The server's one error path (:mod:`memorist.http.errors`) answers ``{"detail": "..."}``
(``{"message": "..."}`` on the platform's project routes), sometimes with ``errors``
(one entry per field) and ``Retry-After``. Each class here has the name of the
server-side error that produces that status (``ValidationError`` 400, ``NotFoundError``
404, ``RateLimited`` 429, ...), so a ``except NotFoundError`` reads the same on both
sides; :class:`APIError` is the base of all of them.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from typing import Any


class APIError(Exception):
    """An answer of status ``status`` with the server's ``detail``; ``body`` is the whole JSON body."""

    status: int | None = None

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        body: Any = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(detail if status is None else f"{status}: {detail}")
        self.detail = detail
        if status is not None:
            self.status = status
        self.body = body
        #: The server's ``X-Request-ID`` of the failed request (its log names it too).
        self.request_id = request_id
        #: Seconds the server asked the caller to wait (``Retry-After``), if it said.
        self.retry_after = retry_after

    @property
    def errors(self) -> list[Any]:
        """Per-field problems of a 400/422, when the server listed them."""
        found = self.body.get("errors") if isinstance(self.body, dict) else None
        return list(found) if isinstance(found, list) else []


class ValidationError(APIError):
    """400: the request names a problem (a missing id, a bad filter, a wildcard where an id belongs)."""

    status = 400


class AuthenticationError(APIError):
    """401: no credentials, wrong ones, or sent in the wrong header (the detail says which to send)."""

    status = 401


class PermissionDenied(APIError):
    """403: authenticated, but this caller may not do this (a READER writing, a user's wildcard delete)."""

    status = 403


class NotFoundError(APIError):
    status = 404


class RequestTimeout(APIError):
    status = 408


class ConflictError(APIError):
    status = 409


class InputTooLarge(APIError):
    """413: past a limit; the detail names the limit."""

    status = 413


class UnprocessableEntity(APIError):
    """422: the body's shape is wrong (a field of the wrong type)."""

    status = 422


class RateLimited(APIError):
    """429: too many requests or a full queue; ``retry_after`` says when to come back."""

    status = 429


class ServerError(APIError):
    """5xx: the server failed; ``request_id`` finds it in the server's log."""

    status = 500


class ProviderError(ServerError):
    """502: a provider the server calls (a language model, an embedder) failed."""

    status = 502


class ServiceUnavailable(ServerError):
    status = 503


class TransportError(APIError):
    """No answer at all: the connection failed or timed out (``status`` is None)."""


BY_STATUS: dict[int, type[APIError]] = {
    cls.status: cls  # type: ignore[misc]
    for cls in (
        ValidationError,
        AuthenticationError,
        PermissionDenied,
        NotFoundError,
        RequestTimeout,
        ConflictError,
        InputTooLarge,
        UnprocessableEntity,
        RateLimited,
        ServerError,
        ProviderError,
        ServiceUnavailable,
    )
}


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date (RFC 9110); None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from datetime import UTC, datetime

        return max(0.0, (parsedate_to_datetime(value) - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError):
        return None


def error_for(status: int, body: Any, headers: Any) -> APIError:
    """The error an answer of ``status`` stands for, with the server's detail and retry hint."""
    if isinstance(body, dict):
        detail = body.get("detail") or body.get("message") or body.get("error") or ""
    else:
        detail = str(body or "")[:500]
    cls = BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    return cls(
        str(detail) or f"HTTP {status}",
        status=status,
        body=body,
        request_id=headers.get("X-Request-ID"),
        retry_after=retry_after_seconds(headers.get("Retry-After")),
    )
