"""Alembic environment: runs on the connection handed over by ``Database.upgrade``."""

from __future__ import annotations

from alembic import context

from memorist.db.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - always called through Database.upgrade
    raise RuntimeError("run migrations with `memorist db upgrade`")

# A plugin's revisions keep their own version table (see Database.upgrade).
version_table = context.config.attributes.get("version_table", "alembic_version")
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True, version_table=version_table)
with context.begin_transaction():
    context.run_migrations()
