"""``memorist.client``: a typed Python client for a Memorist server (sync and async, on httpx).

Two APIs, two clients each::

    from memorist.client import MemoristClient, PlatformClient

    with MemoristClient("http://127.0.0.1:8000", api_key="svcsk_...") as memory:   # self-hosted REST
        memory.add("I moved to Lisbon.", user_id="ana")
        hits = memory.search("Where does Ana live?", user_id="ana")

    with PlatformClient("https://memory.example", api_key="m0-...") as platform:   # platform API
        platform.search("Where does Ana live?", user_id="ana")

``AsyncMemoristClient`` and ``AsyncPlatformClient`` have the same methods, awaited.
Errors are :class:`~.errors.APIError` subclasses named like the server's (docs/python-api.md).
"""

from __future__ import annotations

from .base import EventTimeout
from .errors import (
    APIError,
    AuthenticationError,
    ConflictError,
    InputTooLarge,
    NotFoundError,
    PermissionDenied,
    ProviderError,
    RateLimited,
    RequestTimeout,
    ServerError,
    ServiceUnavailable,
    TransportError,
    UnprocessableEntity,
    ValidationError,
)
from .models import AddedMemory, AddResult, Event, HistoryEntry, Memory, MemoryPage, SearchHit
from .platform import AsyncPlatformClient, PlatformClient
from .selfhosted import AsyncMemoristClient, MemoristClient
from .transport import NO_RETRY, Retry

__all__ = [
    "NO_RETRY",
    "APIError",
    "AddResult",
    "AddedMemory",
    "AsyncMemoristClient",
    "AsyncPlatformClient",
    "AuthenticationError",
    "ConflictError",
    "Event",
    "EventTimeout",
    "HistoryEntry",
    "InputTooLarge",
    "Memory",
    "MemoryPage",
    "MemoristClient",
    "NotFoundError",
    "PermissionDenied",
    "PlatformClient",
    "ProviderError",
    "RateLimited",
    "RequestTimeout",
    "Retry",
    "SearchHit",
    "ServerError",
    "ServiceUnavailable",
    "TransportError",
    "UnprocessableEntity",
    "ValidationError",
]
