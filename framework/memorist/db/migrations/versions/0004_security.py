"""Security: session versions, disabled accounts, separate platform accounts, one first admin.

Revision ID: 0004
Revises: 0003

``users.token_version`` is copied into every access token and checked on each
request, so a password change, a disabled account or a role change revokes
tokens at once. ``users.kind`` separates self-hosted dashboard accounts from
platform members (the same email may exist once per kind). The ``first_admin``
row in ``kv_settings`` is the guard that makes the first registration atomic:
concurrent registrations race on its primary key and only one commits.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("kind", sa.String(16), nullable=False, server_default="selfhosted"))
        batch.add_column(sa.Column("token_version", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("disabled", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("last_login_at", TZ))
        batch.drop_constraint("uq_users_email", type_="unique")
        batch.create_unique_constraint("uq_users_kind_email", ["kind", "email"])
    bind = op.get_bind()
    # Platform-only members (made by `memorist admin`, never used on the dashboard) become platform accounts.
    bind.execute(
        sa.text(
            "UPDATE users SET kind = 'platform' WHERE role = 'user'"
            " AND id IN (SELECT user_id FROM project_members)"
            " AND id NOT IN (SELECT user_id FROM api_keys WHERE kind = 'selfhosted')"
            " AND id NOT IN (SELECT user_id FROM refresh_tokens)"
        )
    )
    admins = bind.execute(sa.text("SELECT count(*) FROM users WHERE role = 'admin' AND kind = 'selfhosted'")).scalar()
    if admins:
        kv = sa.table("kv_settings", sa.column("key"), sa.column("value", sa.JSON), sa.column("updated_at", TZ))
        bind.execute(sa.insert(kv).values(key="first_admin", value={"migrated": True}, updated_at=datetime.now(UTC)))


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM kv_settings WHERE key = 'first_admin'"))
    op.execute(sa.text("DELETE FROM users WHERE kind = 'platform'"))
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("uq_users_kind_email", type_="unique")
        batch.create_unique_constraint("uq_users_email", ["email"])
        batch.drop_column("last_login_at")
        batch.drop_column("disabled")
        batch.drop_column("token_version")
        batch.drop_column("kind")
