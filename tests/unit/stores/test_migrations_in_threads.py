"""Engines built in threads of one process (a worker's background build beside a
``/configure`` swap, or tests) migrate their databases at the same time: each database ends
at head with its tables, whatever the interleaving. Alembic's ``context`` and ``op`` are
process-wide, so without a process-wide lock one thread's operations ran on another's
connection ("table entity_links already exists")."""

from __future__ import annotations

import threading
from pathlib import Path

from memorist.db import Database
from sqlalchemy import inspect


def test_databases_migrated_in_parallel_threads_each_reach_head(tmp_path: Path) -> None:
    databases = [Database(f"sqlite:///{tmp_path / f'memorist-{i}.db'}") for i in range(4)]
    start = threading.Barrier(len(databases))
    failures: list[BaseException] = []

    def migrate(db: Database) -> None:
        start.wait()
        try:
            db.upgrade()
        except BaseException as exc:  # noqa: BLE001 - reported below with the others
            failures.append(exc)

    threads = [threading.Thread(target=migrate, args=(db,)) for db in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures
    for db in databases:
        with db.connect() as conn:
            names = set(inspect(conn).get_table_names())
        assert {"entity_links", "memory_history", "alembic_version"} <= names, names
        db.dispose()
