"""Shared fixtures: a clean environment, fast test settings, and the test kit's PostgreSQL fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

#: pg_cluster (session), pg_url (session), pg_module_url (module), pg_fresh_url (test).
pytest_plugins = ["memorist.testing.fixtures"]

ROOT = Path(__file__).resolve().parent.parent


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``: the longest files first, one long file per worker (tests/scheduling.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from .scheduling import make_scheduler

    return make_scheduler(config, log)


@pytest.fixture(scope="session", autouse=True)
def _cheap_passwords(cheap_password_hashing: None) -> None:
    """In-process apps hash passwords cheaply (see memorist.testing.fixtures.cheap_password_hashing)."""


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No MEMORIST_* variable from the developer's shell leaks into a test."""
    for key in list(os.environ):
        if key.startswith("MEMORIST_"):
            monkeypatch.delenv(key)
    yield


def fast_settings(data_dir: Path, **extra: Any) -> dict[str, Any]:
    """Settings overrides using the test kit's hashing embedder (no model load)."""
    overrides: dict[str, Any] = {
        "data_dir": str(data_dir),
        "embedder": {"provider": "hashing", "options": {"dimension": 64}},
    }
    overrides.update(extra)
    return overrides
