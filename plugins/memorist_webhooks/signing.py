"""Signing webhook deliveries, and the check a receiver runs.

Every delivery carries two headers:

* ``X-Memorist-Timestamp``: Unix seconds when this attempt was sent;
* ``X-Memorist-Signature``: ``sha256=`` + hex HMAC-SHA256, keyed with the
  webhook's secret (its UTF-8 bytes, exactly as returned at creation), over
  ``<timestamp> + "." + <raw request body bytes>``.

The timestamp is inside the signed material so a captured delivery cannot be
replayed later with a fresh timestamp; a receiver rejects timestamps older
than a tolerance (five minutes by default) and may also remember
``delivery_id`` to drop a retry it already processed.
"""

from __future__ import annotations

import hashlib
import hmac
import time

SIGNATURE_HEADER = "X-Memorist-Signature"
TIMESTAMP_HEADER = "X-Memorist-Timestamp"
SCHEME = "sha256"
DEFAULT_TOLERANCE_SECONDS = 300


def signed_material(timestamp: str, body: bytes) -> bytes:
    return timestamp.encode("ascii") + b"." + body


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Memorist-Signature`` value for ``body`` sent at ``timestamp``."""
    digest = hmac.new(secret.encode("utf-8"), signed_material(timestamp, body), hashlib.sha256).hexdigest()
    return f"{SCHEME}={digest}"


def verify(
    secret: str,
    body: bytes,
    signature: str | None,
    timestamp: str | None,
    *,
    tolerance: float = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """True when ``signature`` is ours for ``body`` and ``timestamp`` is recent (the receiver's check).

    ``body`` must be the raw bytes as received, before any JSON parsing.
    """
    if not signature or not timestamp:
        return False
    try:
        sent = int(timestamp)
    except ValueError:
        return False
    current = time.time() if now is None else now
    if abs(current - sent) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, timestamp, body), signature.strip())
