"""Alembic revisions of the webhooks plugin (version table ``alembic_version_webhooks``)."""
