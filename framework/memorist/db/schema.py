"""Table definitions. Alembic migrations create them; code reads them from here."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "pk": "pk_%(table_name)s",
}
metadata = MetaData(naming_convention=NAMING)

#: Every add, update and delete of a memory; kept when the memory is deleted.
history = Table(
    "memory_history",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("memory_id", String(64), nullable=False),
    Column("org_id", String(64), nullable=False),
    Column("project_id", String(64), nullable=False),
    Column("event", String(16), nullable=False),  # ADD | UPDATE | DELETE
    Column("old_memory", Text),
    Column("new_memory", Text),
    Column("old_metadata", JSON),
    Column("new_metadata", JSON),
    Column("actor", String(255)),
    Column("role", String(32)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    #: ADD: the message the memory was extracted from (a memory is one fact of it).
    Column("input", Text),
    Index("ix_memory_history_memory_id_created_at", "memory_id", "created_at"),
)

#: Which memory replaced which: an add that stores a changed fact ("...555-9876 now") links the
#: new memory (``superseded_by``) to the older one it replaces (``memory_id``), at the newer
#: fact's observation time. A row goes when either memory is deleted: the older one is current
#: again unless the delete took it too (``delete_linked``). See ``memorist.engine.supersession``.
memory_supersessions = Table(
    "memory_supersessions",
    metadata,
    Column("memory_id", String(64), primary_key=True),
    Column("superseded_by", String(64), primary_key=True),
    Column("org_id", String(64), nullable=False),
    Column("project_id", String(64), nullable=False),
    Column("superseded_at", DateTime(timezone=True), nullable=False),
    Index("ix_memory_supersessions_superseded_by", "superseded_by"),
    Index("ix_memory_supersessions_org_id_project_id", "org_id", "project_id"),
)

#: How often, and when last, a search with decay on returned each memory
#: (``memorist.engine.decay``); only decay reads it, only searches with decay on write it.
memory_usage = Table(
    "memory_usage",
    metadata,
    Column("memory_id", String(64), primary_key=True),
    Column("retrievals", Integer, nullable=False),
    Column("last_retrieved_at", DateTime(timezone=True), nullable=False),
)

#: One entity per (scope, canonical name); ``scope_key`` is org/project/user-level.
entities = Table(
    "entities",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("scope_key", String(512), nullable=False),
    Column("name", String(255), nullable=False),
    Column("norm", String(255), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    UniqueConstraint("scope_key", "norm"),
)

#: Every normalized surface form that resolves to an entity ("mel" -> Melanie).
entity_aliases = Table(
    "entity_aliases",
    metadata,
    Column("scope_key", String(512), primary_key=True),
    Column("norm", String(255), primary_key=True),
    Column("entity_id", String(36), nullable=False, index=True),
)

#: Which memories mention which entity.
entity_links = Table(
    "entity_links",
    metadata,
    Column("entity_id", String(36), primary_key=True),
    Column("memory_id", String(64), primary_key=True),
    Column("scope_key", String(512), nullable=False),
    Index("ix_entity_links_memory_id", "memory_id"),
    Index("ix_entity_links_scope_key_entity_id", "scope_key", "entity_id"),
)

#: Small key/value settings (e.g. the store's embedding dimension), shared by all nodes.
kv = Table(
    "kv_settings",
    metadata,
    Column("key", String(255), primary_key=True),
    Column("value", JSON),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

#: Accounts: self-hosted dashboard users (``kind`` selfhosted) and platform members (``kind``
#: platform) are separate accounts; one email may exist once per kind.
users = Table(
    "users",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("email", String(320), nullable=False),
    Column("password_hash", String(255), nullable=False),
    Column("role", String(16), nullable=False),  # admin | user
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("kind", String(16), nullable=False, server_default="selfhosted"),
    #: Copied into access tokens; bumping it revokes every token of the user at once.
    Column("token_version", Integer, nullable=False, server_default="0"),
    Column("disabled", Integer, nullable=False, server_default="0"),
    Column("last_login_at", DateTime(timezone=True)),
    UniqueConstraint("kind", "email"),
)

#: API keys, stored only as a SHA-256 of the full key (keys are 256-bit random).
api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("user_id", String(36), nullable=False, index=True),
    Column("kind", String(16), nullable=False),  # selfhosted | platform
    Column("org_id", String(64)),
    Column("project_id", String(64)),
    Column("label", String(255), nullable=False),
    Column("key_prefix", String(32), nullable=False),
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_used_at", DateTime(timezone=True)),
    Column("revoked_at", DateTime(timezone=True)),
)

#: Refresh tokens by id; a family is one login's chain of rotations.
refresh_tokens = Table(
    "refresh_tokens",
    metadata,
    Column("jti", String(64), primary_key=True),
    Column("family_id", String(64), nullable=False, index=True),
    Column("user_id", String(36), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("used_at", DateTime(timezone=True)),
    Column("revoked_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

request_logs = Table(
    "request_logs",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("method", String(8), nullable=False),
    Column("path", String(2048), nullable=False),
    Column("status_code", Integer, nullable=False),
    Column("latency_ms", Float, nullable=False),
    Column("auth_type", String(16), nullable=False),
    Column("principal", String(320)),
    Column("request_id", String(128), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, index=True),
)

#: Fixed-window counters shared by every node (login and register attempts).
rate_limits = Table(
    "rate_limits",
    metadata,
    Column("key", String(255), primary_key=True),
    Column("window_start", DateTime(timezone=True), nullable=False),
    Column("count", Integer, nullable=False),
)

#: Memory count and activity per entity (user, agent, run, app) of a project.
scope_counts = Table(
    "scope_counts",
    metadata,
    Column("org_id", String(64), primary_key=True),
    Column("project_id", String(64), primary_key=True),
    Column("entity_type", String(8), primary_key=True),
    Column("entity_id", String(255), primary_key=True),
    Column("total", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

#: The durable queue of asynchronous adds, and the event record clients poll.
events = Table(
    "events",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("org_id", String(64), nullable=False),
    Column("project_id", String(64), nullable=False),
    Column("event_type", String(16), nullable=False),
    Column("status", String(16), nullable=False),  # PENDING | RUNNING | SUCCEEDED | FAILED
    Column("payload", JSON, nullable=False),
    Column("results", JSON),
    Column("planned_ids", JSON),
    Column("error", Text),
    Column("attempts", Integer, nullable=False),
    Column("lease_owner", String(128)),
    Column("lease_expires_at", DateTime(timezone=True)),
    Column("available_at", DateTime(timezone=True), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    # 1 once a delete of the add's entity asked its running worker to stop (see EventStore.cancel_queued).
    Column("cancel_requested", Integer, nullable=False, server_default="0"),
    Index("ix_events_status_available_at", "status", "available_at"),
    Index("ix_events_org_id_project_id_created_at", "org_id", "project_id", "created_at"),
)

organizations = Table(
    "organizations",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

projects = Table(
    "projects",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("org_id", String(64), nullable=False, index=True),
    Column("name", String(255), nullable=False),
    Column("description", Text, nullable=False),
    Column("settings", JSON, nullable=False),
    Column("is_default", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

members = Table(
    "project_members",
    metadata,
    Column("project_id", String(64), primary_key=True),
    Column("user_id", String(36), primary_key=True),
    Column("role", String(16), nullable=False),  # READER | OWNER
    Column("created_at", DateTime(timezone=True), nullable=False),
)

feedback = Table(
    "memory_feedback",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("memory_id", String(64), nullable=False, index=True),
    Column("org_id", String(64), nullable=False),
    Column("project_id", String(64), nullable=False),
    Column("feedback", String(32)),
    Column("reason", Text),
    Column("user_id", String(36)),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

exports = Table(
    "exports",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("org_id", String(64), nullable=False),
    Column("project_id", String(64), nullable=False),
    Column("filters", JSON, nullable=False),
    Column("status", String(16), nullable=False),
    Column("result", JSON),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

#: A counter per memory scope (org, project and one of user/agent/run/app), bumped by
#: every write to the scope once the store shows it; the key ``*`` is bumped by a reset.
#: Search keeps in-memory snapshots of scopes (``memorist.engine.scope_index``) and
#: compares their generation with this row on every query: one point read keeps every
#: process and node coherent with every other's writes.
scope_generations = Table(
    "scope_generations",
    metadata,
    Column("scope_key", String(512), primary_key=True),
    Column("generation", Integer, nullable=False),
)

#: The question a conversation's last add ended on, which the next add may answer
#: (``memorist.engine.open_questions``); open while the scope's generation (and the ``*``
#: row's) are still those noted here.
open_questions = Table(
    "open_questions",
    metadata,
    Column("scope_key", String(512), primary_key=True),
    Column("role", String(16), nullable=False),
    Column("name", String(255)),
    Column("question", Text, nullable=False),
    Column("generation", Integer, nullable=False),
    Column("everything", Integer, nullable=False),
    Column("asked_at", DateTime(timezone=True), nullable=False),
)

#: The memories an add put in a scope, under the generation it bumped the scope to: a
#: process whose snapshot of the scope is a few adds behind reads just those instead of
#: reloading the scope (``memorist.engine.scope_index``). Only recent generations are kept.
scope_additions = Table(
    "scope_additions",
    metadata,
    Column("scope_key", String(512), primary_key=True),
    Column("generation", Integer, primary_key=True),
    Column("memory_ids", Text, nullable=False),
)
