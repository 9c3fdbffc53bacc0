"""Webhooks and their deliveries.

A database created before the webhooks plugin owned its tables already has
them (the kernel's revision 0003 used to create them): they are kept as they
are, so such a database upgrades without a change.

Revision ID: w0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "w0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "webhooks" not in existing:
        op.create_table(
            "webhooks",
            sa.Column("id", sa.String(36), primary_key=True),
            sa.Column("project_id", sa.String(64), nullable=False),
            sa.Column("name", sa.String(255), nullable=False),
            sa.Column("url", sa.String(2048), nullable=False),
            sa.Column("event_types", sa.JSON, nullable=False),
            sa.Column("secret", sa.String(128), nullable=False),
            sa.Column("is_active", sa.Integer, nullable=False),
            sa.Column("created_at", TZ, nullable=False),
            sa.Column("updated_at", TZ, nullable=False),
        )
        op.create_index("ix_webhooks_project_id", "webhooks", ["project_id"])
    if "webhook_deliveries" not in existing:
        op.create_table(
            "webhook_deliveries",
            sa.Column("id", sa.String(36), primary_key=True),
            sa.Column("webhook_id", sa.String(36), nullable=False),
            sa.Column("payload", sa.JSON, nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("attempts", sa.Integer, nullable=False),
            sa.Column("last_error", sa.Text),
            sa.Column("available_at", TZ, nullable=False),
            sa.Column("lease_expires_at", TZ),
            sa.Column("created_at", TZ, nullable=False),
            sa.Column("delivered_at", TZ),
        )
        op.create_index("ix_webhook_deliveries_webhook_id", "webhook_deliveries", ["webhook_id"])
        op.create_index("ix_webhook_deliveries_available_at", "webhook_deliveries", ["available_at"])


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
