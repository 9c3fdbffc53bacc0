"""A ``POST /configure`` store switch refused with a 409 (the memories are in the current store,
the new one holds none) leaves storage as it found it: the new engine is built before the
check, and building a store creates its table, journal and directory, which the refusal must
take back (``VectorStore.discard_created``). A table that existed before is never dropped, and
a later allowed switch still creates what it needs."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import falcon.testing
import lancedb
import psycopg
import pytest
from memorist import Engine
from memorist.http import create_app
from memorist.kernel.core import Kernel
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing
from tests.security_kit import ADMIN_HEADERS, client, settings_for

PEANUTS = "I am allergic to peanuts."
OTHER_TABLE = {"vector_store": {"provider": "lancedb", "options": {"table": "other"}}}


def add(c: falcon.testing.TestClient, text: str) -> None:
    body = {"messages": [{"role": "user", "content": text}], "user_id": "ed", "infer": False}
    resp = c.simulate_post("/memories", headers=ADMIN_HEADERS, json=body)
    assert resp.status_code in (200, 201), resp.text


def listed(c: falcon.testing.TestClient) -> list[str]:
    resp = c.simulate_get("/memories", headers=ADMIN_HEADERS, params={"user_id": "ed"})
    assert resp.status_code == 200, resp.text
    return [m["memory"] for m in resp.json["results"]]


def found(c: falcon.testing.TestClient, query: str) -> list[str]:
    resp = c.simulate_post("/search", headers=ADMIN_HEADERS, json={"query": query, "user_id": "ed"})
    assert resp.status_code == 200, resp.text
    return [m["memory"] for m in resp.json["results"]]


def configure(c: falcon.testing.TestClient, patch: dict[str, Any]) -> falcon.testing.Result:
    return c.simulate_post("/configure", headers=ADMIN_HEADERS, json=patch)


def tables(path: Path) -> list[str]:
    return sorted(lancedb.connect(str(path)).list_tables().tables)


def listing(directory: Path) -> list[str]:
    """Every path under ``directory``, a LanceDB table's directory as one entry (reads and
    maintenance rewrite what is inside), without SQLite's WAL and shared-memory files (they
    come and go with connections)."""
    found = []
    for root, dirs, files in os.walk(directory):
        here = Path(root)
        found += [str((here / d).relative_to(directory)) for d in dirs]
        dirs[:] = [d for d in dirs if not d.endswith(".lance")]
        found += [str((here / f).relative_to(directory)) for f in files if not f.endswith(("-wal", "-shm"))]
    return sorted(found)


def flushed(data: Path) -> None:
    """Wait until the write-behind journal moved the stored memory into its table: the first
    flush leaves a lock file beside the journal, which a listing taken before would miss."""
    deadline = time.monotonic() + 10
    while lancedb.connect(str(data / "lancedb")).open_table("memories").count_rows() == 0:
        assert time.monotonic() < deadline, "the journal was never flushed"
        time.sleep(0.05)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def c(data: Path) -> falcon.testing.TestClient:
    app = client(data)
    add(app, PEANUTS)
    return app


def test_a_refused_switch_to_another_table_leaves_no_table_behind(c: falcon.testing.TestClient, data: Path) -> None:
    flushed(data)
    before_tables, before = tables(data / "lancedb"), listing(data)
    assert before_tables == ["memories"]

    refused = configure(c, OTHER_TABLE)
    assert refused.status_code == 409, refused.text
    assert "the memories are in the current store" in refused.json["detail"]

    assert tables(data / "lancedb") == before_tables
    assert listing(data) == before  # no table directory, no journal file of 'other'
    assert listed(c) == [PEANUTS]
    assert found(c, "peanuts allergy") == [PEANUTS]
    add(c, "I keep bees on the roof.")  # the current engine still serves writes
    assert sorted(listed(c)) == sorted([PEANUTS, "I keep bees on the roof."])


def test_a_refused_switch_to_another_path_leaves_no_directory_behind(c: falcon.testing.TestClient, data: Path) -> None:
    flushed(data)
    before = listing(data)
    refused = configure(c, {"vector_store": {"options": {"path": "elsewhere/lance"}}})
    assert refused.status_code == 409, refused.text

    assert not (data / "elsewhere").exists()
    assert listing(data) == before
    assert listed(c) == [PEANUTS]
    assert found(c, "peanuts allergy") == [PEANUTS]


def test_an_allowed_switch_after_a_refused_one_creates_the_table(c: falcon.testing.TestClient, data: Path) -> None:
    assert configure(c, OTHER_TABLE).status_code == 409
    assert configure(c, {"vector_store": {"options": {"table": "memories"}}}).status_code == 200  # the same store
    assert listed(c) == [PEANUTS]

    assert c.simulate_post("/reset", headers=ADMIN_HEADERS).status_code == 200
    switched = configure(c, OTHER_TABLE)
    assert switched.status_code == 200, switched.text
    assert tables(data / "lancedb") == ["memories", "other"]
    add(c, "I keep bees on the roof.")
    assert listed(c) == ["I keep bees on the roof."]
    assert found(c, "bees roof") == ["I keep bees on the roof."]


def test_a_refused_switch_keeps_an_empty_table_that_existed_before(c: falcon.testing.TestClient, data: Path) -> None:
    """Only what the refused build created is removed: an empty table another process made stays."""
    made = Engine.from_config(fast_settings(data, **OTHER_TABLE), plugins=load_plugins({}, extra=[hashing]))
    made.close()
    assert tables(data / "lancedb") == ["memories", "other"]

    assert configure(c, OTHER_TABLE).status_code == 409
    assert tables(data / "lancedb") == ["memories", "other"]
    assert (data / "lancedb" / "other.journal.sqlite").exists()
    assert listed(c) == [PEANUTS]


def pg_table_exists(url: str, table: str) -> bool:
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        row = conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()
    return row is not None and row[0] is not None


@pytest.fixture
def pg_client(tmp_path: Path, pg_fresh_url: str) -> Iterator[falcon.testing.TestClient]:
    """An app whose database and vector store are on PostgreSQL, closed before the database goes
    (without the request log, whose writer thread outlives the app and would find no database)."""
    settings = settings_for(
        tmp_path / "data",
        database={"url": pg_fresh_url},
        vector_store={"provider": "pgvector"},
        request_log={"enabled": False},
    )
    kernel = Kernel.build(settings, load_plugins({}, extra=[hashing]))
    try:
        yield falcon.testing.TestClient(create_app(kernel))
    finally:
        kernel.close()


def test_a_refused_pgvector_switch_drops_the_table_it_created(
    pg_client: falcon.testing.TestClient, pg_fresh_url: str
) -> None:
    c, other = pg_client, {"vector_store": {"options": {"table": "other"}}}
    add(c, PEANUTS)
    assert pg_table_exists(pg_fresh_url, "memories")

    refused = configure(c, other)
    assert refused.status_code == 409, refused.text
    assert not pg_table_exists(pg_fresh_url, "other")
    assert listed(c) == [PEANUTS]
    assert found(c, "peanuts allergy") == [PEANUTS]

    assert c.simulate_post("/reset", headers=ADMIN_HEADERS).status_code == 200
    assert configure(c, other).status_code == 200
    assert pg_table_exists(pg_fresh_url, "other")
    add(c, "I keep bees on the roof.")
    assert listed(c) == ["I keep bees on the roof."]
