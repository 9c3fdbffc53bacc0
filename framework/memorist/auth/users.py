"""Accounts: registration (first one is the admin), login, profile, password, administration.

Self-hosted dashboard accounts (``kind="selfhosted"``) and platform members
(``kind="platform"``, made by ``memorist admin``) are separate accounts: a
platform member cannot log in on ``/auth/login`` nor act on the self-hosted
space, even when both share an email.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..db.schema import api_keys, kv, refresh_tokens, users
from ..errors import NotFoundError, ValidationError
from ..records import as_utc, utcnow
from .errors import AuthenticationError, ConflictError, PermissionDenied
from .passwords import check_policy, dummy_hash, hash_password, verify_password

SELFHOSTED = "selfhosted"
PLATFORM = "platform"
#: The ``kv_settings`` row whose primary key lets exactly one first registration commit.
FIRST_ADMIN_KEY = "first_admin"
CLOSED = "registration is closed; the admin creates further accounts"


@dataclass(frozen=True)
class User:
    id: str
    name: str
    email: str
    role: str
    created_at: datetime
    kind: str = SELFHOSTED
    disabled: bool = False
    token_version: int = 0
    last_login_at: datetime | None = None

    @classmethod
    def from_row(cls, row: Any) -> User:
        return cls(
            row["id"],
            row["name"],
            row["email"],
            row["role"],
            as_utc(row["created_at"]),
            row.get("kind") or SELFHOSTED,
            bool(row.get("disabled") or 0),
            int(row.get("token_version") or 0),
            as_utc(row["last_login_at"]) if row.get("last_login_at") else None,
        )

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "role": self.role,
            "created_at": self.created_at.isoformat(),
        }

    def admin_view(self) -> dict[str, Any]:
        """What ``GET /users`` shows an admin (the dashboard's Users screen reads these names)."""
        return {
            **self.public(),
            "disabled": self.disabled,
            "last_login": self.last_login_at.isoformat() if self.last_login_at else None,
        }


def normalize_email(email: str) -> str:
    email = (email or "").strip().lower()
    if "@" not in email or len(email) > 320 or email.startswith("@") or email.endswith("@"):
        raise ValidationError("email: not a valid email address")
    return email


def _other_active_admins(user_id: str) -> Any:
    """SQL: how many enabled self-hosted admins exist besides ``user_id``."""
    return (
        select(func.count())
        .select_from(users)
        .where(users.c.role == "admin", users.c.disabled == 0, users.c.kind == SELFHOSTED, users.c.id != user_id)
        .scalar_subquery()
    )


class UserStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def count(self, kind: str = SELFHOSTED) -> int:
        with self._db.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(users).where(users.c.kind == kind)).scalar() or 0)

    def _row(self, name: str, email: str, password: str, role: str, kind: str) -> dict[str, Any]:
        name = (name or "").strip()
        if not name:
            raise ValidationError("name: must not be empty")
        check_policy(password)
        now = utcnow()
        return {
            "id": str(uuid.uuid4()),
            "name": name[:255],
            "email": normalize_email(email),
            "password_hash": hash_password(password),
            "role": role,
            "created_at": now,
            "updated_at": now,
            "kind": kind,
            "token_version": 0,
            "disabled": 0,
            "last_login_at": None,
        }

    def create(self, name: str, email: str, password: str, role: str = "user", kind: str = SELFHOSTED) -> User:
        row = self._row(name, email, password, role, kind)
        try:
            with self._db.begin() as conn:
                conn.execute(insert(users).values(**row))
        except IntegrityError:
            raise ConflictError("email: already registered") from None
        return User.from_row(row)

    def register_first(self, name: str, email: str, password: str) -> User:
        """Create the first account as admin; refused once any account exists.

        The account and the ``first_admin`` guard row are written in one transaction:
        of concurrent first registrations exactly one commits, and a loser's account
        is rolled back with its guard (it never exists, so it cannot log in).
        """
        if self.count() > 0:
            raise PermissionDenied(CLOSED)
        row = self._row(name, email, password, "admin", SELFHOSTED)
        try:
            with self._db.begin() as conn:
                conn.execute(insert(kv).values(key=FIRST_ADMIN_KEY, value={"user_id": row["id"]}, updated_at=utcnow()))
                conn.execute(insert(users).values(**row))
        except IntegrityError:
            raise PermissionDenied(CLOSED) from None
        return User.from_row(row)

    def authenticate(self, email: str, password: str) -> User:
        """The self-hosted account with this email and password (platform members never match)."""
        with self._db.connect() as conn:
            row = (
                conn.execute(
                    select(users).where(users.c.email == (email or "").strip().lower(), users.c.kind == SELFHOSTED)
                )
                .mappings()
                .first()
            )
        if row is None:
            verify_password(dummy_hash(), password or "")
            raise AuthenticationError("invalid email or password")
        if not verify_password(row["password_hash"], password or ""):
            raise AuthenticationError("invalid email or password")
        if row["disabled"]:
            raise AuthenticationError("this account is disabled")
        now = utcnow()
        with self._db.begin() as conn:
            conn.execute(update(users).where(users.c.id == row["id"]).values(last_login_at=now))
        return User.from_row({**row, "last_login_at": now})

    def get(self, user_id: str) -> User:
        with self._db.connect() as conn:
            row = conn.execute(select(users).where(users.c.id == user_id)).mappings().first()
        if row is None:
            raise NotFoundError("user not found")
        return User.from_row(row)

    def get_selfhosted(self, user_id: str) -> User:
        user = self.get(user_id)
        if user.kind != SELFHOSTED:
            raise NotFoundError("user not found")
        return user

    def by_email(self, email: str, kind: str = SELFHOSTED) -> User | None:
        with self._db.connect() as conn:
            row = (
                conn.execute(select(users).where(users.c.email == normalize_email(email), users.c.kind == kind))
                .mappings()
                .first()
            )
        return User.from_row(row) if row else None

    def list(self, kind: str = SELFHOSTED) -> list[User]:
        with self._db.connect() as conn:
            query = select(users).where(users.c.kind == kind).order_by(users.c.created_at)
            return [User.from_row(r) for r in conn.execute(query).mappings()]

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

    def check_password(self, user_id: str, password: str, field: str = "current_password") -> None:
        with self._db.connect() as conn:
            stored = conn.execute(select(users.c.password_hash).where(users.c.id == user_id)).scalar()
        if stored is None or not verify_password(stored, password or ""):
            raise AuthenticationError(f"{field}: the current password is wrong")

    def change_password(self, user_id: str, current: str, new: str, keep_session: str | None = None) -> None:
        """Set a new password (the current one is required) and sign out the other sessions.

        With ``keep_session`` (the caller's login) that session goes on and every other
        login is revoked at once (refresh and access tokens, through their family); without
        it (a token from before sessions were tracked) every token of the user is revoked.
        """
        self.check_password(user_id, current)
        check_policy(new, "new_password")
        self.set_password(user_id, new, keep_session=keep_session)

    def set_password(
        self, user_id: str, new: str, field: str = "new_password", keep_session: str | None = None
    ) -> None:
        check_policy(new, field)
        values: dict[str, Any] = {"password_hash": hash_password(new), "updated_at": utcnow()}
        if keep_session is None:
            values["token_version"] = users.c.token_version + 1
        revoke = update(refresh_tokens).where(
            refresh_tokens.c.user_id == user_id, refresh_tokens.c.revoked_at.is_(None)
        )
        if keep_session is not None:
            revoke = revoke.where(refresh_tokens.c.family_id != keep_session)
        with self._db.begin() as conn:
            changed = conn.execute(update(users).where(users.c.id == user_id).values(**values)).rowcount
            conn.execute(revoke.values(revoked_at=utcnow()))
        if not changed:
            raise NotFoundError("user not found")

    def bump_version(self, user_id: str) -> None:
        """Revoke every access token of the user now (they carry the old version)."""
        with self._db.begin() as conn:
            conn.execute(update(users).where(users.c.id == user_id).values(token_version=users.c.token_version + 1))

    # -- administration (self-hosted accounts) -------------------------------------------
    def administer(self, user_id: str, *, role: str | None = None, disabled: bool | None = None) -> User:
        """Change role and/or disabled state; the last enabled admin keeps both (409).

        One conditional UPDATE does the check and the change, so two admins demoting
        each other at once cannot leave nobody in charge.
        """
        user = self.get_selfhosted(user_id)
        values: dict[str, Any] = {"updated_at": utcnow(), "token_version": users.c.token_version + 1}
        if role is not None:
            if role not in ("admin", "user"):
                raise ValidationError("role: one of admin, user")
            values["role"] = role
        if disabled is not None:
            values["disabled"] = int(disabled)
        losing_admin = user.role == "admin" and not user.disabled and (role == "user" or disabled is True)
        stmt = update(users).where(users.c.id == user_id)
        if losing_admin:
            stmt = stmt.where(_other_active_admins(user_id) > 0)
        with self._db.begin() as conn:
            changed = conn.execute(stmt.values(**values)).rowcount
            if changed and disabled:
                conn.execute(
                    update(refresh_tokens)
                    .where(refresh_tokens.c.user_id == user_id, refresh_tokens.c.revoked_at.is_(None))
                    .values(revoked_at=utcnow())
                )
        if not changed:
            raise ConflictError("the last admin cannot be demoted or disabled; make another admin first")
        return self.get(user_id)

    def delete(self, user_id: str) -> None:
        """Delete a self-hosted account, its keys and its sessions; never the last admin (409)."""
        self.get_selfhosted(user_id)
        with self._db.begin() as conn:
            gone = conn.execute(
                delete(users).where(
                    users.c.id == user_id,
                    (users.c.role != "admin") | (users.c.disabled != 0) | (_other_active_admins(user_id) > 0),
                )
            ).rowcount
            if gone:
                conn.execute(
                    update(api_keys)
                    .where(and_(api_keys.c.user_id == user_id, api_keys.c.revoked_at.is_(None)))
                    .values(revoked_at=utcnow())
                )
                conn.execute(delete(refresh_tokens).where(refresh_tokens.c.user_id == user_id))
        if not gone:
            raise ConflictError("the last admin cannot be deleted; make another admin first")
