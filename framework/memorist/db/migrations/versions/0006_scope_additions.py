"""Scope additions: which memories each recent add put in a scope, by generation.

Revision ID: 0006
Revises: 0005

A process whose snapshot of a scope is a few adds behind reads the added memories
instead of reloading the scope. See ``memorist.engine.scope_index``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scope_additions",
        sa.Column("scope_key", sa.String(512), primary_key=True),
        sa.Column("generation", sa.Integer, primary_key=True),
        sa.Column("memory_ids", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("scope_additions")
