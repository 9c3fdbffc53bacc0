"""The LanceDB vector store: the shared contract on real files, plus what is LanceDB-specific
(filter compilation, index freshness and maintenance, options, concurrency)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist.errors import ConfigurationError, DimensionMismatchError, InvalidFilterError
from memorist.filters import Condition, Not, evaluate, parse_filter
from memorist.plugin.contracts import ProviderContext
from memorist.plugin.manager import load_plugins
from memorist.plugin.registry import ProviderRegistry
from memorist.testing.vector_store import (
    FILTER_CASES,
    NASTY_VALUES,
    LoadedStore,
    VectorStoreContract,
    filter_dataset,
    make_record,
    random_vectors,
    unit,
)
from memorist_lancedb import LanceDBVectorStore
from memorist_lancedb.sql import FALSE, TRUE, compile_filter, quote

DIM = VectorStoreContract.dimension


def open_store(data_dir: Path, dimension: int = DIM, **options: Any) -> LanceDBVectorStore:
    """A store writing straight to the table (these tests inspect the table itself), unless
    ``write_behind=True`` is passed."""
    options.setdefault("write_behind", False)
    return LanceDBVectorStore(
        LanceDBVectorStore.Options(**options),
        ProviderContext(data_dir=data_dir, dimension=dimension),
    )


class TestLanceDBContract(VectorStoreContract):
    """The contract writing straight to the table, and through the write-behind journal with a
    flush delay longer than any test (rows stay pending: reads overlay or drain it)."""

    @pytest.fixture(params=["direct", "journal"])
    def make_store(
        self, tmp_path: Path, request: pytest.FixtureRequest
    ) -> Iterator[Callable[[int], LanceDBVectorStore]]:
        opened: list[LanceDBVectorStore] = []
        behind = request.param == "journal"

        def make(dimension: int) -> LanceDBVectorStore:
            store = open_store(tmp_path, dimension, write_behind=behind, flush_delay_seconds=600.0)
            opened.append(store)
            return store

        yield make
        for store in opened:
            store.close()

    @pytest.fixture
    def store(self, make_store: Callable[[int], LanceDBVectorStore]) -> LanceDBVectorStore:
        return make_store(DIM)

    @pytest.fixture(scope="class", params=["direct", "journal"])
    @classmethod
    def filter_dataset_store(
        cls, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
    ) -> Iterator[LoadedStore]:
        """One store of each variant holding the filter dataset, read by every test that only
        reads it (~190 filter and search cases per variant) instead of each opening and
        filling its own; the tests that write keep a fresh ``store``."""
        behind = request.param == "journal"
        store = open_store(tmp_path_factory.mktemp("filters"), DIM, write_behind=behind, flush_delay_seconds=600.0)
        records = filter_dataset()
        vectors = random_vectors(len(records), DIM)
        store.upsert(records, vectors)
        yield LoadedStore(store, records, vectors)
        store.close()


# -- registration and options ---------------------------------------------------------------


def test_plugin_registers_the_store_through_its_entry_point() -> None:
    plugins = load_plugins(environ={"MEMORIST_PLUGINS": "lancedb"})
    registry = ProviderRegistry.from_plugins(plugins)
    assert registry.get("vector_store", "lancedb") is LanceDBVectorStore


def test_default_path_is_under_the_data_dir(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    assert (tmp_path / "lancedb" / "memories.lance").is_dir()
    assert store.describe() == "lancedb"  # /health shows no filesystem paths


def test_path_and_table_options(tmp_path: Path) -> None:
    store = open_store(tmp_path / "unused", path=str(tmp_path / "elsewhere"), table="mem2")
    store.upsert([make_record("a")], random_vectors(1, DIM))
    assert (tmp_path / "elsewhere" / "mem2.lance").is_dir()
    assert not (tmp_path / "unused" / "lancedb" / "mem2.lance").exists()


def test_unknown_option_is_rejected() -> None:
    with pytest.raises(ValueError):
        LanceDBVectorStore.Options.model_validate({"pth": "/tmp/x"})
    with pytest.raises(ValueError):
        LanceDBVectorStore.Options.model_validate({"table": "../escape"})


def test_dimension_is_required(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        LanceDBVectorStore(LanceDBVectorStore.Options(), ProviderContext(data_dir=tmp_path))


def test_dimension_mismatch_message_names_the_path_and_both_sizes(tmp_path: Path) -> None:
    open_store(tmp_path, 384).close()
    with pytest.raises(DimensionMismatchError) as raised:
        open_store(tmp_path, 768)
    assert str(raised.value) == (
        f"vector store at {tmp_path / 'lancedb'} holds 384-dimensional vectors; the configured "
        "embedder produces 768. Use another data directory, or re-embed the store: a new "
        "vector_store.options.table, then `memorist reembed --from-table <this table>`."
    )


def test_search_vector_rejects_a_query_of_another_dimension(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    with pytest.raises(DimensionMismatchError):
        store.search_vector(np.ones(DIM + 1, dtype=np.float32), 3)


def test_closed_store_says_so(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.count()


# -- filter compilation ---------------------------------------------------------------------


def test_scope_date_and_category_filters_compile_exactly() -> None:
    for raw in (
        {"user_id": "alice"},
        {"AND": [{"org_id": "o"}, {"NOT": {"categories": {"in": ["a", "b"]}}}]},
        {"created_at": {"gte": "2024-01-01T00:00:00Z"}, "expires_at": "*"},
        {"OR": [{"run_id": None}, {"speaker": {"contains": "x"}}]},
    ):
        bounds = compile_filter(parse_filter(raw))
        assert bounds.exact, raw
        assert bounds.upper not in (TRUE, FALSE)


def test_metadata_filters_are_relaxed_safely_under_not() -> None:
    positive = compile_filter(parse_filter({"user_id": "alice", "metadata.topic": "tea"}))
    assert not positive.exact
    assert "user_id = 'alice'" in positive.upper and "strpos(metadata" in positive.upper
    assert positive.lower == FALSE
    inner = compile_filter(parse_filter({"metadata.topic": "tea"}))
    negated = compile_filter(parse_filter({"NOT": {"metadata.topic": "tea"}}))
    # The superset of NOT(x) is NOT(subset of x) -- everything here -- never NOT(superset of x);
    # NOT(superset of x) is a valid *subset*: rows that cannot hold topic == "tea".
    assert negated.upper == TRUE
    assert negated.lower == f"(NOT {inner.upper})"


def test_icontains_is_exact_for_ascii_text_only() -> None:
    bounds = compile_filter(parse_filter({"speaker": {"icontains": "Al"}}))
    assert not bounds.exact
    assert "lower(speaker), 'al'" in bounds.lower
    assert "octet_length(speaker) <> character_length(speaker)" in bounds.upper


@pytest.mark.parametrize("value", NASTY_VALUES)
def test_literals_are_quoted(value: str) -> None:
    sql = compile_filter(parse_filter({"user_id": value})).upper
    assert sql == f"(user_id IS NOT NULL AND user_id = {quote(value)})"
    assert quote(value).count("'") == 2 + 2 * value.count("'")


def test_unknown_field_never_reaches_sql() -> None:
    with pytest.raises(InvalidFilterError):
        compile_filter(Not(Condition("user_id = user_id OR 1", "eq", "x")))


@pytest.fixture(scope="module")
def filter_table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoadedStore]:
    """The filter dataset written straight to a table, which the bounds' SQL reads (no test writes)."""
    store = open_store(tmp_path_factory.mktemp("bounds"))
    records = filter_dataset()
    vectors = random_vectors(len(records), DIM)
    store.upsert(records, vectors)
    yield LoadedStore(store, records, vectors)
    store.close()


