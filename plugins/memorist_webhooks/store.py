"""Webhook configurations: one row per webhook, confined to a project.

Event types are the platform client's names (``memory_add``,
``memory_update``, ``memory_delete``, ``memory_categorize``); the older
documented spelling with a colon (``memory:add``) is accepted and stored in
the canonical form, so a list always shows one spelling.
"""

from __future__ import annotations

import secrets
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from memorist.plugin_api import Database, ValidationError, as_utc, utcnow
from sqlalchemy import delete, func, insert, select, update

from .tables import webhook_deliveries, webhooks

MEMORY_ADD, MEMORY_UPDATE, MEMORY_DELETE, MEMORY_CATEGORIZE = (
    "memory_add",
    "memory_update",
    "memory_delete",
    "memory_categorize",
)
EVENT_TYPES: tuple[str, ...] = (MEMORY_ADD, MEMORY_UPDATE, MEMORY_DELETE, MEMORY_CATEGORIZE)
SECRET_PREFIX = "whsec_"


def canonical_event_type(value: str) -> str:
    """``memory_add`` from ``memory_add``, ``memory:add``, ``MEMORY.ADD``; a clear error otherwise."""
    name = value.strip().lower().replace(":", "_").replace(".", "_").replace("-", "_")
    if name not in EVENT_TYPES:
        raise ValidationError(f"event_types: unknown event type '{value}'; use {', '.join(EVENT_TYPES)}")
    return name


def canonical_event_types(values: list[str]) -> list[str]:
    if not values:
        raise ValidationError("event_types: at least one event type is required")
    seen: list[str] = []
    for value in values:
        name = canonical_event_type(value)
        if name not in seen:
            seen.append(name)
    return seen


def check_url(url: str) -> str:
    """An absolute http(s) URL, or a 400 naming the field."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError("url: an absolute http:// or https:// URL is required")
    if parts.username or parts.password:
        raise ValidationError("url: credentials in the URL are not allowed; verify the signature instead")
    return url


@dataclass(frozen=True)
class Webhook:
    id: str
    project_id: str
    name: str
    url: str
    event_types: list[str]
    secret: str
    is_active: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: Any) -> Webhook:
        return cls(
            row["id"],
            row["project_id"],
            row["name"],
            row["url"],
            list(row["event_types"] or []),
            row["secret"],
            bool(row["is_active"]),
            as_utc(row["created_at"]),
            as_utc(row["updated_at"]),
        )

    def public(self, *, with_secret: bool = False) -> dict[str, Any]:
        """The client's shape (``webhook_id``, ``project``...); the secret only when asked."""
        body: dict[str, Any] = {
            "webhook_id": self.id,
            "name": self.name,
            "url": self.url,
            "event_types": self.event_types,
            "project": self.project_id,
            "project_id": self.project_id,
            "is_active": self.is_active,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }
        if with_secret:
            body["secret"] = self.secret
        return body


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_hex(32)


#: Projects whose active webhooks :meth:`WebhookStore.subscribed` keeps between table changes.
_CACHED_PROJECTS = 4096
#: What tells a change of the table (see :meth:`WebhookStore.active`); built once, as every add asks.
_CHANGE_STAMP = select(func.count(), func.max(webhooks.c.updated_at))


class WebhookStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._cache_lock = threading.Lock()
        self._stamp: tuple[int, str] | None = None
        self._active: dict[str, list[Webhook]] = {}

    def create(self, project_id: str, name: str, url: str, event_types: list[str]) -> Webhook:
        now = utcnow()
        row = {
            "id": str(uuid.uuid4()),
            "project_id": project_id,
            "name": name.strip()[:255] or "webhook",
            "url": check_url(url),
            "event_types": canonical_event_types(event_types),
            "secret": new_secret(),
            "is_active": 1,
            "created_at": now,
            "updated_at": now,
        }
        with self._db.begin() as conn:
            conn.execute(insert(webhooks).values(**row))
        return Webhook.from_row(row)

    def for_project(self, project_id: str) -> list[Webhook]:
        with self._db.connect() as conn:
            rows = conn.execute(
                select(webhooks).where(webhooks.c.project_id == project_id).order_by(webhooks.c.created_at)
            ).mappings()
            return [Webhook.from_row(r) for r in rows]

    def get(self, webhook_id: str) -> Webhook | None:
        with self._db.connect() as conn:
            row = conn.execute(select(webhooks).where(webhooks.c.id == webhook_id)).mappings().first()
        return Webhook.from_row(row) if row is not None else None

    def update(
        self,
        webhook_id: str,
        *,
        name: str | None = None,
        url: str | None = None,
        event_types: list[str] | None = None,
        is_active: bool | None = None,
        rotate_secret: bool = False,
    ) -> Webhook | None:
        values: dict[str, Any] = {"updated_at": utcnow()}
        if name is not None:
            if not name.strip():
                raise ValidationError("name: must not be empty")
            values["name"] = name.strip()[:255]
        if url is not None:
            values["url"] = check_url(url)
        if event_types is not None:
            values["event_types"] = canonical_event_types(event_types)
        if is_active is not None:
            values["is_active"] = int(is_active)
        if rotate_secret:
            values["secret"] = new_secret()
        with self._db.begin() as conn:
            changed = conn.execute(update(webhooks).where(webhooks.c.id == webhook_id).values(**values)).rowcount
        return self.get(webhook_id) if changed else None

    def delete(self, webhook_id: str) -> bool:
        """Remove the webhook and its deliveries (pending ones are not sent anymore)."""
        with self._db.begin() as conn:
            conn.execute(delete(webhook_deliveries).where(webhook_deliveries.c.webhook_id == webhook_id))
            return bool(conn.execute(delete(webhooks).where(webhooks.c.id == webhook_id)).rowcount)

    def subscribed(self, project_id: str, event_type: str) -> list[Webhook]:
        """Active webhooks of the project that asked for ``event_type``."""
        return [hook for hook in self.active(project_id) if event_type in hook.event_types]

    def active(self, project_id: str) -> list[Webhook]:
        """Active webhooks of the project, whatever events they asked for.

        Every stored memory asks this, and almost no project has a webhook: the answer
        per project is kept until the table changes. What tells a change, made by any
        process on any node, is one aggregate query (row count, latest ``updated_at``:
        a create or delete changes the count, an update the latest time); an empty
        table answers without another query.
        """
        with self._db.connect() as conn:
            count, latest = conn.execute(_CHANGE_STAMP).one()
            if not count:
                return []
            stamp = (int(count), str(latest))
            with self._cache_lock:
                if self._stamp != stamp or len(self._active) > _CACHED_PROJECTS:
                    self._stamp, self._active = stamp, {}
                active = self._active.get(project_id)
            if active is None:
                rows = conn.execute(
                    select(webhooks).where(webhooks.c.project_id == project_id, webhooks.c.is_active == 1)
                ).mappings()
                active = [Webhook.from_row(r) for r in rows]
                with self._cache_lock:
                    if self._stamp == stamp:
                        self._active[project_id] = active
        return active
