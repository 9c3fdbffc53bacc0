"""JWTs (PyJWT, HS256): short-lived access tokens, rotated refresh tokens.

Every refresh token is recorded by id in a *family* (one login's chain). Using
a refresh token marks it used and issues the next one in the family; presenting
a used token again means it was stolen or replayed, so the whole family is
revoked and the caller must log in again.

Access tokens carry the user's ``token_version`` (``ver``) and their login's
family (``fam``). The authenticator compares ``ver`` with the account on every
request and checks that the family was not logged out, so revocation (password
change, disabled account, role change, refresh reuse, logout) is immediate,
not after the access token's 15 minutes.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import jwt
from sqlalchemy import exists, insert, select, update

from ..db import Database
from ..db.schema import refresh_tokens, users
from ..records import utcnow
from .errors import AuthenticationError, AuthMisconfigured

ALGORITHM = "HS256"
ISSUER = "memorist"


@dataclass(frozen=True)
class TokenPair:
    access_token: str
    refresh_token: str

    def body(self) -> dict[str, str]:
        return {"access_token": self.access_token, "refresh_token": self.refresh_token, "token_type": "bearer"}


class TokenService:
    def __init__(self, db: Database, secret: str | None, access_minutes: int, refresh_days: int) -> None:
        self._db = db
        self._secret = secret
        self._access = timedelta(minutes=access_minutes)
        self._refresh = timedelta(days=refresh_days)

    def _key(self) -> str:
        if not self._secret:
            raise AuthMisconfigured("JWT_SECRET is not set: authentication is enabled but cannot issue or check tokens")
        return self._secret

    def _encode(self, claims: dict[str, Any]) -> str:
        return jwt.encode(claims, self._key(), algorithm=ALGORITHM)

    def issue(self, user_id: str, family_id: str | None = None, version: int = 0) -> TokenPair:
        now = utcnow()
        jti = secrets.token_urlsafe(24)
        family = family_id or uuid.uuid4().hex
        access = self._encode(
            {
                "sub": user_id,
                "type": "access",
                "iat": now,
                "exp": now + self._access,
                "iss": ISSUER,
                "jti": uuid.uuid4().hex,
                "fam": family,
                "ver": version,
            }
        )
        refresh = self._encode(
            {
                "sub": user_id,
                "type": "refresh",
                "iat": now,
                "exp": now + self._refresh,
                "iss": ISSUER,
                "jti": jti,
                "fam": family,
                "ver": version,
            }
        )
        with self._db.begin() as conn:
            conn.execute(
                insert(refresh_tokens).values(
                    jti=jti, family_id=family, user_id=user_id, expires_at=now + self._refresh, created_at=now
                )
            )
        return TokenPair(access, refresh)

    def decode(self, token: str, expected_type: str) -> dict[str, Any]:
        try:
            claims = jwt.decode(
                token,
                self._key(),
                algorithms=[ALGORITHM],
                issuer=ISSUER,
                options={"require": ["exp", "sub", "type", "iss"]},
            )
        except jwt.ExpiredSignatureError:
            raise AuthenticationError("token expired") from None
        except jwt.PyJWTError:
            raise AuthenticationError("invalid token") from None
        if claims.get("type") != expected_type:
            raise AuthenticationError(f"not an {expected_type} token")
        return claims

    def rotate(self, refresh_token: str) -> tuple[str, TokenPair]:
        """A new pair for a valid, unused refresh token of an enabled account.

        Reuse of a used token revokes its family, access tokens included (the
        authenticator checks the family on every request): one of the two holders
        is a thief, and that login ends for both.
        """
        claims = self.decode(refresh_token, "refresh")
        jti, family = str(claims.get("jti")), str(claims.get("fam"))
        user_id = str(claims["sub"])
        now = utcnow()
        with self._db.begin() as conn:
            row = conn.execute(select(refresh_tokens).where(refresh_tokens.c.jti == jti)).mappings().first()
            if row is None or row["revoked_at"] is not None:
                raise AuthenticationError("refresh token revoked")
            claimed = conn.execute(
                update(refresh_tokens)
                .where(refresh_tokens.c.jti == jti, refresh_tokens.c.used_at.is_(None))
                .values(used_at=now)
            ).rowcount
            if not claimed:
                conn.execute(
                    update(refresh_tokens).where(refresh_tokens.c.family_id == row["family_id"]).values(revoked_at=now)
                )
            account = conn.execute(select(users.c.disabled, users.c.token_version).where(users.c.id == user_id)).first()
        if not claimed:
            raise AuthenticationError("refresh token already used; all sessions of this login were revoked")
        if account is not None and account.disabled:
            raise AuthenticationError("this account is disabled")
        # A missing account gets a pair its requests cannot use (the authenticator finds no user).
        return user_id, self.issue(user_id, family, int(account.token_version) if account else 0)

    def revoke_family(self, family_id: str) -> None:
        """Log out one session: its refresh tokens and (through :meth:`family_revoked`) its access tokens."""
        with self._db.begin() as conn:
            conn.execute(
                update(refresh_tokens)
                .where(refresh_tokens.c.family_id == family_id, refresh_tokens.c.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )

    def family_revoked(self, family_id: str) -> bool:
        """Whether the session ``family_id`` was logged out (one indexed lookup per request)."""
        with self._db.connect() as conn:
            return bool(
                conn.execute(
                    select(
                        exists().where(
                            refresh_tokens.c.family_id == family_id, refresh_tokens.c.revoked_at.is_not(None)
                        )
                    )
                ).scalar()
            )

    def revoke_user(self, user_id: str) -> None:
        """Revoke every refresh token of a user (after a password change)."""
        with self._db.begin() as conn:
            conn.execute(
                update(refresh_tokens)
                .where(refresh_tokens.c.user_id == user_id, refresh_tokens.c.revoked_at.is_(None))
                .values(revoked_at=utcnow())
            )