@pytest.mark.parametrize(("case", "raw"), FILTER_CASES, ids=[c for c, _ in FILTER_CASES])
def test_filter_bounds_bracket_the_reference(filter_table: LoadedStore, case: str, raw: dict[str, Any]) -> None:
    """Each bound, run as SQL on its own, must contain / be contained in the exact answer."""
    from memorist.filters import evaluate

    store, records = filter_table.store, filter_table.records
    assert isinstance(store, LanceDBVectorStore)
    where = parse_filter(raw)
    expected = {r.id for r in records if evaluate(where, r)}
    bounds = compile_filter(where)
    table = store._table

    def ids(sql: str) -> set[str]:
        if sql == FALSE:
            return set()
        query = table.search().select(["id"]).limit(None)
        if sql != TRUE:
            query = query.where(sql)
        return set(query.to_arrow().column("id").to_pylist())

    assert ids(bounds.lower) <= expected <= ids(bounds.upper)
    if bounds.exact:
        assert ids(bounds.upper) == expected


# -- index freshness and maintenance --------------------------------------------------------


def _fts_unindexed(store: LanceDBVectorStore) -> int:
    (fts,) = [i for i in store._table.list_indices() if i.index_type == "FTS"]
    return int(fts.num_unindexed_rows)


def test_keyword_search_covers_rows_the_index_has_not_seen(tmp_path: Path) -> None:
    store = open_store(tmp_path, optimize_every=0)
    store.upsert(
        [make_record(f"old{i}", f"old note {i} about herons") for i in range(5)],
        random_vectors(5, DIM),
    )
    store.optimize()
    assert _fts_unindexed(store) == 0
    store.upsert([make_record("new", "a brand new note about ibises")], random_vectors(1, DIM))
    assert _fts_unindexed(store) == 1
    assert [h.record.id for h in store.search_keyword("ibises", 5)] == ["new"]
    assert len(store.search_keyword("herons", 10)) == 5
    store.optimize()
    assert _fts_unindexed(store) == 0
    assert [h.record.id for h in store.search_keyword("ibises", 5)] == ["new"]


