"""The durable outbox of webhook deliveries, and what one delivery says.

A memory hook inserts one ``PENDING`` row per subscribed webhook; delivery
threads in any process claim due rows with a lease and send them.

Claiming: the table has no owner column, so the lease expiry a claimant
writes is also its fencing token. A claim is a conditional UPDATE
(``PENDING``, due, and not leased or lease expired) that only one claimant
can win (the SQLite write lock serializes it across processes; PostgreSQL
picks the candidate with ``FOR UPDATE SKIP LOCKED``). Finishing updates the
row only while it still carries the claimant's own lease value, so a sender
whose lease ran out (and whose row another process took over) cannot
overwrite the newer attempt's outcome. The lease outlasts one POST's timeout,
so two processes never send one delivery at the same time.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from memorist.plugin_api import Database, MemoryRecord, as_utc, utcnow
from sqlalchemy import and_, delete, insert, or_, select, update

from .config import DeliveryPolicy
from .store import MEMORY_ADD, MEMORY_CATEGORIZE, MEMORY_DELETE, MEMORY_UPDATE, Webhook
from .tables import webhook_deliveries

PENDING, DELIVERED, FAILED = "PENDING", "DELIVERED", "FAILED"
#: The platform's event names, as the add events' ``results[].event`` spell them.
LEGACY_EVENT = {MEMORY_ADD: "ADD", MEMORY_UPDATE: "UPDATE", MEMORY_DELETE: "DELETE", MEMORY_CATEGORIZE: "CATEGORIZE"}


def _required(value: Any) -> datetime:
    aware: datetime | None = as_utc(value)
    assert aware is not None  # NOT NULL columns
    return aware


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def memory_view(record: MemoryRecord) -> dict[str, Any]:
    """The memory as a receiver sees it (the list item's fields plus its project)."""
    return {
        "id": record.id,
        "memory": record.text,
        "user_id": record.user_id,
        "agent_id": record.agent_id,
        "run_id": record.run_id,
        "app_id": record.app_id,
        "metadata": record.metadata,
        "categories": record.categories,
        "org_id": record.org_id,
        "project_id": record.project_id,
        "created_at": _iso(record.created_at),
        "updated_at": _iso(record.updated_at),
        "expiration_date": _iso(record.expires_at),
    }


def event_payload(
    delivery_id: str,
    webhook_id: str,
    event_type: str,
    record: MemoryRecord,
    previous: MemoryRecord | None,
    at: datetime,
) -> dict[str, Any]:
    """What is POSTed. ``event_details`` repeats the essentials in the platform's documented shape."""
    payload: dict[str, Any] = {
        "event_type": event_type,
        "delivery_id": delivery_id,
        "webhook_id": webhook_id,
        "timestamp": at.isoformat(),
        "memory": memory_view(record),
        "event_details": {"id": record.id, "data": {"memory": record.text}, "event": LEGACY_EVENT[event_type]},
    }
    if previous is not None:
        payload["previous"] = {"memory": previous.text, "metadata": previous.metadata}
    return payload


@dataclass(frozen=True)
class Delivery:
    id: str
    webhook_id: str
    payload: dict[str, Any]
    status: str
    attempts: int
    last_error: str | None
    available_at: datetime
    lease_expires_at: datetime | None
    created_at: datetime
    delivered_at: datetime | None

    @classmethod
    def from_row(cls, row: Any) -> Delivery:
        return cls(
            row["id"],
            row["webhook_id"],
            row["payload"],
            row["status"],
            row["attempts"],
            row["last_error"],
            _required(row["available_at"]),
            as_utc(row["lease_expires_at"]),
            _required(row["created_at"]),
            as_utc(row["delivered_at"]),
        )


class DeliveryQueue:
    def __init__(self, db: Database, policy: DeliveryPolicy) -> None:
        self._db = db
        self.policy = policy

    # -- producers -------------------------------------------------------------------
    def enqueue(
        self, hooks: list[Webhook], event_type: str, record: MemoryRecord, previous: MemoryRecord | None = None
    ) -> list[str]:
        """One PENDING row per webhook, committed together; returns the delivery ids."""
        if not hooks:
            return []
        now = utcnow()
        rows: list[dict[str, Any]] = []
        for hook in hooks:
            delivery_id = str(uuid.uuid4())
            rows.append(
                {
                    "id": delivery_id,
                    "webhook_id": hook.id,
                    "payload": event_payload(delivery_id, hook.id, event_type, record, previous, now),
                    "status": PENDING,
                    "attempts": 0,
                    "last_error": None,
                    "available_at": now,
                    "lease_expires_at": None,
                    "created_at": now,
                    "delivered_at": None,
                }
            )
        with self._db.begin() as conn:
            conn.execute(insert(webhook_deliveries), rows)
        return [r["id"] for r in rows]

    # -- senders ---------------------------------------------------------------------
    @staticmethod
    def _claimable(now: datetime) -> Any:
        d = webhook_deliveries.c
        return and_(
            d.status == PENDING, d.available_at <= now, or_(d.lease_expires_at.is_(None), d.lease_expires_at < now)
        )

    def claim(self) -> Delivery | None:
        """Lease the most overdue delivery (counting the attempt); None when nothing is due."""
        now = utcnow()
        # Microsecond jitter keeps two claimants' tokens apart even within one clock tick.
        lease = now + timedelta(seconds=self.policy.lease_seconds, microseconds=random.randrange(1, 1_000_000))
        d = webhook_deliveries.c
        with self._db.begin() as conn:
            pick = select(d.id).where(self._claimable(now)).order_by(d.available_at).limit(1)
            if not self._db.is_sqlite:
                pick = pick.with_for_update(skip_locked=True)
            delivery_id = conn.execute(pick).scalar()
            if delivery_id is None:
                return None
            won = conn.execute(
                update(webhook_deliveries)
                .where(d.id == delivery_id, self._claimable(now))
                .values(lease_expires_at=lease, attempts=d.attempts + 1)
            ).rowcount
            if not won:
                return None
            row = conn.execute(select(webhook_deliveries).where(d.id == delivery_id)).mappings().one()
        return Delivery.from_row(row)

    def _finish(self, delivery: Delivery, values: dict[str, Any]) -> bool:
        d = webhook_deliveries.c
        with self._db.begin() as conn:
            return bool(
                conn.execute(
                    update(webhook_deliveries)
                    .where(d.id == delivery.id, d.status == PENDING, d.lease_expires_at == delivery.lease_expires_at)
                    .values(**values)
                ).rowcount
            )

    def succeed(self, delivery: Delivery) -> bool:
        """DELIVERED; False when the lease had been lost (another attempt owns the row)."""
        now = utcnow()
        return self._finish(
            delivery, {"status": DELIVERED, "delivered_at": now, "lease_expires_at": None, "last_error": None}
        )

    def fail(self, delivery: Delivery, error: str, *, final: bool = False) -> str:
        """Back to PENDING after a backoff, or FAILED once the attempts are spent (or ``final``)."""
        now = utcnow()
        values: dict[str, Any] = {"last_error": error[:4000], "lease_expires_at": None}
        if final or delivery.attempts >= self.policy.max_attempts:
            values["status"] = FAILED
        else:
            values["available_at"] = now + timedelta(seconds=self.policy.backoff(delivery.attempts))
        self._finish(delivery, values)
        return str(values.get("status", PENDING))

    def purge(self) -> int:
        """Delete finished deliveries past the retention period; returns how many."""
        d = webhook_deliveries.c
        cutoff = utcnow() - timedelta(days=self.policy.retention_days)
        with self._db.begin() as conn:
            return int(
                conn.execute(
                    delete(webhook_deliveries).where(d.status.in_((DELIVERED, FAILED)), d.created_at < cutoff)
                ).rowcount
            )

    # -- readers ---------------------------------------------------------------------
    def for_webhook(self, webhook_id: str) -> list[Delivery]:
        d = webhook_deliveries.c
        with self._db.connect() as conn:
            rows = conn.execute(
                select(webhook_deliveries).where(d.webhook_id == webhook_id).order_by(d.created_at)
            ).mappings()
            return [Delivery.from_row(r) for r in rows]
