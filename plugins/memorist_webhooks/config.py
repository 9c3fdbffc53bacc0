"""Delivery policy, read from the environment.

The kernel's ``Settings`` forbids unknown sections, so a plugin cannot add a
``webhooks:`` block to the YAML file; plain ``MEMORIST_WEBHOOKS_*`` variables
(single underscores, so pydantic-settings never maps them onto a section)
tune the policy instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

from memorist.errors import ConfigurationError

PREFIX = "MEMORIST_WEBHOOKS_"


@dataclass(frozen=True)
class DeliveryPolicy:
    #: Attempts per delivery (the first send included) before it is FAILED.
    max_attempts: int = 6
    #: Wait before the 2nd attempt; doubles for each later one (2, 4, 8, 16, 32 s).
    backoff_seconds: float = 2.0
    #: Longest wait between attempts, whatever the doubling gives.
    max_backoff_seconds: float = 600.0
    #: Connect + read timeout of one POST.
    timeout_seconds: float = 10.0
    #: How long a claimed delivery stays leased; must outlast one POST so no
    #: other process sends it while the first is still waiting for an answer.
    lease_seconds: float = 60.0
    #: How often an idle delivery thread looks for due deliveries of other processes.
    poll_seconds: float = 1.0
    #: Delivery threads per process.
    threads: int = 2
    #: DELIVERED and FAILED deliveries older than this are deleted (checked hourly by each process).
    retention_days: float = 30.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DeliveryPolicy:
        env = os.environ if environ is None else environ
        values: dict[str, float | int] = {}
        for name, default in cls().__dict__.items():
            raw = env.get(PREFIX + name.upper())
            if raw is None or not raw.strip():
                continue
            try:
                value = type(default)(float(raw)) if isinstance(default, int) else float(raw)
            except ValueError:
                raise ConfigurationError(f"{PREFIX}{name.upper()}: a number is required, got {raw!r}") from None
            if value <= 0:
                raise ConfigurationError(f"{PREFIX}{name.upper()}: must be positive")
            values[name] = value
        policy = cls(**values)  # type: ignore[arg-type]
        if policy.lease_seconds <= policy.timeout_seconds:
            raise ConfigurationError(f"{PREFIX}LEASE_SECONDS must exceed {PREFIX}TIMEOUT_SECONDS")
        return policy

    def backoff(self, attempts: int) -> float:
        """Seconds to wait after the ``attempts``-th failed attempt."""
        return min(self.backoff_seconds * 2 ** max(attempts - 1, 0), self.max_backoff_seconds)


#: The kernel's ``security.outbound_allow`` in the environment, for processes that bind without settings.
OUTBOUND_ALLOW_ENV = "MEMORIST_SECURITY__OUTBOUND_ALLOW"


def env_allow(environ: Mapping[str, str] | None = None) -> list[str]:
    """``security.outbound_allow`` from the environment (a JSON list, or comma-separated)."""
    raw = ((os.environ if environ is None else environ).get(OUTBOUND_ALLOW_ENV) or "").strip()
    if not raw:
        return []
    if raw.startswith("["):
        try:
            return [str(item) for item in json.loads(raw)]
        except ValueError:
            raise ConfigurationError(f"{OUTBOUND_ALLOW_ENV}: not a JSON list") from None
    return [part.strip() for part in raw.split(",") if part.strip()]
