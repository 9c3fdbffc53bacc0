"""The LanceDB write-behind journal: durable before the table, flushed in batches, seen by
every reader and every process on the directory, and safe to lose a process at any point.

Crashes are real: a child process is killed with SIGKILL, either right after its upsert
returned (rows only in the journal) or right after a flush wrote the table but before it
deleted its journal rows; the directory is then reopened and checked.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist.filters import parse_filter
from memorist.plugin.contracts import ProviderContext
from memorist.testing.vector_store import make_record, random_vectors, unit
from memorist_lancedb import LanceDBVectorStore

DIM = 8
#: Longer than any test: rows stay in the journal unless a read or close drains them.
NEVER = 600.0


def open_store(data_dir: Path, **options: Any) -> LanceDBVectorStore:
    options.setdefault("write_behind", True)
    return LanceDBVectorStore(LanceDBVectorStore.Options(**options), ProviderContext(data_dir=data_dir, dimension=DIM))


def table_ids(store: LanceDBVectorStore) -> list[str]:
    """Ids in the Lance table itself (not the journal)."""
    return sorted(store._table.search().select(["id"]).limit(None).to_arrow().column("id").to_pylist())


def journal_of(store: LanceDBVectorStore) -> Any:
    assert store._behind is not None
    return store._behind.journal


def wait_until(check: Any, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_an_upsert_waits_in_the_journal_and_reads_see_it(tmp_path: Path) -> None:
    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    store.upsert([make_record("a", "herons nest by the lake", user_id="u")], np.stack([unit(DIM, 1.0)]))
    assert table_ids(store) == []  # nothing committed to the table yet
    assert [r.id for r in store.get(["a"])] == ["a"]
    assert [r.id for r in store.list(parse_filter({"user_id": "u"}))] == ["a"]
    (hit,) = store.search_vector(unit(DIM, 1.0), 5)
    assert hit.record.id == "a" and abs(hit.score - 1.0) < 1e-6
    assert table_ids(store) == []  # those three overlay the journal
    assert [h.record.id for h in store.search_keyword("herons", 5)] == ["a"]  # BM25 drains it first
    assert table_ids(store) == ["a"] and not journal_of(store).has_pending()
    store.close()


def test_a_pending_newer_version_shadows_the_table_row(tmp_path: Path) -> None:
    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    store.upsert([make_record("a", "old text", user_id="u")], np.stack([unit(DIM, 1.0)]))
    store.optimize()  # drains: the old version is in the table
    store.upsert([make_record("a", "new text", user_id="v")], np.stack([unit(DIM, -1.0)]))
    assert [r.text for r in store.get(["a"])] == ["new text"]
    assert store.list(parse_filter({"user_id": "u"})) == []
    assert [r.text for r in store.list(parse_filter({"user_id": "v"}))] == ["new text"]
    (hit,) = store.search_vector(unit(DIM, 1.0), 5)
    assert hit.record.text == "new text" and hit.score < -0.99
    assert store.count() == 1
    store.close()


def test_the_flusher_moves_rows_in_one_batch(tmp_path: Path) -> None:
    store = open_store(tmp_path, flush_delay_seconds=0.2, optimize_every=0)
    version = store._table.version
    for i in range(20):
        store.upsert([make_record(f"r{i}", f"note {i}")], random_vectors(1, DIM, i))
    assert wait_until(lambda: not journal_of(store).has_pending())
    assert table_ids(store) == sorted(f"r{i}" for i in range(20))
    assert store._table.version - version < 20  # batched: fewer table commits than upserts
    store.close()


def test_reaching_flush_rows_flushes_without_waiting_for_the_delay(tmp_path: Path) -> None:
    store = open_store(tmp_path, flush_delay_seconds=NEVER, flush_rows=5)
    store.upsert([make_record(f"r{i}", f"note {i}") for i in range(5)], random_vectors(5, DIM))
    assert wait_until(lambda: len(table_ids(store)) == 5)
    store.close()


def test_two_stores_on_one_directory_share_the_journal(tmp_path: Path) -> None:
    first = open_store(tmp_path, flush_delay_seconds=NEVER)
    second = open_store(tmp_path, flush_delay_seconds=NEVER)
    first.upsert([make_record("a", "written by the first", user_id="u")], np.stack([unit(DIM, 1.0)]))
    assert [r.id for r in second.get(["a"])] == ["a"]
    assert [h.record.id for h in second.search_vector(unit(DIM, 1.0), 3)] == ["a"]
    assert second.count(parse_filter({"user_id": "u"})) == 1  # drains the first store's row
    assert table_ids(first) == ["a"]
    assert [r.id for r in first.get(["a"])] == ["a"]
    first.close()
    second.close()


def test_concurrent_writers_and_flushers_on_one_directory_lose_and_double_nothing(tmp_path: Path) -> None:
    stores = [open_store(tmp_path, flush_delay_seconds=0.01, flush_rows=7) for _ in range(2)]

    def write(n: int) -> None:
        store = stores[n % 2]
        for i in range(40):
            store.upsert([make_record(f"w{n}-{i}", f"writer {n} note {i}")], random_vectors(1, DIM, i))
            if i % 10 == 0:
                store.count()  # a read that drains, racing the flushers

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for store in stores:
        store.close()
    reopened = open_store(tmp_path)
    ids = table_ids(reopened)
    assert len(ids) == len(set(ids)) == 160
    assert reopened.count() == 160
    reopened.close()


def _child(data_dir: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        import numpy as np
        from pathlib import Path
        from memorist.plugin.contracts import ProviderContext
        from memorist.testing.vector_store import make_record, random_vectors
        from memorist_lancedb import LanceDBVectorStore
        store = LanceDBVectorStore(
            LanceDBVectorStore.Options(write_behind=True, flush_delay_seconds={NEVER}),
            ProviderContext(data_dir=Path({str(data_dir)!r}), dimension={DIM}),
        )
        """
    ) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=os.environ)


