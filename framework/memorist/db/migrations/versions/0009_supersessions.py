"""Supersessions: which memory replaced which (a changed fact's newer version).

Revision ID: 0009
Revises: 0008

See ``memorist.engine.supersession``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "memory_supersessions",
        sa.Column("memory_id", sa.String(64), primary_key=True),
        sa.Column("superseded_by", sa.String(64), primary_key=True),
        sa.Column("org_id", sa.String(64), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("superseded_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_memory_supersessions_superseded_by", "memory_supersessions", ["superseded_by"])
    op.create_index("ix_memory_supersessions_org_id_project_id", "memory_supersessions", ["org_id", "project_id"])


def downgrade() -> None:
    op.drop_table("memory_supersessions")
