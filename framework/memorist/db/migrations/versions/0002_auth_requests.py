"""Users, API keys, refresh tokens, request log, rate limits, per-entity counts.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
        sa.UniqueConstraint("email", name="uq_users_email"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("user_id", sa.String(36), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("org_id", sa.String(64)),
        sa.Column("project_id", sa.String(64)),
        sa.Column("label", sa.String(255), nullable=False),
        sa.Column("key_prefix", sa.String(32), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("last_used_at", TZ),
        sa.Column("revoked_at", TZ),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),
    )
    op.create_index("ix_api_keys_user_id", "api_keys", ["user_id"])
    op.create_table(
        "refresh_tokens",
        sa.Column("jti", sa.String(64), primary_key=True),
        sa.Column("family_id", sa.String(64), nullable=False),
        sa.Column("user_id", sa.String(36), nullable=False),
        sa.Column("expires_at", TZ, nullable=False),
        sa.Column("used_at", TZ),
        sa.Column("revoked_at", TZ),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_index("ix_refresh_tokens_family_id", "refresh_tokens", ["family_id"])
    op.create_table(
        "request_logs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("method", sa.String(8), nullable=False),
        sa.Column("path", sa.String(2048), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("latency_ms", sa.Float, nullable=False),
        sa.Column("auth_type", sa.String(16), nullable=False),
        sa.Column("principal", sa.String(320)),
        sa.Column("request_id", sa.String(128), nullable=False),
        sa.Column("created_at", TZ, nullable=False),
    )
    op.create_index("ix_request_logs_created_at", "request_logs", ["created_at"])
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("window_start", TZ, nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
    )
    op.create_table(
        "scope_counts",
        sa.Column("org_id", sa.String(64), primary_key=True),
        sa.Column("project_id", sa.String(64), primary_key=True),
        sa.Column("entity_type", sa.String(8), primary_key=True),
        sa.Column("entity_id", sa.String(255), primary_key=True),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("created_at", TZ, nullable=False),
        sa.Column("updated_at", TZ, nullable=False),
    )


def downgrade() -> None:
    for table in ("scope_counts", "rate_limits", "request_logs", "refresh_tokens", "api_keys", "users"):
        op.drop_table(table)