def test_optimize_runs_every_n_writes(tmp_path: Path) -> None:
    store = open_store(tmp_path, optimize_every=3, optimize_idle_seconds=0)
    for i in range(2):
        store.upsert([make_record(f"r{i}", f"note {i}")], random_vectors(1, DIM, i))
    assert _fts_unindexed(store) == 2
    store.delete(["nothing"])  # the third write
    assert _fts_unindexed(store) == 0
    assert store.count() == 2


def test_filter_columns_are_indexed_and_filters_still_exact(tmp_path: Path) -> None:
    store = open_store(tmp_path, optimize_every=0)
    kinds = {tuple(i.columns): i.index_type for i in store._table.list_indices()}
    assert kinds[("id",)] == kinds[("user_id",)] == "BTree"
    assert kinds[("org_id",)] == kinds[("project_id",)] == "Bitmap"
    store.upsert(
        [make_record(f"r{i}", f"note {i}", org_id=f"o{i % 2}", project_id=f"p{i % 3}") for i in range(12)],
        random_vectors(12, DIM),
    )
    store.optimize()
    where = parse_filter({"AND": [{"org_id": "o1"}, {"project_id": "p0"}]})
    assert sorted(h.record.id for h in store.search_vector(unit(DIM, 1.0), 20, where)) == ["r3", "r9"]
    assert store.count(where) == 2
    plain = open_store(tmp_path / "plain", scalar_indexes=False)
    assert [i.index_type for i in plain._table.list_indices()] == ["FTS"]


def _version_count(store: Any) -> int:
    """The table's version count, listed again when the background prune removes a manifest
    between LanceDB's listing and its reading of it (the poll races the prune, not a user read)."""
    for _ in range(20):
        try:
            return len(store._table.list_versions())
        except RuntimeError as exc:
            if "Not found" not in str(exc):
                raise
            time.sleep(0.05)
    return len(store._table.list_versions())


def test_a_write_burst_is_optimized_once_writes_pause(tmp_path: Path) -> None:
    """Rows left over after a burst (fewer than ``optimize_every``) do not stay unindexed."""
    store = open_store(tmp_path, optimize_every=100, optimize_idle_seconds=0.3, keep_versions_seconds=1)
    for i in range(3):
        store.upsert([make_record(f"r{i}", f"note {i} about herons")], random_vectors(1, DIM, i))
    assert _fts_unindexed(store) == 3
    deadline = time.monotonic() + 20
    while _fts_unindexed(store) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _fts_unindexed(store) == 0
    assert store._table.stats()["fragment_stats"]["num_fragments"] == 1  # the 3 one-row files compacted
    assert len(store.search_keyword("herons", 10)) == 3
    # Versions too young to prune at that optimize go in one later pass (reads list them all).
    deadline = time.monotonic() + 20
    while _version_count(store) > 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _version_count(store) == 1
    store.upsert([make_record("r9", "one more")], random_vectors(1, DIM, 9))
    store.close()  # a pending timer does not outlive the store
    assert not store._maintenance.scheduled


