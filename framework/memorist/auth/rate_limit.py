"""Fixed-window rate limits kept in the relational database, shared by every node."""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..db.schema import rate_limits
from ..records import as_utc, utcnow
from .errors import RateLimited


class RateLimiter:
    def __init__(self, db: Database, attempts: int, window_seconds: int) -> None:
        self._db = db
        self._attempts = attempts
        self._window = timedelta(seconds=window_seconds)

    def hit(self, key: str) -> None:
        """Count one attempt for ``key``; raise :class:`RateLimited` past the limit."""
        now = utcnow()
        with self._db.begin() as conn:
            row = conn.execute(select(rate_limits).where(rate_limits.c.key == key)).mappings().first()
            if row is None:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(rate_limits).values(key=key, window_start=now, count=1))
                    return
                except IntegrityError:
                    row = conn.execute(select(rate_limits).where(rate_limits.c.key == key)).mappings().one()
            start = as_utc(row["window_start"])
            if now - start >= self._window:
                restarted = conn.execute(
                    update(rate_limits)
                    .where(rate_limits.c.key == key, rate_limits.c.window_start == row["window_start"])
                    .values(window_start=now, count=1)
                ).rowcount
                if restarted:
                    return
                row = conn.execute(select(rate_limits).where(rate_limits.c.key == key)).mappings().one()
                start = as_utc(row["window_start"])
            # One conditional increment: of concurrent attempts, only those under the limit win.
            counted = conn.execute(
                update(rate_limits)
                .where(
                    rate_limits.c.key == key,
                    rate_limits.c.window_start == row["window_start"],
                    rate_limits.c.count < self._attempts,
                )
                .values(count=rate_limits.c.count + 1)
            ).rowcount
            if not counted:
                retry = max(1, math.ceil((start + self._window - now).total_seconds()))
                raise RateLimited(f"too many attempts; retry in {retry} s", retry_after=retry)

    def check(self, key: str) -> None:
        """Raise :class:`RateLimited` if ``key`` already used its budget, without counting."""
        now = utcnow()
        with self._db.connect() as conn:
            row = conn.execute(select(rate_limits).where(rate_limits.c.key == key)).mappings().first()
        if row is None:
            return
        start = as_utc(row["window_start"])
        if now - start < self._window and row["count"] >= self._attempts:
            retry = max(1, math.ceil((start + self._window - now).total_seconds()))
            raise RateLimited(f"too many attempts; retry in {retry} s", retry_after=retry)

    def reset(self, key: str) -> None:
        with self._db.begin() as conn:
            conn.execute(update(rate_limits).where(rate_limits.c.key == key).values(count=0))
