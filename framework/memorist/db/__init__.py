"""Relational state (SQLAlchemy Core + Alembic): history, entity graph, and more.

Everything here runs unchanged on SQLite and PostgreSQL: no dialect-specific
SQL outside :mod:`memorist.db.engine`, which sets connection-level options.
"""

from __future__ import annotations

from .engine import Database

__all__ = ["Database"]
