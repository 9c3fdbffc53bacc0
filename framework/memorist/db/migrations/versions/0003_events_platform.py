"""Durable event queue; platform tenancy, feedback, exports.

(The webhooks tables this revision used to create now belong to the webhooks
plugin and its own migrations; a database created before the move keeps them
and the plugin's first revision finds them in place.)

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("org_id", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("event_type", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("payload", sa.JSON, nullable=False),
        sa.Column("results", sa.JSON),
        sa.Column("planned_ids", sa.JSON),
        sa.Column("error", sa.Text),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("lease_owner", sa.String(128)),
        sa.Column("lease_expires_at", TZ),
        sa.Column("available_at", TZ, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.Column("started_at", TZ),
        sa.Column("finished_at", TZ),
    )
    op.create_index("ix_events_status_available_at", "events", ["status", "available_at"])
    op.create_index("ix_events_org_id_project_id_created_at", "events", ["org_id", "project_id", "created_at"])
    op.create_table(
        "organizations",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("org_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("settings", sa.JSON, nullable=False),
        sa.Column("is_default", sa.Integer, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
    )
    op.create_index("ix_projects_org_id", "projects", ["org_id"])
    op.create_table(
        "project_members",
        sa.Column("project_id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(36), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_table(
        "memory_feedback",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("memory_id", sa.String(64), nullable=False),
        sa.Column("org_id", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("feedback", sa.String(32)),
        sa.Column("reason", sa.Text),
        sa.Column("user_id", sa.String(36)),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_index("ix_memory_feedback_memory_id", "memory_feedback", ["memory_id"])
    op.create_table(
        "exports",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("org_id", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("filters", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.JSON),
        sa.Column("created_at", TZ, nullable=False),
    )


def downgrade() -> None:
    for table in (
        "exports",
        "memory_feedback",
        "project_members",
        "projects",
        "organizations",
        "events",
    ):
        op.drop_table(table)