def test_changing_fts_options_rebuilds_the_index(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.upsert([make_record("r", "running quickly")], random_vectors(1, DIM))
    assert [h.record.id for h in store.search_keyword("run", 5)] == ["r"]  # stemmed
    store.close()
    unstemmed = open_store(tmp_path, fts_stem=False)
    assert unstemmed.search_keyword("run", 5) == []
    assert [h.record.id for h in unstemmed.search_keyword("running", 5)] == ["r"]


@pytest.mark.parametrize("kind", ["ivf_pq", "ivf_hnsw_sq"])
def test_optional_vector_index_keeps_exact_scores(tmp_path: Path, kind: str) -> None:
    dim = 32
    store = open_store(tmp_path, dim, vector_index=kind, vector_index_min_rows=1000, optimize_every=0)
    vectors = random_vectors(1200, dim, seed=3)
    store.upsert([make_record(f"r{i:04d}", user_id=f"u{i % 4}") for i in range(1200)], vectors)
    store.optimize()
    assert any(i.columns == ["vector"] for i in store._table.list_indices())
    query = vectors[10]
    hits = store.search_vector(query, 3)
    assert hits[0].record.id == "r0010"
    # Approximate recall, but every reported score is the exact cosine of its record.
    exact = [float(vectors[int(h.record.id[1:])] @ query) for h in hits]
    assert [h.score for h in hits] == pytest.approx(exact, abs=1e-4)
    assert exact == sorted(exact, reverse=True)
    filtered = store.search_vector(query, 3, parse_filter({"user_id": "u2"}))
    assert filtered[0].record.id == "r0010" and all(h.record.user_id == "u2" for h in filtered)


def test_zero_query_vector_does_not_raise(tmp_path: Path) -> None:
    # Cosine is undefined for a zero vector; LanceDB drops the NaN distances.
    store = open_store(tmp_path)
    store.upsert([make_record("a")], np.stack([unit(DIM, 1)]))
    hits = store.search_vector(np.zeros(DIM, dtype=np.float32), 1)
    assert all(-1.0 <= h.score <= 1.0 for h in hits)


# -- concurrency ----------------------------------------------------------------------------


def test_threads_share_one_store(tmp_path: Path) -> None:
    store = open_store(tmp_path, optimize_every=10)
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for batch in range(15):
                ids = [f"w{worker}-{batch}-{j}" for j in range(4)]
                store.upsert(
                    [make_record(i, f"thread {worker} wrote kiwi {i}", user_id=f"u{worker}") for i in ids],
                    random_vectors(4, DIM, worker * 100 + batch),
                )
                store.search_vector(random_vectors(1, DIM, batch)[0], 5, parse_filter({"user_id": f"u{worker}"}))
                assert store.search_keyword("kiwi", 3)
                store.list(parse_filter({"user_id": f"u{worker}"}), limit=5)
                store.delete([ids[0]])
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count() == 4 * 15 * 3
    for w in range(4):
        assert store.count(parse_filter({"user_id": f"u{w}"})) == 45


def test_a_second_connection_sees_commits_immediately(tmp_path: Path) -> None:
    writer = open_store(tmp_path)
    reader = open_store(tmp_path)
    assert reader.count() == 0
    writer.upsert([make_record("a", "otters hold hands")], random_vectors(1, DIM))
    assert reader.count() == 1
    assert [h.record.id for h in reader.search_keyword("otters", 3)] == ["a"]
    writer.delete(["a"])
    assert reader.get(["a"]) == []


_WORKER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from memorist.testing.vector_store import make_record, random_vectors
    from memorist.plugin.contracts import ProviderContext
    from memorist_lancedb import LanceDBVectorStore

    worker = int(sys.argv[1])
    store = LanceDBVectorStore(
        LanceDBVectorStore.Options(optimize_every=7),
        ProviderContext(data_dir=Path({path!r}), dimension={dim}),
    )
    for batch in range(12):
        ids = [f"p{{worker}}-{{batch}}-{{j}}" for j in range(5)]
        store.upsert([make_record(i, user_id=f"p{{worker}}") for i in ids],
                     random_vectors(5, {dim}, worker * 1000 + batch))
        assert store.delete([ids[0]]) == 1
        store.count()
    store.close()
    """
)


@pytest.mark.process  # another process under test (docs/testing.md#test-tiers)
def test_processes_share_one_directory(tmp_path: Path) -> None:
    open_store(tmp_path).close()  # create the table once, as startup would
    script = _WORKER.format(root=str(Path(__file__).resolve().parents[2]), path=str(tmp_path), dim=DIM)
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(w)], stderr=subprocess.PIPE, text=True) for w in range(3)
    ]
    failures = [p.stderr.read() for p in procs if p.wait(timeout=120) != 0]  # type: ignore[union-attr]
    assert failures == []
    store = open_store(tmp_path)
    assert store.count() == 3 * 12 * 4
    assert store.count(parse_filter({"user_id": "p1"})) == 48


def test_importing_the_plugin_does_not_start_lancedb() -> None:
    """The gunicorn master loads every plugin, then forks: no lancedb threads before that."""
    code = "import sys, memorist_lancedb; sys.exit('lancedb' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


OPEN_WRITE_SEARCH_THEN_ASK_FOR_THE_REST_CLIENT = """
import sys
from pathlib import Path
import numpy as np
from memorist.plugin_api import ProviderContext
from memorist.testing.vector_store import make_record
from memorist_lancedb import LanceDBVectorStore

store = LanceDBVectorStore(LanceDBVectorStore.Options(), ProviderContext(data_dir=Path(sys.argv[1]), dimension=4))
store.upsert([make_record("a", "Ada lives in Lisbon", user_id="u")], np.eye(1, 4, dtype="float32"))
assert [h.record.id for h in store.search_vector(np.eye(1, 4, dtype="float32")[0], 5, None)] == ["a"]
assert [h.record.id for h in store.search_keyword("Lisbon", 5, None)] == ["a"]
store.close()
loaded = sorted(m for m in sys.modules if m.startswith("lance_namespace_urllib3_client.api"))
assert not loaded, loaded
from lance_namespace_urllib3_client import ApiClient, TableApi  # whoever needs the client still gets it
import lance_namespace_urllib3_client as client
assert TableApi.__module__ == "lance_namespace_urllib3_client.api.table_api" and client.ApiClient is ApiClient
"""


def test_opening_the_store_leaves_lancedbs_rest_client_unloaded_until_asked_for(tmp_path: Path) -> None:
    """The REST namespace client LanceDB imports eagerly (half of ``import lancedb``) waits for a user."""
    done = subprocess.run(
        [sys.executable, "-c", OPEN_WRITE_SEARCH_THEN_ASK_FOR_THE_REST_CLIENT, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_one_batch_naming_an_id_twice_keeps_the_last(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.upsert([make_record("a", "first"), make_record("a", "second")], random_vectors(2, DIM))
    assert [r.text for r in store.get(["a"])] == ["second"]


def test_commit_conflicts_are_retried_other_errors_are_not() -> None:
    from memorist_lancedb.table import retry

    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise RuntimeError("lance error: Retryable commit conflict for version 7")
        return "done"

    assert retry(flaky, retries=5) == "done" and len(calls) == 3
    calls.clear()
    with pytest.raises(RuntimeError):
        retry(flaky, retries=1)

    def broken() -> None:
        calls.append(1)
        raise ValueError("Schema Error: no such column")

    calls.clear()
    with pytest.raises(ValueError):
        retry(broken, retries=5)
    assert len(calls) == 1


def test_maintenance_losing_a_commit_race_logs_one_line_other_failures_a_traceback(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """Every worker of a server runs its own maintenance; two optimizing at once is expected,
    and a traceback in the server's log for it read as an unhandled error."""
    from memorist_lancedb.maintenance import TableMaintenance
    from memorist_lancedb.options import LanceDBVectorStoreOptions
    from memorist_lancedb.read_guard import ReadGuard

    failure: list[Exception] = []

    class Table:
        def optimize(self, **_: Any) -> None:
            raise failure[0]

        def list_versions(self) -> list[dict[str, Any]]:
            return []

    options = LanceDBVectorStoreOptions(vector_index="none")
    maintenance = TableMaintenance(options, threading.Lock(), Table, ReadGuard(tmp_path / "reads"), tmp_path)
    conflict = "lance error: Retryable commit conflict for version 11: preempted by concurrent transaction CreateIndex"
    pruned = "lance error: Not found: /db/t.lance/_versions/18446744073709551611.manifest, manifest.rs:52"
    for error, with_traceback in (
        (RuntimeError(conflict), False),
        (RuntimeError(pruned), False),
        (OSError("disk full"), True),
        (RuntimeError("lance error: Not found: /data/lancedb/memories.lance/data/x.lance"), True),
    ):
        failure[:] = [error]
        caplog.clear()
        with caplog.at_level("INFO", logger="memorist_lancedb"):
            maintenance.optimize()  # the optimize, then its prune: both fail
            maintenance._prune_versions(Table())
        assert [r.exc_info is not None for r in caplog.records] == [with_traceback] * 3, caplog.text


def test_maintenance_waits_while_another_process_maintains_the_table(tmp_path: Path) -> None:
    """Every worker runs its own maintenance over one table: while another holds the table
    directory's lock, a pass touches nothing and comes back after the next idle period; once
    the lock is free the pass runs. (A flock held through another open description conflicts
    as another process's would.)"""
    import fcntl

    from memorist_lancedb.maintenance import TableMaintenance
    from memorist_lancedb.options import LanceDBVectorStoreOptions
    from memorist_lancedb.read_guard import ReadGuard

    calls: list[str] = []

    class Table:
        def optimize(self, **_: Any) -> None:
            calls.append("optimize")

        def list_versions(self) -> list[dict[str, Any]]:
            calls.append("list_versions")
            return []

    options = LanceDBVectorStoreOptions(vector_index="none", optimize_every=2, optimize_idle_seconds=30)
    maintenance = TableMaintenance(options, threading.Lock(), Table, ReadGuard(tmp_path / "reads"), tmp_path)
    other = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        maintenance.optimize()
        assert calls == [] and maintenance.scheduled
        with maintenance._lock:
            maintenance.cancel()
    finally:
        os.close(other)
    maintenance.optimize()
    assert calls == ["optimize", "list_versions", "optimize"]


# -- search strategy: postfilter, lean matches, exact mode ------------------------------------


def _scoped(user: str, now: datetime) -> Any:
    """What search filters by: tenant, one user, not expired."""
    from memorist.engine.scope import not_expired, tenant
    from memorist.filters import conjoin

    return conjoin(tenant("default", "default"), parse_filter({"user_id": user}), not_expired(now))


def test_a_filter_keeping_most_rows_is_applied_after_the_search_with_the_same_results(tmp_path: Path) -> None:
    dim = 16
    now = datetime.now(UTC)
    vectors = random_vectors(400, dim, seed=11)
    # "big" owns 90% of the rows, and a third of its rows have expired (the filter drops them
    # after a postfilter search, so some queries need the prefilter retry); "small" owns 10%.
    records = [
        make_record(
            f"r{i:03d}",
            f"note {i} about {'tea' if i % 3 else 'coffee'}",
            user_id="small" if i % 10 == 0 else "big",
            expires_at=now - timedelta(days=1) if i % 10 and i % 3 == 0 else None,
        )
        for i in range(400)
    ]
    planned = open_store(tmp_path / "planned", dim, optimize_every=0)
    always_before = open_store(tmp_path / "before", dim, optimize_every=0, postfilter_min_fraction=2.0)
    for store in (planned, always_before):
        store.upsert(records, vectors)
    big, small = _scoped("big", now), _scoped("small", now)
    assert planned._planner.postfilter_limit(planned._t(), big, 10) is not None
    assert planned._planner.postfilter_limit(planned._t(), small, 10) is None
    assert always_before._planner.postfilter_limit(always_before._t(), big, 10) is None
    for where in (big, small):
        for i in range(0, 400, 37):
            for k in (1, 10, 60):
                expected = always_before.match_vector(vectors[i], k, where)
                got = planned.match_vector(vectors[i], k, where)
                assert [m.id for m in got] == [m.id for m in expected]
                assert all(evaluate(where, r) for r in planned.fetch(got).values())
                assert [h.record.id for h in planned.search_vector(vectors[i], k, where)] == [m.id for m in expected]
            assert [m.id for m in planned.match_keyword("coffee note", 30, where)] == [
                m.id for m in always_before.match_keyword("coffee note", 30, where)
            ]


def test_a_stale_fraction_costs_a_retry_not_a_wrong_answer(tmp_path: Path) -> None:
    dim = 16
    now = datetime.now(UTC)
    store = open_store(tmp_path, dim, optimize_every=0)
    store.upsert([make_record(f"a{i:03d}", user_id="alice") for i in range(50)], random_vectors(50, dim, seed=1))
    alice = _scoped("alice", now)
    assert store._planner.postfilter_limit(store._t(), alice, 10) is not None  # alice is the whole table
    # Bob's rows now outnumber alice's 20 to 1, and are nearer the query; the cached fraction still says 1.0.
    query = unit(dim, 1)
    bob_vectors = np.stack([unit(dim, 1, 0.001 * i) for i in range(1000)])
    store.upsert([make_record(f"b{i:04d}", user_id="bob") for i in range(1000)], bob_vectors)
    assert store._planner.postfilter_limit(store._t(), alice, 10) is not None
    hits = store.match_vector(query, 10, alice)
    assert len(hits) == 10 and all(m.id.startswith("a") for m in hits)


def test_fetch_finds_records_whose_rows_moved_since_the_search(tmp_path: Path) -> None:
    store = open_store(tmp_path, optimize_every=0)
    vectors = random_vectors(60, DIM, seed=5)
    records = [make_record(f"m{i:02d}", user_id="u") for i in range(60)]
    for start in range(0, 60, 10):  # six fragments
        store.upsert(records[start : start + 10], vectors[start : start + 10])
    matches = store.match_vector(vectors[25], 20)
    assert all(m.record is None and m.handle is not None for m in matches)
    by_id = {r.id: r for r in records}
    # An update rewrites its row elsewhere (the old address now holds nothing), a delete
    # empties one; the rest come back by address, in the address order of the table.
    changed = make_record(matches[0].id, "changed since the search", user_id="u")
    store.upsert([changed], vectors[int(changed.id[1:]) : int(changed.id[1:]) + 1])
    store.delete([matches[1].id])
    by_id[changed.id] = changed
    assert store.fetch(matches) == {m.id: by_id[m.id] for m in matches[2:]} | {changed.id: changed}
    store.delete(["m00", "m11", "m33"])
    store.optimize()  # compaction rewrites the fragments: no old row address is valid now
    gone = {matches[1].id, "m00", "m11", "m33"}
    assert store.fetch(matches) == {m.id: by_id[m.id] for m in matches if m.id not in gone}


def test_exact_mode_ignores_an_index_built_earlier(tmp_path: Path) -> None:
    dim = 32
    indexed = open_store(tmp_path, dim, vector_index="ivf_hnsw_sq", vector_index_min_rows=1000, optimize_every=0)
    vectors = random_vectors(1200, dim, seed=3)
    indexed.upsert([make_record(f"r{i:04d}") for i in range(1200)], vectors)
    indexed.optimize()
    ann_plan = indexed._vector_query(vectors[0])(["id"], 10).limit(10).explain_plan()
    indexed.close()
    exact = open_store(tmp_path, dim, optimize_every=0)
    exact_plan = exact._vector_query(vectors[0])(["id"], 10).limit(10).explain_plan()
    assert "ANNSubIndex" in ann_plan and "ANNSubIndex" not in exact_plan and "KNNVectorDistance" in exact_plan
    for query in vectors[:50:7] + 0.3 * random_vectors(8, dim, seed=9):
        truth = np.argsort(-(vectors @ query / np.linalg.norm(query)), kind="stable")[:10]
        assert [h.record.id for h in exact.search_vector(query, 10)] == [f"r{i:04d}" for i in truth]


def test_reads_use_the_packed_column_which_agrees_with_the_field_columns(tmp_path: Path) -> None:
    from memorist_lancedb.schema import PACKED, RECORD_COLUMNS, from_arrow

    store = open_store(tmp_path)
    records = filter_dataset()
    store.upsert(records, random_vectors(len(records), DIM))
    assert store._columns == ["id", PACKED]
    by_columns = from_arrow(store._t().search().select(RECORD_COLUMNS).limit(None).to_arrow())
    by_packed = from_arrow(store._t().search().select([PACKED]).limit(None).to_arrow())
    assert (
        sorted(by_columns, key=lambda r: r.id)
        == sorted(by_packed, key=lambda r: r.id)
        == sorted(records, key=lambda r: r.id)
    )


def test_a_table_from_before_the_packed_column_is_read_column_by_column(tmp_path: Path) -> None:
    import lancedb
    from memorist_lancedb.schema import PACKED, table_schema

    db = lancedb.connect(str(tmp_path / "lancedb"))
    db.create_table("memories", schema=table_schema(DIM, packed=False))
    store = open_store(tmp_path)
    assert PACKED not in store._t().schema.names and PACKED not in store._columns
    records = filter_dataset()
    vectors = random_vectors(len(records), DIM)
    store.upsert(records, vectors)
    by_id = {r.id: r for r in records}
    assert {r.id: r for r in store.get(list(by_id))} == by_id
    assert {r.id for r in store.list(limit=100)} == set(by_id)
    (hit,) = store.search_vector(vectors[0], 1)
    assert hit.record == records[0]
    matches = store.match_keyword("tea", 5)
    assert store.fetch(matches) == {m.id: by_id[m.id] for m in matches}


def test_opening_prewarms_every_index_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lancedb.table import LanceTable

    first = open_store(tmp_path, optimize_every=0)
    first.upsert([make_record(f"r{i}") for i in range(5)], random_vectors(5, DIM))
    first.close()
    warmed: list[str] = []
    done = threading.Event()
    original = LanceTable.prewarm_index

    def spy(self: Any, name: str) -> None:
        warmed.append(name)
        original(self, name)
        if len(warmed) == len(self.list_indices()):
            done.set()

    monkeypatch.setattr(LanceTable, "prewarm_index", spy)
    store = open_store(tmp_path, optimize_every=0)
    assert done.wait(10)
    assert {"text_idx", "id_idx", "user_id_idx"} <= set(warmed)
    assert [h.record.id for h in store.search_keyword("memory r3", 1)] == ["r3"]
    store.close()
    warmed.clear()
    unwarmed = open_store(tmp_path, optimize_every=0, prewarm_indexes=False)
    time.sleep(0.3)
    assert warmed == [] and unwarmed.count() == 5


def test_a_scope_scan_crosses_to_lancedbs_event_loop_once_and_reads_what_the_builder_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope's first search scans its rows; the synchronous query builder would cross to
    LanceDB's event-loop thread six times for it, the store's scan once."""
    from lancedb.background_loop import LOOP
    from memorist_lancedb.queries import scan

    store = open_store(tmp_path)
    records = [make_record(f"m{i}", f"memory number {i}", user_id="u1" if i % 3 else "u2") for i in range(30)]
    store.upsert(records, random_vectors(30, DIM, seed=7))
    crossings = 0
    run = LOOP.run
    caller = threading.get_ident()

    def counted(coroutine: Any) -> Any:
        nonlocal crossings
        # This thread's crossings only: the store's background work (index prewarming,
        # maintenance) may cross to the same loop meanwhile.
        crossings += threading.get_ident() == caller
        return run(coroutine)

    monkeypatch.setattr(LOOP, "run", counted)
    loaded = store.snapshot(parse_filter({"user_id": "u1"}), 100)
    assert crossings == 1
    assert loaded is not None and sorted(r.id for r in loaded[0]) == sorted(r.id for r in records if r.user_id == "u1")
    monkeypatch.setattr(LOOP, "run", run)

    table = store._t()
    for where, limit in (("user_id = 'u2'", None), ("user_id = 'u1'", 5), (None, None)):
        builder = table.search().select(["id", "text"]).limit(limit)
        expected = (builder.where(where) if where else builder).to_arrow()
        got = scan(table, ["id", "text"], where, limit)
        assert got.schema == expected.schema and got.num_rows == expected.num_rows
        if limit is None:
            assert sorted(got.column("id").to_pylist()) == sorted(expected.column("id").to_pylist())
    store.close()
