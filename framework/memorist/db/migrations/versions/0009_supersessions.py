"""Supersessions: which memory replaced which (a changed fact's newer version); history input.

Revision ID: 0009
Revises: 0008

See ``memorist.engine.supersession``; ``memory_usage`` is what decay reads
(``memorist.engine.decay``). ``memory_history.input`` keeps, on an ADD row, the message the
memory was extracted from: one message may state several facts, each its own memory.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory_history") as batch:
        batch.add_column(sa.Column("input", sa.Text))
    op.create_table(
        "memory_usage",
        sa.Column("memory_id", sa.String(64), primary_key=True),
        sa.Column("retrievals", sa.Integer, nullable=False),
        sa.Column("last_retrieved_at", sa.DateTime(timezone=True), nullable=False),
    )
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
    op.drop_table("memory_usage")
    op.drop_table("memory_supersessions")
    with op.batch_alter_table("memory_history") as batch:
        batch.drop_column("input")