@pytest.mark.process  # another process under test (docs/testing.md#test-tiers)
def test_kill_after_the_journal_write_keeps_every_acknowledged_row(tmp_path: Path) -> None:
    done = _child(
        tmp_path,
        """
        for i in range(30):
            store.upsert([make_record(f"r{i}", f"note {i} about herons")], random_vectors(1, 8, i))
            print(f"r{i}", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    acknowledged = done.stdout.split()
    assert len(acknowledged) == 30
    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    assert table_ids(store) == []  # the killed process never flushed
    assert sorted(r.id for r in store.get(acknowledged)) == sorted(acknowledged)
    assert store.count() == 30
    assert len(store.search_keyword("herons", 100)) == 30
    assert table_ids(store) == sorted(acknowledged)
    store.close()


@pytest.mark.process  # another process under test (docs/testing.md#test-tiers)
def test_kill_between_the_table_write_and_the_journal_delete_writes_each_row_once(tmp_path: Path) -> None:
    done = _child(
        tmp_path,
        """
        store.upsert([make_record(f"r{i}", f"note {i} about herons") for i in range(10)], random_vectors(10, 8))
        merge = store._merge

        def merge_then_die(records, vectors):
            merge(records, vectors)  # the table has the rows; the journal still lists them
            os.kill(os.getpid(), signal.SIGKILL)

        store._behind._write = merge_then_die
        store.count()
        """,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    # The journal still lists the rows the table holds; read from its file, since opening the
    # store starts a flusher that drains a previous process's rows at once.
    with sqlite3.connect(tmp_path / "lancedb" / "memories.journal.sqlite") as journal:
        assert journal.execute("SELECT COUNT(*) FROM pending").fetchone()[0] == 10
    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    assert len(table_ids(store)) == 10
    assert len(store.list(limit=100)) == 10  # overlaid: no row twice
    assert len(store.search_vector(unit(DIM, 1.0), 100)) == 10
    assert store.count() == 10  # drained again: merge by id, still once each
    assert table_ids(store) == sorted(f"r{i}" for i in range(10)) and not journal_of(store).has_pending()
    store.close()


def test_a_failed_flush_leaves_rows_pending_and_readable(tmp_path: Path) -> None:
    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    store.upsert([make_record("a", "note")], random_vectors(1, DIM))
    assert store._behind is not None

    def failing(records: Any, vectors: Any) -> None:
        raise OSError("disk full")

    real = store._behind._write
    store._behind._write = failing
    with pytest.raises(OSError, match="disk full"):  # the read that needed the flush says so
        store.count()
    assert [r.id for r in store.get(["a"])] == ["a"]
    store._behind._write = real
    assert store.count() == 1
    store.close()


def test_reset_forgets_pending_rows(tmp_path: Path) -> None:
    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    store.upsert([make_record("a", "note")], random_vectors(1, DIM))
    store.reset()
    assert store.get(["a"]) == [] and store.count() == 0
    store.close()
    assert os.path.exists(tmp_path / "lancedb" / "memories.journal.sqlite")


def test_a_read_written_without_the_journal_in_mind_drains_it_first(tmp_path: Path) -> None:
    """Any table access through ``_t()`` outside a write or an overlaying read sees every
    acknowledged row (a method added later cannot forget the journal)."""
    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    store.upsert([make_record("a", "note")], random_vectors(1, DIM))
    assert store._t().count_rows() == 1 and not journal_of(store).has_pending()
    store.close()


@pytest.mark.parametrize("behind", [False, True])
def test_many_vector_searches_in_one_query_answer_as_one_search_each(tmp_path: Path, behind: bool) -> None:
    store = open_store(tmp_path, write_behind=behind, flush_delay_seconds=NEVER)
    vectors = random_vectors(40, DIM, 3)
    store.upsert([make_record(f"r{i}", f"note {i}", user_id=f"u{i % 2}") for i in range(30)], vectors[:30])
    store.optimize()  # the first 30 in the table; with write-behind the rest stay pending
    store.upsert([make_record(f"r{i}", f"note {i}", user_id=f"u{i % 2}") for i in range(30, 40)], vectors[30:])
    store.upsert([make_record("r3", "note 3 changed", user_id="u1")], vectors[3:4])  # a pending newer version
    where = parse_filter({"user_id": "u1"})
    queries = random_vectors(6, DIM, 9)
    together = store.search_vectors(queries, 5, where)
    alone = [store.search_vector(q, 5, where) for q in queries]
    assert [[(h.record.id, h.record.text) for h in hits] for hits in together] == [
        [(h.record.id, h.record.text) for h in hits] for hits in alone
    ]
    assert all(
        abs(a.score - b.score) < 1e-5 for x, y in zip(together, alone, strict=True) for a, b in zip(x, y, strict=True)
    )
    store.close()


def test_a_snapshot_overlays_the_journal_without_draining_it(tmp_path: Path) -> None:
    """A scope snapshot (what search's in-memory index loads) sees pending rows, newest
    version first, with their vectors, and leaves them in the journal; rows asked for by id
    that are all pending are answered from the journal alone."""
    from memorist.filters import And, Condition

    store = open_store(tmp_path, flush_delay_seconds=NEVER)
    vectors = random_vectors(4, DIM)
    store.upsert(
        [make_record("a", "old a", user_id="u"), make_record("b", "b", user_id="u"), make_record("z", user_id="x")],
        vectors[:3],
    )
    store.optimize()  # drains: a, b and z are in the table
    store.upsert([make_record("a", "new a", user_id="u"), make_record("c", "c", user_id="u")], vectors[[3, 0]])
    store.upsert([make_record("b", "b moved", user_id="x")], vectors[[1]])  # leaves u's scope
    user_u = parse_filter({"user_id": "u"})
    loaded = store.snapshot(user_u, 10)
    assert loaded is not None
    records, matrix = loaded
    by_id = {r.id: (r, matrix[i]) for i, r in enumerate(records)}
    assert sorted(by_id) == ["a", "c"]
    assert by_id["a"][0].text == "new a"
    np.testing.assert_allclose(by_id["a"][1], vectors[3], atol=1e-6)
    np.testing.assert_allclose(by_id["c"][1], vectors[0], atol=1e-6)
    assert store.snapshot(user_u, 1) is None  # two rows: past the limit
    assert journal_of(store).has_pending() and table_ids(store) == ["a", "b", "z"]
    table_read = store._snapshot
    store._snapshot = lambda *args: pytest.fail("read the table for rows that are all pending")  # type: ignore[method-assign]
    recent = store.snapshot(And((user_u, Condition("id", "in", ("c",)))), 1)
    store._snapshot = table_read  # type: ignore[method-assign]
    assert recent is not None and [r.id for r in recent[0]] == ["c"]
    assert journal_of(store).has_pending()  # still pending: nothing was drained for either read
    store.close()
