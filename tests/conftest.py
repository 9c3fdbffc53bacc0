"""Shared fixtures: a clean environment, free ports, and fast test settings."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from tests.conftest_pg import pg_cluster, pg_fresh_url, pg_module_url, pg_url  # noqa: E402, F401

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No MEMORIST_* variable from the developer's shell leaks into a test."""
    for key in list(os.environ):
        if key.startswith("MEMORIST_"):
            monkeypatch.delenv(key)
    yield


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fast_settings(data_dir: Path, **extra: Any) -> dict[str, Any]:
    """Settings overrides using the test plugin's hashing embedder (no model load)."""
    overrides: dict[str, Any] = {
        "data_dir": str(data_dir),
        "embedder": {"provider": "hashing", "options": {"dimension": 64}},
    }
    overrides.update(extra)
    return overrides
