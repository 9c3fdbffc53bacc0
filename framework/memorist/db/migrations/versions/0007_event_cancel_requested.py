"""Events: ``cancel_requested``, set on a running add whose entity's memories are deleted.

Revision ID: 0007
Revises: 0006

A delete of every memory of a user (agent, run, app) cancels the entity's queued adds
at once; one already running cannot be stopped from outside, so it is flagged instead,
and its worker neither writes nor keeps anything once it sees the flag. See
``memorist.queue.events.EventStore.cancel_queued``. An integer (0/1) like ``users.disabled``:
the same column on SQLite and PostgreSQL, and existing rows read 0.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("cancel_requested", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("cancel_requested")
