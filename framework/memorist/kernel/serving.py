"""What the kernel builds for the doors that serve callers: authentication, the request log, metrics.

Why here and not in the HTTP app: every door that takes credentials (both HTTP
surfaces, the dashboard, ``/mcp``) must check them with the same authenticator and
count failures in the same limiters, and ``GET /requests`` must read the log every
route wrote. Built once per running system from its settings and stores, they are
the kernel's parts (:attr:`memorist.kernel.core.Kernel.serving`); ``create_app``
only mounts routes and middleware over them.

:func:`prepare_process` is the other half: what a serving *process* sets up once
(its log format, trace exporter, metrics switch, the startup warnings about weak
secrets), kept apart because the Python API, embedded in someone else's process,
must not reconfigure that process's logging.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select

from ..auth.authenticator import Authenticator
from ..auth.passwords import dummy_hash
from ..auth.services import AuthServices
from ..auth.stores import AuthStores
from ..auth.warnings import secret_warnings
from ..config.settings import Settings
from ..db import Database
from ..db.schema import events, scope_counts
from ..observability import logs, metrics, tracing
from ..observability.request_log import RequestLog
from ..queue.events import PENDING, RUNNING

log = logging.getLogger("memorist.http")


@dataclass(frozen=True)
class Serving:
    """The serving doors' shared parts (one set per running system)."""

    #: Resolves a request's principal per route policy (JWT, ``svcsk_`` keys, admin key, ``Token``).
    authenticator: Authenticator
    #: What the account routes share: settings, accounts, tokens and the login limiters.
    accounts: AuthServices
    #: Every API call, written off the request path (``GET /requests`` reads it).
    request_log: RequestLog
    #: Queue, memory and entity figures for ``/metrics``, read at scrape time (None: metrics off).
    metrics_state: metrics.StateCollector | None

    @classmethod
    def build(cls, settings: Settings, db: Database, stores: AuthStores, memories: Callable[[], int]) -> Serving:
        """From the system's settings and stores; ``memories`` counts the serving engine's memories."""
        auth = settings.auth
        observability = settings.observability
        return cls(
            authenticator=Authenticator(auth, stores.tokens, stores.api_keys, stores.users, stores.throttle),
            accounts=AuthServices(
                auth, stores.users, stores.tokens, stores.login_limiter, settings.limits, stores.address_limiter
            ),
            request_log=RequestLog(db, settings.request_log.retention_days),
            metrics_state=(
                metrics.StateCollector(state_sources(db, memories), observability.metrics_state_seconds)
                if observability.metrics
                else None
            ),
        )

    def close(self) -> None:
        self.request_log.close()


def prepare_process(settings: Settings) -> None:
    """Once per serving process: its logs, traces and metrics switch, and the warnings about
    weak secrets (logged first, where an operator reading the start looks)."""
    for warning in secret_warnings(settings.auth):
        log.warning(warning)
    logs.configure(settings.observability)
    tracing.configure(settings.observability)  # None (and no import) unless an exporter is set
    metrics.set_enabled(settings.observability.metrics)
    dummy_hash()  # made once per process at boot, so the first unknown-email login costs what the others do


def state_sources(db: Database, memories: Callable[[], int]) -> metrics.StateSources:
    """Queue, memory and entity figures read from this deployment's stores at each scrape."""

    def queue() -> dict[str, tuple[int, datetime | None]]:
        query = (
            select(events.c.status, func.count(), func.min(events.c.created_at))
            .where(events.c.status.in_((PENDING, RUNNING)))
            .group_by(events.c.status)
        )
        found: dict[str, tuple[int, datetime | None]] = {PENDING: (0, None), RUNNING: (0, None)}
        with db.connect() as conn:
            for status, count, oldest in conn.execute(query):
                if oldest is not None and oldest.tzinfo is None:
                    oldest = oldest.replace(tzinfo=UTC)  # SQLite hands back naive UTC
                found[str(status)] = (int(count), oldest)
        return found

    def entities() -> dict[str, int]:
        query = (
            select(scope_counts.c.entity_type, func.count())
            .where(scope_counts.c.total > 0)
            .group_by(scope_counts.c.entity_type)
        )
        with db.connect() as conn:
            return {str(kind): int(count) for kind, count in conn.execute(query)}

    return metrics.StateSources(queue=queue, memories=memories, entities=entities)
