"""The shared half of both providers: options, the API key, the client, retries.

Why the plugin owns the retry loop instead of the ``openai`` client: the
client's built-in retries are invisible (no hook to count or shorten them) and
know nothing about *content* failures. A chat model that answers with broken
JSON needs the same bounded budget as a 503, plus a corrective follow-up
message. So the client is built with ``max_retries=0`` and
:func:`call_with_retries` is the single policy, for status codes, connection
errors and invalid replies alike, which tests drive against a fake server.

``openai`` is an optional dependency (``memorist[openai]``) while the entry
point is always declared; it is therefore imported lazily here so that loading
the plugin never fails on an install without it. Only building a provider does.
"""

from __future__ import annotations

import email.utils
import math
import os
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memorist.plugin_api import ConfigurationError, ProviderError, ProviderOptions, guarded_transport
from pydantic import Field

if TYPE_CHECKING:
    import openai

T = TypeVar("T")
R = TypeVar("R")

#: Key sent to OpenAI-compatible local servers (Ollama, vLLM, llama.cpp, LM
#: Studio) that need none; the protocol still requires an Authorization header.
PLACEHOLDER_API_KEY = "not-needed"
#: Where the official client goes without a base URL (memorist.config.provider_keys counts it as the key's own).
DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: Statuses worth another attempt: timeouts, lock conflicts, rate limits and
#: server faults. Everything else in 4xx (bad request, auth, not found,
#: unprocessable) will fail identically next time.
RETRYABLE_STATUSES = frozenset({408, 409, 429})


class ClientOptions(ProviderOptions):
    """Connection and retry options common to the language model and embedder."""

    model: str
    #: None: the client's default (``OPENAI_BASE_URL``, else api.openai.com).
    base_url: str | None = None
    #: Name of the environment variable holding the key (never the key itself).
    api_key_env: str = "OPENAI_API_KEY"
    #: A file holding the key (e.g. a mounted secret); wins over ``api_key_env``.
    api_key_file: str | None = None
    #: Seconds per HTTP request.
    timeout: float = Field(default=60.0, gt=0)
    #: Extra attempts after the first, for transport *and* invalid-reply failures.
    max_retries: int = Field(default=3, ge=0)
    #: Base of the exponential backoff: attempt n waits ``backoff_seconds * 2**n``.
    backoff_seconds: float = Field(default=1.0, ge=0)
    #: Cap on any single wait, including a server's ``Retry-After``.
    max_backoff_seconds: float = Field(default=30.0, ge=0)


class InvalidReply(Exception):
    """A reply arrived but its content is unusable; worth a corrected retry."""


def _import_openai() -> Any:
    try:
        import openai
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ConfigurationError(
            "the 'openai' provider needs the openai package: pip install 'memorist[openai]'"
        ) from None
    return openai


def effective_base_url(options: ClientOptions) -> str | None:
    """The base URL the client will use, if one is configured anywhere."""
    return options.base_url or os.environ.get("OPENAI_BASE_URL") or None


def resolve_api_key(options: ClientOptions, environ: Mapping[str, str] | None = None) -> str:
    """The API key, from ``api_key_file`` or the variable ``api_key_env`` names.

    Keys never live in configuration files, only their location does. A local
    server needs no key, so with a base URL a placeholder is used; without one
    the request would go to api.openai.com and fail with 401 on first use, so
    the mistake is reported at startup instead, naming the variable to set.
    """
    env = os.environ if environ is None else environ
    if options.api_key_file:
        path = Path(options.api_key_file).expanduser()
        try:
            key = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigurationError(f"api_key_file '{path}' cannot be read: {exc.strerror or exc}") from None
        if not key:
            raise ConfigurationError(f"api_key_file '{path}' is empty")
        return key
    key = (env.get(options.api_key_env) or "").strip()
    if key:
        return key
    if effective_base_url(options):
        return PLACEHOLDER_API_KEY
    raise ConfigurationError(
        f"no API key: set the environment variable {options.api_key_env} "
        "(or options api_key_env / api_key_file), or set base_url for a local server"
    )


