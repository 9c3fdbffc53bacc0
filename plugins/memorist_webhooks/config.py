"""Delivery policy: the plugin's own settings section, ``webhooks``.

Declared with the ``register_settings`` hook, so it is read like every built-in
section and validated by :class:`WebhooksSettings`::

    webhooks:            # YAML
      max_attempts: 3
    MEMORIST_WEBHOOKS__MAX_ATTEMPTS=3   # environment

The older single-underscore variables (``MEMORIST_WEBHOOKS_MAX_ATTEMPTS``, from
before plugins could declare settings) still work; a value set in the section
wins over them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields

from memorist.plugin_api import ConfigurationError
from pydantic import BaseModel, ConfigDict, Field, model_validator

PREFIX = "MEMORIST_WEBHOOKS_"


class WebhooksSettings(BaseModel):
    """The ``webhooks`` settings section."""

    model_config = ConfigDict(extra="forbid")

    #: Attempts per delivery (the first send included) before it is FAILED.
    max_attempts: int = Field(6, gt=0)
    #: Wait before the 2nd attempt; doubles for each later one (2, 4, 8, 16, 32 s).
    backoff_seconds: float = Field(2.0, gt=0)
    #: Longest wait between attempts, whatever the doubling gives.
    max_backoff_seconds: float = Field(600.0, gt=0)
    #: Connect + read timeout of one POST.
    timeout_seconds: float = Field(10.0, gt=0)
    #: How long a claimed delivery stays leased; must outlast one POST.
    lease_seconds: float = Field(60.0, gt=0)
    #: How often an idle delivery thread looks for due deliveries of other processes.
    poll_seconds: float = Field(1.0, gt=0)
    #: Delivery threads per process.
    threads: int = Field(2, gt=0)
    #: DELIVERED and FAILED deliveries older than this are deleted (checked hourly by each process).
    retention_days: float = Field(30.0, gt=0)

    @model_validator(mode="after")
    def _lease_outlasts_a_post(self) -> WebhooksSettings:
        if self.lease_seconds <= self.timeout_seconds:
            raise ValueError("lease_seconds must exceed timeout_seconds")
        return self


@dataclass(frozen=True)
class DeliveryPolicy:
    max_attempts: int = 6
    backoff_seconds: float = 2.0
    max_backoff_seconds: float = 600.0
    timeout_seconds: float = 10.0
    lease_seconds: float = 60.0
    poll_seconds: float = 1.0
    threads: int = 2
    retention_days: float = 30.0

    @classmethod
    def from_settings(
        cls, section: WebhooksSettings | None = None, environ: Mapping[str, str] | None = None
    ) -> DeliveryPolicy:
        """The section's values, over the legacy ``MEMORIST_WEBHOOKS_*`` variables, over the defaults."""
        values = cls.from_env(environ).__dict__
        if section is not None:
            values.update({name: getattr(section, name) for name in section.model_fields_set})
        return cls(**values)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DeliveryPolicy:
        """The legacy single-underscore variables (``MEMORIST_WEBHOOKS_MAX_ATTEMPTS``)."""
        env = os.environ if environ is None else environ
        values: dict[str, float | int] = {}
        for item in fields(cls):
            raw = env.get(PREFIX + item.name.upper())
            if raw is None or not raw.strip():
                continue
            try:
                value: float | int = int(float(raw)) if item.type in ("int", int) else float(raw)
            except ValueError:
                raise ConfigurationError(f"{PREFIX}{item.name.upper()}: a number is required, got {raw!r}") from None
            if value <= 0:
                raise ConfigurationError(f"{PREFIX}{item.name.upper()}: must be positive")
            values[item.name] = value
        policy = cls(**values)  # type: ignore[arg-type]
        if policy.lease_seconds <= policy.timeout_seconds:
            raise ConfigurationError(f"{PREFIX}LEASE_SECONDS must exceed {PREFIX}TIMEOUT_SECONDS")
        return policy

    def backoff(self, attempts: int) -> float:
        """Seconds to wait after the ``attempts``-th failed attempt."""
        return float(min(self.backoff_seconds * 2 ** max(attempts - 1, 0), self.max_backoff_seconds))


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
