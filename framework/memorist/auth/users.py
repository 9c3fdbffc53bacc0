"""Accounts: registration (first one is the admin), login, profile, password change."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..db.schema import users
from ..errors import NotFoundError, ValidationError
from ..records import as_utc, utcnow
from .errors import AuthenticationError, ConflictError, PermissionDenied
from .passwords import check_policy, dummy_hash, hash_password, verify_password


@dataclass(frozen=True)
class User:
    id: str
    name: str
    email: str
    role: str
    created_at: datetime

    @classmethod
    def from_row(cls, row: Any) -> User:
        return cls(row["id"], row["name"], row["email"], row["role"], as_utc(row["created_at"]))

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "role": self.role,
            "created_at": self.created_at.isoformat(),
        }


def normalize_email(email: str) -> str:
    email = (email or "").strip().lower()
    if "@" not in email or len(email) > 320 or email.startswith("@") or email.endswith("@"):
        raise ValidationError("email: not a valid email address")
    return email


class UserStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def count(self) -> int:
        with self._db.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(users)).scalar() or 0)

    def create(self, name: str, email: str, password: str, role: str = "user") -> User:
        name = (name or "").strip()
        if not name:
            raise ValidationError("name: must not be empty")
        check_policy(password)
        now = utcnow()
        row = {
            "id": str(uuid.uuid4()),
            "name": name[:255],
            "email": normalize_email(email),
            "password_hash": hash_password(password),
            "role": role,
            "created_at": now,
            "updated_at": now,
        }
        try:
            with self._db.begin() as conn:
                conn.execute(insert(users).values(**row))
        except IntegrityError:
            raise ConflictError("email: already registered") from None
        return User.from_row(row)

    def register_first(self, name: str, email: str, password: str) -> User:
        """Create the first account as admin; refused once any account exists."""
        check_policy(password)
        if self.count() > 0:
            raise PermissionDenied("registration is closed; the admin creates further accounts")
        user = self.create(name, email, password, role="admin")
        if self.count() > 1:  # lost a race with another first registration
            with self._db.begin() as conn:
                first = conn.execute(select(users.c.id).order_by(users.c.created_at, users.c.id).limit(1)).scalar()
                if first != user.id:
                    conn.execute(users.delete().where(users.c.id == user.id))
                    raise PermissionDenied("registration is closed; the admin creates further accounts")
        return user

    def authenticate(self, email: str, password: str) -> User:
        with self._db.connect() as conn:
            row = conn.execute(select(users).where(users.c.email == (email or "").strip().lower())).mappings().first()
        if row is None:
            verify_password(dummy_hash(), password or "")
            raise AuthenticationError("invalid email or password")
        if not verify_password(row["password_hash"], password or ""):
            raise AuthenticationError("invalid email or password")
        return User.from_row(row)

    def get(self, user_id: str) -> User:
        with self._db.connect() as conn:
            row = conn.execute(select(users).where(users.c.id == user_id)).mappings().first()
        if row is None:
            raise NotFoundError("user not found")
        return User.from_row(row)

    def by_email(self, email: str) -> User | None:
        with self._db.connect() as conn:
            row = conn.execute(select(users).where(users.c.email == normalize_email(email))).mappings().first()
        return User.from_row(row) if row else None

    def list(self) -> list[User]:
        with self._db.connect() as conn:
            return [User.from_row(r) for r in conn.execute(select(users).order_by(users.c.created_at)).mappings()]

    def update_profile(self, user_id: str, name: str | None, email: str | None) -> User:
        values: dict[str, Any] = {"updated_at": utcnow()}
        if name is not None:
            if not name.strip():
                raise ValidationError("name: must not be empty")
            values["name"] = name.strip()[:255]
        if email is not None:
            values["email"] = normalize_email(email)
        try:
            with self._db.begin() as conn:
                conn.execute(update(users).where(users.c.id == user_id).values(**values))
        except IntegrityError:
            raise ConflictError("email: already in use") from None
        return self.get(user_id)

    def change_password(self, user_id: str, current: str, new: str) -> None:
        with self._db.connect() as conn:
            stored = conn.execute(select(users.c.password_hash).where(users.c.id == user_id)).scalar()
        if stored is None or not verify_password(stored, current or ""):
            raise AuthenticationError("current password is wrong")
        check_policy(new, "new_password")
        with self._db.begin() as conn:
            conn.execute(
                update(users).where(users.c.id == user_id).values(password_hash=hash_password(new), updated_at=utcnow())
            )