def build_client(options: ClientOptions, guard: Any = None, key_origins: Any = None) -> openai.OpenAI:
    """An official ``openai.OpenAI`` client with its own retries disabled.

    ``guard`` (an ``OutboundGuard``, handed over by the server and worker as
    ``context.extras["outbound_guard"]``): every request's host is resolved,
    checked and pinned, so a base URL set through ``/configure`` cannot reach
    internal addresses, not even by DNS rebinding.

    ``key_origins`` (``context.extras["provider_key_origins"]``, a
    :class:`memorist.config.provider_keys.KeyOrigins`): the deployment's key is sent only to
    these origins; any other base URL gets the placeholder key, so a base URL set
    through ``/configure`` cannot collect the deployment's ``OPENAI_API_KEY``.
    """
    module = _import_openai()
    target = effective_base_url(options) or DEFAULT_BASE_URL
    own_origin = key_origins is None or key_origins.allows(target)
    kwargs: dict[str, Any] = {
        "api_key": resolve_api_key(options) if own_origin else PLACEHOLDER_API_KEY,
        "timeout": options.timeout,
        "max_retries": 0,
    }
    if options.base_url:
        kwargs["base_url"] = options.base_url
    if guard is not None:
        import httpx

        kwargs["http_client"] = httpx.Client(transport=guarded_transport(guard), timeout=options.timeout)
    client: openai.OpenAI = module.OpenAI(**kwargs)
    return client


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds a server asked us to wait (``retry-after-ms``, ``retry-after``), if any."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


class RetryPolicy:
    """How many attempts, and how long to wait before each retry.

    No jitter: Memorist calls a provider from a few worker threads, not a
    fleet, and deterministic waits keep the policy testable. ``sleep`` is an
    attribute so tests can record waits instead of sleeping.
    """

    def __init__(self, options: ClientOptions, sleep: Callable[[float], None] = time.sleep) -> None:
        self.attempts = options.max_retries + 1
        self.backoff_seconds = options.backoff_seconds
        self.max_backoff_seconds = options.max_backoff_seconds
        self.sleep = sleep

    def delay(self, retry: int, headers: Mapping[str, str] | None = None) -> float:
        """Wait before retry number ``retry`` (0-based): Retry-After if given, else exponential."""
        requested = parse_retry_after(headers)
        if requested is None:
            requested = self.backoff_seconds * (2**retry)
        return min(requested, self.max_backoff_seconds)


def _status_detail(exc: Any) -> str:
    """``HTTP 429: <server message>`` from an ``openai.APIStatusError``."""
    message = None
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else None
    if not message:
        message = getattr(exc, "message", None) or str(exc)
    return f"HTTP {exc.status_code}: {str(message)[:300]}"


def call_with_retries(
    policy: RetryPolicy,
    label: str,
    request: Callable[[], T],
    accept: Callable[[T], R],
) -> R:
    """Run ``request`` until ``accept`` takes its result, within one attempt budget.

    ``request`` performs one API call; ``accept`` turns its result into the
    answer or raises :class:`InvalidReply` (retried at once: ``request`` reads
    whatever corrective state ``accept`` left behind) or :class:`ProviderError`
    (not retried). Retryable statuses and connection errors wait per
    ``policy``; other statuses fail at once. Every path ends in an answer or a
    ``ProviderError`` that says what went wrong last; never in an empty result.
    """
    openai = _import_openai()
    last = "no attempt made"
    for attempt in range(policy.attempts):
        final = attempt + 1 >= policy.attempts
        try:
            raw = request()
        except openai.APIStatusError as exc:
            status = exc.status_code
            last = _status_detail(exc)
            if status not in RETRYABLE_STATUSES and status < 500:
                raise ProviderError(f"{label} failed with {last} (not retried)") from exc
            if not final:
                policy.sleep(policy.delay(attempt, exc.response.headers))
            continue
        except openai.APIConnectionError as exc:  # includes APITimeoutError
            cause = exc.__cause__ or exc.__context__
            last = f"{exc.message}" + (f" ({type(cause).__name__}: {cause})" if cause else "")
            if not final:
                policy.sleep(policy.delay(attempt))
            continue
        except openai.OpenAIError as exc:  # e.g. a response the client could not parse
            raise ProviderError(f"{label} failed: {type(exc).__name__}: {exc}") from exc
        try:
            return accept(raw)
        except InvalidReply as exc:
            last = f"invalid reply: {exc}"
            continue
    raise ProviderError(f"{label} failed after {policy.attempts} attempts; last error: {last}")
