"""API keys: ``svcsk_<random>`` for the self-hosted surface, ``m0-<random>`` for the platform.

A key is 256 bits of randomness, so it is stored as its SHA-256 only: a lookup
is one indexed query, no slow password hash per request, and a leaked database
does not reveal usable keys. The full key is shown once, at creation.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, select, update

from ..db import Database
from ..db.schema import api_keys
from ..records import as_utc, utcnow

SELFHOSTED_PREFIX = "svcsk_"
PLATFORM_PREFIX = "m0-"
#: ``last_used_at`` is written at most this often per key (no write per request).
LAST_USED_RESOLUTION = timedelta(seconds=30)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    id: str
    user_id: str
    kind: str
    label: str
    key_prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
    org_id: str | None = None
    project_id: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> ApiKey:
        return cls(
            id=row["id"],
            user_id=row["user_id"],
            kind=row["kind"],
            label=row["label"],
            key_prefix=row["key_prefix"],
            created_at=as_utc(row["created_at"]),
            last_used_at=as_utc(row["last_used_at"]),
            revoked_at=as_utc(row["revoked_at"]),
            org_id=row["org_id"],
            project_id=row["project_id"],
        )

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "key_prefix": self.key_prefix,
            "created_at": self.created_at.isoformat(),
            "last_used_at": self.last_used_at.isoformat() if self.last_used_at else None,
        }


class ApiKeyStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(
        self,
        user_id: str,
        label: str,
        *,
        kind: str = "selfhosted",
        org_id: str | None = None,
        project_id: str | None = None,
    ) -> tuple[ApiKey, str]:
        """A new key and its full value (returned once, never stored)."""
        prefix = SELFHOSTED_PREFIX if kind == "selfhosted" else PLATFORM_PREFIX
        full = prefix + secrets.token_urlsafe(32)
        row = {
            "id": str(uuid.uuid4()),
            "user_id": user_id,
            "kind": kind,
            "org_id": org_id,
            "project_id": project_id,
            "label": label,
            "key_prefix": full[: len(prefix) + 6],
            "key_hash": digest(full),
            "created_at": utcnow(),
            "last_used_at": None,
            "revoked_at": None,
        }
        with self._db.begin() as conn:
            conn.execute(insert(api_keys).values(**row))
        return ApiKey.from_row(row), full

    def lookup(self, full_key: str) -> ApiKey | None:
        """The active key with this value, touching ``last_used_at``; None if unknown or revoked."""
        with self._db.connect() as conn:
            row = conn.execute(select(api_keys).where(api_keys.c.key_hash == digest(full_key))).mappings().first()
        if row is None or row["revoked_at"] is not None:
            return None
        key = ApiKey.from_row(row)
        now = utcnow()
        if key.last_used_at is None or now - key.last_used_at > LAST_USED_RESOLUTION:
            with self._db.begin() as conn:
                conn.execute(update(api_keys).where(api_keys.c.id == key.id).values(last_used_at=now))
        return key

    def list(self, user_id: str | None = None, kind: str = "selfhosted", include_revoked: bool = False) -> list[ApiKey]:
        query = select(api_keys).where(api_keys.c.kind == kind).order_by(api_keys.c.created_at.desc())
        if user_id is not None:
            query = query.where(api_keys.c.user_id == user_id)
        if not include_revoked:
            query = query.where(api_keys.c.revoked_at.is_(None))
        with self._db.connect() as conn:
            return [ApiKey.from_row(r) for r in conn.execute(query).mappings()]

    def revoke(self, key_id: str, user_id: str | None = None, kind: str | None = None) -> bool:
        """Revoke a key (of ``user_id`` / of ``kind`` when given); False when there is no such active key."""
        stmt = update(api_keys).where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
        if user_id is not None:
            stmt = stmt.where(api_keys.c.user_id == user_id)
        if kind is not None:
            stmt = stmt.where(api_keys.c.kind == kind)
        with self._db.begin() as conn:
            return bool(conn.execute(stmt.values(revoked_at=utcnow())).rowcount)
