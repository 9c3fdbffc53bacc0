"""Redaction of credentials wherever configuration is shown (``GET /configure``, ``memorist config show``).

Secrets are replaced wherever they sit: ``SecretStr`` values, options whose
name says secret (``api_key``, ``password``, ``token``, ...), and the password
in a URL's ``user:password@`` part (a database URL, a base URL with basic
auth), which a name-based rule misses because the key is just ``url``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import SecretStr

REDACTED = "**********"
_SECRET_WORDS = ("key", "secret", "password", "token")
#: ``scheme://user:password@`` (the password is everything up to the last ``@`` of the authority).
_URL_CREDENTIALS = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/?#\s]*)@")


def redact_url(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@host`` replaced."""

    def mask(match: re.Match[str]) -> str:
        user, sep, _ = match.group("userinfo").partition(":")
        return f"{match.group('head')}{user}:{REDACTED}@" if sep else f"{match.group('head')}{REDACTED}@"

    return _URL_CREDENTIALS.sub(mask, text)


def redact(value: Any, key: str = "") -> Any:
    """``value`` as JSON-able data with every secret replaced."""
    if isinstance(value, SecretStr):
        return REDACTED if value.get_secret_value() else None
    if isinstance(value, dict):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    lowered = key.lower()
    if (
        isinstance(value, str)
        and value
        and any(w in lowered for w in _SECRET_WORDS)
        and not lowered.endswith(("_env", "_file", "_prefix"))
    ):
        return REDACTED
    if isinstance(value, str) and "@" in value:
        return redact_url(value)
    return value
