"""Memory history, entity graph, shared key/value settings.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "memory_history",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("memory_id", sa.String(64), nullable=False),
        sa.Column("org_id", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("old_memory", sa.Text),
        sa.Column("new_memory", sa.Text),
        sa.Column("old_metadata", sa.JSON),
        sa.Column("new_metadata", sa.JSON),
        sa.Column("actor", sa.String(255)),
        sa.Column("role", sa.String(32)),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_index("ix_memory_history_memory_id_created_at", "memory_history", ["memory_id", "created_at"])
    op.create_table(
        "entities",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("scope_key", sa.String(512), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("norm", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.UniqueConstraint("scope_key", "norm", name="uq_entities_scope_key_norm"),
    )
    op.create_table(
        "entity_aliases",
        sa.Column("scope_key", sa.String(512), primary_key=True),
        sa.Column("norm", sa.String(255), primary_key=True),
        sa.Column("entity_id", sa.String(36), nullable=False),
    )
    op.create_index("ix_entity_aliases_entity_id", "entity_aliases", ["entity_id"])
    op.create_table(
        "entity_links",
        sa.Column("entity_id", sa.String(36), primary_key=True),
        sa.Column("memory_id", sa.String(64), primary_key=True),
        sa.Column("scope_key", sa.String(512), nullable=False),
    )
    op.create_index("ix_entity_links_memory_id", "entity_links", ["memory_id"])
    op.create_index("ix_entity_links_scope_key_entity_id", "entity_links", ["scope_key", "entity_id"])
    op.create_table(
        "kv_settings",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("value", sa.JSON),
        sa.Column("updated_at", TZ, nullable=False),
    )


def downgrade() -> None:
    for table in ("kv_settings", "entity_links", "entity_aliases", "entities", "memory_history"):
        op.drop_table(table)
