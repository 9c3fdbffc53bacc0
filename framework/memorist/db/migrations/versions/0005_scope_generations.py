"""Scope generations: the counter that keeps search's in-memory scope snapshots coherent.

Revision ID: 0005
Revises: 0004

One row per memory scope written since this revision (absent = generation 0),
and the ``*`` row that a reset bumps. See ``memorist.engine.scope_index``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scope_generations",
        sa.Column("scope_key", sa.String(512), primary_key=True),
        sa.Column("generation", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("scope_generations")
