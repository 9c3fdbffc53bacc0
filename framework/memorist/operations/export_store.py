"""Stored exports with quotas and retention: a project's members cannot fill the disk with them.

``POST /v1/exports/`` stores a full copy of the memories it selects (up to
50,000 of them), and any member of a project, a READER too, may ask for one.
Unbounded, 422 exports in 20 s grew a database by 757 MB. Three bounds apply
(the ``exports`` settings):

- **rate**: at most ``per_hour`` exports created per project per hour (a fixed
  window kept in the database, shared by every node); past it, 429 with
  ``Retry-After``;
- **count**: a project keeps its ``max_per_project`` newest exports; saving
  one more deletes the oldest beyond that;
- **age**: exports older than ``retention_hours`` are deleted (on every save,
  for the saving project, and in the whole deployment at most every
  ``PRUNE_EVERY_SECONDS`` per process), and are not served meanwhile.

Nothing here knows HTTP: the export routes (today in
``memorist.http.platform.extras``) call this store.
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Connection

from ..auth.rate_limit import RateLimiter
from ..config.settings import ExportSettings
from ..db import Database
from ..db.schema import exports
from ..records import utcnow

#: How often one process sweeps the whole deployment's expired exports.
PRUNE_EVERY_SECONDS = 600.0


class ExportStore:
    def __init__(self, db: Database, settings: ExportSettings) -> None:
        self._db = db
        self._settings = settings
        self._limiter = RateLimiter(db, settings.per_hour, 3600)
        self._retention = timedelta(hours=settings.retention_hours)
        self._last_sweep = 0.0
        self._sweep_lock = threading.Lock()

    def admit(self, org_id: str, project_id: str) -> None:
        """Count one export for the project; ``RateLimited`` (429) past ``per_hour``. Call before building it."""
        self._limiter.hit(f"export:{org_id}/{project_id}")

    def save(self, org_id: str, project_id: str, filters: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
        """Store a finished export, then drop the project's oldest and expired ones; returns the row."""
        now = utcnow()
        row: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            "org_id": org_id,
            "project_id": project_id,
            "filters": filters,
            "status": "SUCCEEDED",
            "created_at": now,
            "result": result,
        }
        with self._db.begin() as conn:
            conn.execute(insert(exports).values(**row))
            self._trim_project(conn, org_id, project_id, now)
        self._sweep_if_due()
        return row

    def find(
        self, org_id: str, project_id: str, export_id: str | None, filters: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """The export ``export_id``, else the newest whose filters equal ``filters`` (any, if None)."""
        e = exports.c
        query = select(exports).where(
            e.org_id == org_id, e.project_id == project_id, e.created_at >= utcnow() - self._retention
        )
        if export_id:
            query = query.where(e.id == export_id)
        with self._db.connect() as conn:
            rows = conn.execute(query.order_by(e.created_at.desc())).mappings()
            # Filters are JSON: compared as documents, not as text, so key order does not matter.
            row = next((r for r in rows if export_id or filters is None or r["filters"] == filters), None)
        return dict(row) if row is not None else None

    def count(self, org_id: str, project_id: str) -> int:
        with self._db.connect() as conn:
            return len(conn.execute(select(exports.c.id).where(*self._project(org_id, project_id))).all())

    def prune(self, now: datetime | None = None) -> int:
        """Delete every export past its retention, in the whole deployment; returns how many."""
        cutoff = (now or utcnow()) - self._retention
        with self._db.begin() as conn:
            return int(conn.execute(delete(exports).where(exports.c.created_at < cutoff)).rowcount or 0)

    # -- internals -------------------------------------------------------------------------
    @staticmethod
    def _project(org_id: str, project_id: str) -> tuple[Any, ...]:
        return (exports.c.org_id == org_id, exports.c.project_id == project_id)

    def _trim_project(self, conn: Connection, org_id: str, project_id: str, now: datetime) -> None:
        e = exports.c
        keep = (
            select(e.id)
            .where(*self._project(org_id, project_id))
            .order_by(e.created_at.desc(), e.id)
            .limit(self._settings.max_per_project)
        )
        kept = [r[0] for r in conn.execute(keep)]
        conn.execute(
            delete(exports).where(
                *self._project(org_id, project_id),
                ~e.id.in_(kept) | (e.created_at < now - self._retention),
            )
        )

    def _sweep_if_due(self) -> None:
        if time.monotonic() - self._last_sweep < PRUNE_EVERY_SECONDS or not self._sweep_lock.acquire(blocking=False):
            return
        try:
            self._last_sweep = time.monotonic()
            self.prune()
        finally:
            self._sweep_lock.release()
