"""The webhooks plugin's own tables (created by its own migrations, see ``migrations/``).

The kernel's schema knows nothing of them: a deployment without this plugin has
no webhook tables, and disabling it leaves the kernel's migrations untouched.
"""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Integer, MetaData, String, Table, Text

metadata = MetaData()

webhooks = Table(
    "webhooks",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("project_id", String(64), nullable=False, index=True),
    Column("name", String(255), nullable=False),
    Column("url", String(2048), nullable=False),
    Column("event_types", JSON, nullable=False),
    Column("secret", String(128), nullable=False),
    Column("is_active", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("webhook_id", String(36), nullable=False, index=True),
    Column("payload", JSON, nullable=False),
    Column("status", String(16), nullable=False),  # PENDING | DELIVERED | FAILED
    Column("attempts", Integer, nullable=False),
    Column("last_error", Text),
    Column("available_at", DateTime(timezone=True), nullable=False, index=True),
    Column("lease_expires_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("delivered_at", DateTime(timezone=True)),
)
