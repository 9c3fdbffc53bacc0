"""Fixtures the engine's tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from memorist.config.settings import load_settings
from memorist.python.engine import Engine


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """An engine of the default configuration (the real embedder) in a fresh data dir, one
    per test module: the supersession tests replay adds through it, where the cosines the
    rule reads are the embedder's."""
    data = tmp_path_factory.mktemp("engine")
    engine = Engine.from_settings(load_settings(None, {"data_dir": str(data), "request_log": {"enabled": False}}))
    yield engine
    engine.close()
