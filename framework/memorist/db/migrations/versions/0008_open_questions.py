"""Open questions: the question a conversation's last add ended on.

Revision ID: 0008
Revises: 0007

The next add's reply ("Vegetarian.") is read as the answer to it. See
``memorist.engine.open_questions``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "open_questions",
        sa.Column("scope_key", sa.String(512), primary_key=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("name", sa.String(255)),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("generation", sa.Integer, nullable=False),
        sa.Column("everything", sa.Integer, nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("open_questions")
