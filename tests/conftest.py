"""Shared fixtures: a clean environment, fast test settings, and the test kit's PostgreSQL fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.tiers import directory_marker, excludes_marker, keep_collection_order, mark_postgres_users, order_by_tier

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

#: pg_cluster (session), pg_url (session), pg_module_url (module), pg_fresh_url (test).
pytest_plugins = ["memorist.testing.fixtures"]

ROOT = Path(__file__).resolve().parent.parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests using the shared PostgreSQL join the ``postgres`` tier wherever they live; the slow tiers'
    files start first (tests/tiers.py)."""
    mark_postgres_users(items)
    order_by_tier(items, ROOT / "tests")


def pytest_configure(config: pytest.Config) -> None:
    keep_collection_order(config)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A tier directory whose marker ``-m`` rules out is not collected: the fast tier imports no
    slow tier's test module (tests/tiers.py, ``excludes_marker``). ``None`` leaves it to pytest."""
    if collection_path.parent != ROOT / "tests" or not collection_path.is_dir():
        return None
    marker = directory_marker(collection_path)
    if marker is not None and excludes_marker(config.getoption("markexpr", ""), marker):
        return True
    return None


@pytest.fixture(scope="session", autouse=True)
def _cheap_passwords(cheap_password_hashing: None) -> None:
    """In-process apps hash passwords cheaply (see memorist.testing.fixtures.cheap_password_hashing)."""


@pytest.fixture(scope="session", autouse=True)
def _prompt_graph_fusion() -> None:
    """The embedder's background graph fusion starts at once in this process's tests (it waits for
    a server's other workers to start otherwise): tests that wait for it do not wait for nothing."""
    from memorist_sentence_transformers import graph_preparation

    graph_preparation.FUSION_DELAY_SECONDS = 0.0


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No MEMORIST_* variable from the developer's shell leaks into a test."""
    for key in list(os.environ):
        if key.startswith("MEMORIST_"):
            monkeypatch.delenv(key)
    yield


@pytest.fixture(autouse=True)
def _close_leftover_kernels(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close every kernel this test (or its function-scoped fixtures) built and left open.

    Why: ``create_app(settings, plugins)`` builds a kernel the caller never sees, and a kernel
    runs threads -- the configuration watcher, queue workers, two webhook delivery threads polling
    the database every second. Left open they outlived their test and its temporary directory, so
    a worker process accumulated dozens of them (42 webhook threads after three security files),
    polling deleted databases and logging the failures: later files ran several times slower for
    CPU that no test used. Kernels of module- and session-scoped fixtures are built before this
    fixture starts (pytest sets up wider scopes first), so they live as long as their scope.
    """
    from memorist.kernel.core import Kernel

    built: list[Kernel] = []
    closed: set[int] = set()
    build = Kernel.build.__func__  # type: ignore[attr-defined]
    close = Kernel.close

    def tracked_build(cls: type[Kernel], *args: Any, **kwargs: Any) -> Kernel:
        kernel = build(cls, *args, **kwargs)
        built.append(kernel)
        return kernel

    def tracked_close(self: Kernel) -> None:
        closed.add(id(self))
        close(self)

    monkeypatch.setattr(Kernel, "build", classmethod(tracked_build))
    monkeypatch.setattr(Kernel, "close", tracked_close)
    yield
    for kernel in built:
        if id(kernel) not in closed:
            try:
                close(kernel)
            except Exception:  # noqa: BLE001 - a test may have broken its system on purpose; nothing to keep
                pass


def fast_settings(data_dir: Path, **extra: Any) -> dict[str, Any]:
    """Settings overrides using the test kit's hashing embedder (no model load)."""
    overrides: dict[str, Any] = {
        "data_dir": str(data_dir),
        "embedder": {"provider": "hashing", "options": {"dimension": 64}},
        # falcon.testing's default Host: served by apps with AUTH_DISABLED=true (see memorist.http.hosts).
        "server": {"allowed_hosts": ["falconframework.org"]},
    }
    overrides.update(extra)
    return overrides
