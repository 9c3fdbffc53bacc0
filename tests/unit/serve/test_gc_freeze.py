"""A served worker freezes what it built (``server.gc_freeze``); an embedded ``Memory`` does not.

The worker's build is run in-process, as gunicorn's worker runs it (``MemoristGunicorn``'s
``_build_app``, the function :class:`memorist.serve.startup.StartingApp` calls in the worker),
with the shipped default providers in a temporary data directory.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from memorist.config.settings import load_settings
from memorist.python.memory import Memory
from memorist.serve.gunicorn_app import MemoristGunicorn


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    """Each test starts with nothing frozen and leaves nothing frozen for the next."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def _build_worker_app(tmp_path: Path, **server: object) -> MemoristGunicorn:
    settings = load_settings(None, {"data_dir": str(tmp_path), "server": server})
    worker = MemoristGunicorn(settings)
    worker._build_app()
    return worker


def test_a_served_worker_freezes_its_built_app_by_default(tmp_path: Path) -> None:
    assert gc.get_freeze_count() == 0
    worker = _build_worker_app(tmp_path)
    try:
        frozen = gc.get_freeze_count()
        # The models, lexicons, routes and plugins: tens of thousands of objects, none of
        # them walked again by a full collection.
        assert frozen > 10_000
        assert len(gc.get_objects(generation=2)) < frozen
    finally:
        worker.kernel.close()


def test_the_setting_turns_the_freeze_off(tmp_path: Path) -> None:
    worker = _build_worker_app(tmp_path, gc_freeze=False)
    try:
        assert gc.get_freeze_count() == 0
    finally:
        worker.kernel.close()


def test_an_embedded_memory_leaves_the_collector_to_its_process(tmp_path: Path) -> None:
    memory = Memory.from_config({"data_dir": str(tmp_path)})
    try:
        memory.add("I live in Lisbon.", user_id="ana")
        assert gc.get_freeze_count() == 0
    finally:
        memory.close()
