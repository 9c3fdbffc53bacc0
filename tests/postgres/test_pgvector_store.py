"""The pgvector store: the shared contract on a real PostgreSQL 18, plus what is
PostgreSQL-specific (filter compilation, options, indexes, keyword scoring, concurrency)."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist.errors import ConfigurationError, DimensionMismatchError, InvalidFilterError
from memorist.filters import Condition, Not, evaluate, parse_filter
from memorist.plugin.contracts import ProviderContext
from memorist.plugin.manager import load_plugins
from memorist.plugin.registry import ProviderRegistry
from memorist.testing.pg import database_name, libpq_url
from memorist.testing.vector_store import (
    FILTER_CASES,
    NASTY_VALUES,
    VectorStoreContract,
    filter_dataset,
    make_record,
    random_vectors,
    unit,
)
from memorist_pgvector import PgVectorStore
from memorist_pgvector.sql import FALSE, TRUE, compile_filter

DIM = VectorStoreContract.dimension
ROOT = Path(__file__).resolve().parents[2]


def open_store(url: str, dimension: int = DIM, **options: Any) -> PgVectorStore:
    return PgVectorStore(
        PgVectorStore.Options(url=url, **options),
        ProviderContext(data_dir=Path("/nonexistent"), dimension=dimension),
    )


@pytest.fixture
def table() -> str:
    """A table name no other test uses: each test gets a fresh, empty store."""
    return f"t_{uuid.uuid4().hex[:16]}"


@pytest.fixture
def opened(pg_module_url: str, table: str) -> Iterator[Callable[..., PgVectorStore]]:
    """``open(dimension=DIM, **options)`` on this test's table; closes and drops afterwards."""
    stores: list[PgVectorStore] = []

    def open_(dimension: int = DIM, **options: Any) -> PgVectorStore:
        options.setdefault("table", table)
        store = open_store(pg_module_url, dimension, **options)
        stores.append(store)
        return store

    yield open_
    for store in stores:
        store.close()
    import psycopg  # only once a server exists, so a machine without the extra skips, not errors

    with psycopg.connect(libpq_url(pg_module_url), autocommit=True) as conn:
        conn.execute(f'DROP TABLE IF EXISTS "{table}"')


def query(store: PgVectorStore, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` run on the store's own connection pool."""

    def work(cur: Any) -> list[tuple[Any, ...]]:
        cur.execute(sql, params)
        return list(cur.fetchall())

    return store._run(work)


class TestPgVectorContract(VectorStoreContract):
    @pytest.fixture
    def make_store(self, opened: Callable[..., PgVectorStore]) -> Callable[[int], PgVectorStore]:
        return lambda dimension: opened(dimension)

    @pytest.fixture
    def store(self, make_store: Callable[[int], PgVectorStore]) -> PgVectorStore:
        return make_store(DIM)


# -- registration, options, URL --------------------------------------------------------------


def test_plugin_registers_the_store_through_its_entry_point() -> None:
    plugins = load_plugins(environ={"MEMORIST_PLUGINS": "pgvector"})
    registry = ProviderRegistry.from_plugins(plugins)
    assert registry.get("vector_store", "pgvector") is PgVectorStore


def test_importing_the_plugin_does_not_import_psycopg() -> None:
    """The plugin loads (and lists its provider) where the postgres extra is not installed."""
    code = "import sys, memorist_pgvector; sys.exit('psycopg' in sys.modules or 'pgvector' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_unknown_and_invalid_options_are_rejected() -> None:
    with pytest.raises(ValueError):
        PgVectorStore.Options.model_validate({"tabel": "x"})
    for bad in ({"table": "x; DROP TABLE y"}, {"table": "a" * 41}, {"text_search_config": "eng'lish"}):
        with pytest.raises(ValueError):
            PgVectorStore.Options.model_validate(bad)
    with pytest.raises(ValueError, match="twice"):
        PgVectorStore.Options.model_validate({"hnsw_m": 32, "hnsw_ef_construction": 40})


def test_dimension_is_required(pg_module_url: str) -> None:
    with pytest.raises(ConfigurationError):
        PgVectorStore(PgVectorStore.Options(url=pg_module_url), ProviderContext(data_dir=Path(".")))


def test_url_comes_from_option_then_the_kernel_context_never_the_environment(
    pg_module_url: str, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel hands the settled ``database.url`` over; the environment behind the settings is not read."""
    options = PgVectorStore.Options(table=table)
    bare = ProviderContext(data_dir=Path("."), dimension=DIM)
    monkeypatch.setenv("MEMORIST_DATABASE__URL", pg_module_url)
    with pytest.raises(ConfigurationError, match="database.url"):
        PgVectorStore(options, bare)
    via_context = ProviderContext(data_dir=Path("."), dimension=DIM, database_url=pg_module_url)
    store = PgVectorStore(options, via_context)
    assert store.describe() == "pgvector"  # /health shows no URL
    store.close()
    PgVectorStore(PgVectorStore.Options(table=table, url=pg_module_url), bare).close()


def test_non_postgres_urls_are_refused_without_echoing_passwords(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="needs a PostgreSQL database URL"):
        open_store(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(ConfigurationError) as raised:
        open_store("mysql://user:s3cret@host/db")
    assert "s3cret" not in str(raised.value)


def test_dimension_mismatch_message_names_the_table_and_both_sizes(
    opened: Callable[..., PgVectorStore], table: str, pg_module_url: str
) -> None:
    opened(384).close()
    with pytest.raises(DimensionMismatchError) as raised:
        opened(768)
    database = database_name(pg_module_url)
    assert str(raised.value) == (
        f"vector store table '{table}' in database '{database}' holds 384-dimensional vectors; "
        "the configured embedder produces 768. Use another table, or re-embed the store: a new "
        "vector_store.options.table, then `memorist reembed --from-table <this table>`."
    )


def test_search_vector_rejects_a_query_of_another_dimension(opened: Callable[..., PgVectorStore]) -> None:
    with pytest.raises(DimensionMismatchError):
        opened().search_vector(np.ones(DIM + 1, dtype=np.float32), 3)


def test_closed_store_says_so(opened: Callable[..., PgVectorStore]) -> None:
    store = opened()
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.count()


# -- filter compilation ---------------------------------------------------------------------


def test_most_filters_compile_exactly() -> None:
    for raw in (
        {"user_id": "alice"},
        {"AND": [{"org_id": "o"}, {"NOT": {"categories": {"in": ["a", "b"]}}}]},
        {"created_at": {"gte": "2024-01-01T00:00:00Z"}, "expires_at": "*"},
        {"OR": [{"run_id": None}, {"speaker": {"icontains": "ß"}}]},
        {"metadata.topic": {"in": ["a", 1, True, None]}, "metadata.n": {"gt": 2.5}},
        {"NOT": {"metadata.tags": {"ne": "x"}}},
    ):
        bounds = compile_filter(parse_filter(raw))
        assert bounds.exact, raw
        assert bounds.upper not in (TRUE, FALSE)


def test_only_dict_values_and_old_servers_leave_work_to_evaluate() -> None:
    contains = compile_filter(parse_filter({"metadata.note": {"contains": "x"}}))
    assert not contains.exact and "'object' THEN TRUE" in contains.upper.text
    old = compile_filter(parse_filter({"speaker": {"icontains": "al"}}), casefold=False)
    assert not old.exact and "octet_length(speaker) <> char_length(speaker)" in old.upper.text
    negated = compile_filter(parse_filter({"NOT": {"metadata.note": {"contains": "x"}}}))
    assert negated.upper.text == f"(NOT {contains.lower.text})"


@pytest.mark.parametrize("value", NASTY_VALUES)
def test_values_travel_as_parameters_only(value: str) -> None:
    for raw in ({"user_id": value}, {"metadata.v": {"contains": value}}, {"categories": {"in": [value]}}):
        sql = compile_filter(parse_filter(raw)).upper
        flat = [x for p in sql.params for x in (p if isinstance(p, list) else [p])]
        assert value in flat
        assert value not in sql.text or value in ("%", "_")  # those two are in "%s" and names


def test_metadata_keys_are_parameters_too() -> None:
    sql = compile_filter(parse_filter({"metadata.a'b\"c": "x"})).upper
    assert "a'b" not in sql.text and "a'b\"c" in sql.params


def test_unknown_field_never_reaches_sql() -> None:
    with pytest.raises(InvalidFilterError):
        compile_filter(Not(Condition("user_id = user_id OR 1", "eq", "x")))


@pytest.mark.parametrize(("case", "raw"), FILTER_CASES, ids=[c for c, _ in FILTER_CASES])
def test_filter_bounds_bracket_the_reference(
    opened: Callable[..., PgVectorStore], table: str, case: str, raw: dict[str, Any]
) -> None:
    """Each bound, run as SQL on its own, must contain / be contained in the exact answer."""
    store = opened()
    records = filter_dataset()
    store.upsert(records, random_vectors(len(records), DIM))
    where = parse_filter(raw)
    expected = {r.id for r in records if evaluate(where, r)}
    for casefold in (True, False):
        bounds = compile_filter(where, casefold=casefold)

        def ids(sql: Any) -> set[str]:
            return {r[0] for r in query(store, f'SELECT id FROM "{table}" WHERE {sql.text}', sql.params)}

        assert ids(bounds.lower) <= expected <= ids(bounds.upper)
        if bounds.exact:
            assert ids(bounds.upper) == expected


@pytest.mark.parametrize(("case", "raw"), FILTER_CASES, ids=[c for c, _ in FILTER_CASES])
def test_servers_without_casefold_still_match_the_reference(
    opened: Callable[..., PgVectorStore], case: str, raw: dict[str, Any]
) -> None:
    """PostgreSQL < 18 has no casefold(): icontains on non-ASCII text falls back to evaluate."""
    store = opened()
    store._casefold = False
    records = filter_dataset()
    vectors = random_vectors(len(records), DIM)
    store.upsert(records, vectors)
    where = parse_filter(raw)
    expected = {r.id for r in records if evaluate(where, r)}
    assert store.count(where) == len(expected)
    assert {h.record.id for h in store.search_vector(vectors[0], len(records), where)} == expected


# -- metadata semantics: a randomized comparison with evaluate -------------------------------

_STRINGS = ["tea", "Tea", "STRAßE", "straße", "o'x", "", "10", "1.5", "True", "a_b", "%", "x\\y"]
_NUMBERS: list[Any] = [-3, 0, 1, 2, 10, 2**40, 0.5, 1.0, 2.5, -0.25, 1e-05, 0.0001, 1e20, 123.456]
_SCALARS: list[Any] = [*_STRINGS, *_NUMBERS, True, False, None]
_KEYS = ["a", "b", "c"]


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth < 2 and kind < 0.2:
        return [_random_json(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2 and kind < 0.3:
        return {rng.choice(_KEYS): _random_json(rng, depth + 1) for _ in range(rng.randint(0, 2))}
    return rng.choice(_SCALARS)


def _random_condition(rng: random.Random) -> dict[str, Any]:
    field = rng.choice(
        ["metadata.a", "metadata.b", "metadata.c", "metadata.a.b", "categories", "speaker", "created_at"]
    )
    op = rng.choice(["eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains", "exists"])
    if op == "exists":
        return {field: "*"}
    if op in ("contains", "icontains"):
        values: list[Any] = [s for s in _SCALARS if isinstance(s, str | int | float)]
        if field == "created_at":
            values = ["2024-03-01T12:10:00.123456Z", "2024-03-01T12:00:00.123456", 5, 12.5]
    elif field == "created_at":
        values = ["2024-03-01T12:10:00.123456Z", "2024-03-01T12:10:00Z", 5, None, "2024-03-01"]
    else:
        values = _SCALARS
    if op in ("in", "nin"):
        return {field: {op: rng.sample(values, rng.randint(1, 3))}}
    return {field: {op: rng.choice(values)}}


def _random_filter(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    roll = rng.random()
    if depth < 2 and roll < 0.15:
        return {"NOT": _random_filter(rng, depth + 1)}
    if depth < 2 and roll < 0.3:
        return {rng.choice(["AND", "OR"]): [_random_filter(rng, depth + 1) for _ in range(2)]}
    return _random_condition(rng)


def test_random_filters_match_evaluate_on_the_stored_records(opened: Callable[..., PgVectorStore]) -> None:
    rng = random.Random(20240301)
    store = opened()
    records = [
        make_record(
            f"r{i:02d}",
            minutes=i % 7,
            speaker=rng.choice([None, *(_STRINGS)]),
            categories=rng.sample(["food", "Food", "straße", "a_b", "10", "tea"], rng.randint(0, 3)),
            metadata={k: _random_json(rng) for k in _KEYS if rng.random() < 0.7},
        )
        for i in range(48)
    ]
    store.upsert(records, random_vectors(len(records), DIM))
    stored = store.get([r.id for r in records])  # the reference runs on what the store holds
    checked = 0
    for _ in range(250):
        raw = _random_filter(rng)
        where = parse_filter(raw)
        expected = [r for r in stored if evaluate(where, r)]
        got = store.list(where, limit=1000)
        assert {r.id for r in got} == {r.id for r in expected}, raw
        assert store.count(where) == len(expected), raw
        checked += 0 < len(expected) < len(stored)
    assert checked > 100  # most filters were selective, so the comparison meant something


@pytest.mark.parametrize(
    ("metadata", "raw", "matches"),
    [
        ({"x": [["tea"]]}, {"metadata.x": "tea"}, True),  # lists nest: any element, recursively
        ({"x": [[]]}, {"metadata.x": {"ne": "tea"}}, True),
        ({"x": []}, {"metadata.x": "*"}, False),
        ({"x": [None]}, {"metadata.x": None}, True),
        ({"x": {"y": 1}}, {"metadata.x": {"ne": 1}}, True),
        ({"x": ["a", {"y": 1}]}, {"metadata.x.y": 1}, False),  # no path through a list
        ({"x": True}, {"metadata.x": 1}, True),  # True == 1 in Python
        ({"x": False}, {"metadata.x": {"lt": 0.5}}, True),
        ({"x": 1.0}, {"metadata.x": {"in": [1]}}, True),
        ({"x": "5"}, {"metadata.x": {"gt": 4}}, False),  # str vs int: TypeError, no match
        ({"x": 1e-05}, {"metadata.x": {"contains": "e-05"}}, True),
        ({"x": 2.5}, {"metadata.x": {"contains": "2.5"}}, True),
        ({"x": True}, {"metadata.x": {"icontains": "TRUE"}}, True),
        ({"x": {"k": "v"}}, {"metadata.x": {"contains": "'k': 'v'"}}, True),  # repr of a dict
        ({"x": "abc"}, {"metadata.x": {"lt": "abc\x00"}}, True),
        ({"x": "abc"}, {"metadata.x": {"contains": "b\x00"}}, False),
        ({"x\x00": 1}, {"metadata.x\x00": 1}, None),  # jsonb refuses NUL in keys; see below
    ],
)
def test_metadata_corner_cases(
    opened: Callable[..., PgVectorStore], metadata: dict[str, Any], raw: dict[str, Any], matches: bool | None
) -> None:
    store = opened()
    if matches is None:
        assert store.count(parse_filter(raw)) == 0
        return
    store.upsert([make_record("m", metadata=metadata), make_record("other")], random_vectors(2, DIM))
    where = parse_filter(raw)
    (record,) = store.get(["m"])
    assert evaluate(where, record) is matches
    assert ("m" in {r.id for r in store.list(where)}) is matches
    assert store.count(where) == int(matches) + int(evaluate(where, store.get(["other"])[0]))


def test_nul_characters_never_reach_the_server(opened: Callable[..., PgVectorStore]) -> None:
    store = opened()
    store.upsert([make_record("a", user_id="alice")], random_vectors(1, DIM))
    assert store.count(parse_filter({"user_id": "ali\x00ce"})) == 0
    assert store.count(parse_filter({"user_id": {"gt": "alice\x00"}})) == 0
    assert store.count(parse_filter({"user_id": {"lt": "alice\x00"}})) == 1
    assert store.count(parse_filter({"user_id": {"in": ["x\x00", "alice"]}})) == 1
    assert store.get(["a\x00"]) == [] and store.delete(["a\x00"]) == 0


# -- keyword search -------------------------------------------------------------------------


def _keyword_corpus() -> list[Any]:
    fillers = [make_record(f"f{i}", f"a common note number {i} about common things") for i in range(8)]
    return [
        make_record("rare", "the zeppelin word"),
        make_record("common", "the common word"),
        *fillers,
    ]


def test_bm25_prefers_rare_terms_and_scores_on_the_bm25_scale(opened: Callable[..., PgVectorStore]) -> None:
    store = opened()
    store.upsert(_keyword_corpus(), random_vectors(10, DIM))
    hits = store.search_keyword("zeppelin common", 3)
    assert hits[0].record.id == "rare"
    assert hits[0].score > 2.0  # the engine's keyword floor (8.0) is calibrated on BM25 magnitudes
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))


def test_repeated_terms_count_in_the_exact_score(opened: Callable[..., PgVectorStore]) -> None:
    """The shortlist counts each matched term once (it would put the shorter "once" first);
    the final score uses term frequencies."""
    store = opened()
    corpus = [
        make_record("once", "a heron stood by the water"),
        make_record("thrice", "heron heron heron by the water near reeds and mud"),
        *[make_record(f"f{i}", f"filler text number {i} about ducks") for i in range(8)],
    ]
    store.upsert(corpus, random_vectors(len(corpus), DIM))
    hits = store.search_keyword("heron", 5)
    assert [h.record.id for h in hits] == ["thrice", "once"]
    assert hits[0].score > hits[1].score > 0


def test_large_tables_take_common_lexemes_frequencies_from_pg_stats(
    opened: Callable[..., PgVectorStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``SAMPLE_ABOVE`` rows a lexeme ``ANALYZE`` listed as common is not counted; any
    other is counted up to ``COUNT_CAP`` rows."""
    from memorist_pgvector import keyword

    store = opened()
    corpus = [make_record(f"t{i:02d}", f"tea note {i}" if i < 40 else f"plain note {i}") for i in range(60)]
    store.upsert(corpus, random_vectors(len(corpus), DIM))
    store._run(lambda cur: cur.execute(f'ANALYZE "{store.options.table}"'))
    # After ANALYZE: 20 more rows with "tea", and 8 with "zebra", a lexeme ANALYZE never saw.
    more = [make_record(f"m{i:02d}", "tea again" if i < 20 else "zebra stripes") for i in range(28)]
    store.upsert(more, random_vectors(len(more), DIM))
    monkeypatch.setattr(keyword, "SAMPLE_ABOVE", 10)
    monkeypatch.setattr(keyword, "COUNT_CAP", 5)

    def frequencies(rows: float) -> list[float]:
        return store._run(
            lambda cur: keyword.DocumentFrequencies().get(cur, store._table, ["tea", "zebra", "absent"], rows)
        )

    tea, zebra, absent = frequencies(88)
    assert tea == pytest.approx(40 / 60 * 88, rel=1e-3)  # ANALYZE's fraction, not the 60 rows of now
    assert (zebra, absent) == (5.0, 0.0)  # counted, capped
    monkeypatch.setattr(keyword, "SAMPLE_ABOVE", 1000)  # a small table: every lexeme counted exactly
    assert frequencies(88) == [60.0, 8.0, 0.0]
    assert [h.record.id for h in store.search_keyword("zebra", 3)][0].startswith("m")


def test_ts_rank_cd_ranking_is_available(opened: Callable[..., PgVectorStore]) -> None:
    store = opened(keyword_ranking="ts_rank_cd")
    store.upsert(_keyword_corpus(), random_vectors(10, DIM))
    hits = store.search_keyword("zeppelin", 5)
    assert [h.record.id for h in hits] == ["rare"] and 0 < hits[0].score <= 1


def test_keyword_hits_carry_their_vectors(opened: Callable[..., PgVectorStore]) -> None:
    store = opened()
    vectors = random_vectors(10, DIM)
    corpus = _keyword_corpus()
    store.upsert(corpus, vectors)
    for hit in store.search_keyword("common zeppelin", 10):
        index = [r.id for r in corpus].index(hit.record.id)
        assert hit.vector.dtype == np.float32
        np.testing.assert_allclose(hit.vector, vectors[index], atol=1e-6)


def test_stop_words_alone_find_nothing(opened: Callable[..., PgVectorStore]) -> None:
    store = opened()
    store.upsert(_keyword_corpus(), random_vectors(10, DIM))
    assert store.search_keyword("the and of", 5) == []


# -- the HNSW index -------------------------------------------------------------------------


def test_hnsw_index_serves_searches_with_exact_scores(opened: Callable[..., PgVectorStore], table: str) -> None:
    dim = 32
    store = opened(dim)
    vectors = random_vectors(1500, dim, seed=3)
    store.upsert([make_record(f"r{i:04d}", user_id=f"u{i % 4}") for i in range(1500)], vectors)
    store.upsert([make_record("lonely", user_id="solo")], -vectors[10:11])  # the farthest row
    store._run(lambda cur: cur.execute(f'ANALYZE "{table}"'))
    indexes = {r[0] for r in query(store, "SELECT indexname FROM pg_indexes WHERE tablename = %s", (table,))}
    assert f"{table}_hnsw" in indexes and f"{table}_tsv" in indexes
    explain = f'EXPLAIN SELECT id FROM "{table}" ORDER BY embedding <=> %s::vector LIMIT 3'
    plan = "\n".join(r[0] for r in query(store, explain, (str(vectors[10].tolist()),)))
    assert f"{table}_hnsw" in plan
    q = vectors[10]
    hits = store.search_vector(q, 3)
    assert hits[0].record.id == "r0010"
    exact = [float(vectors[int(h.record.id[1:])] @ q) for h in hits]
    assert [h.score for h in hits] == pytest.approx(exact, abs=1e-4)
    filtered = store.search_vector(q, 50, parse_filter({"user_id": "u2"}))
    assert len(filtered) == 50 and filtered[0].record.id == "r0010"
    assert all(h.record.user_id == "u2" for h in filtered)
    (lonely,) = store.search_vector(q, 5, parse_filter({"user_id": "solo"}))
    assert lonely.record.id == "lonely" and lonely.score == pytest.approx(-1.0, abs=1e-4)
    assert len(store.search_vector(q, 1501)) == 1501  # past ef_search's ceiling of 1000


def test_zero_query_vector_does_not_raise(opened: Callable[..., PgVectorStore]) -> None:
    store = opened()
    store.upsert([make_record("a")], np.stack([unit(DIM, 1)]))
    hits = store.search_vector(np.zeros(DIM, dtype=np.float32), 1)
    assert [h.score for h in hits] == [0.0]


def test_one_batch_naming_an_id_twice_keeps_the_last(opened: Callable[..., PgVectorStore]) -> None:
    store = opened()
    store.upsert([make_record("a", "first"), make_record("a", "second")], random_vectors(2, DIM))
    assert [r.text for r in store.get(["a"])] == ["second"]


# -- concurrency ----------------------------------------------------------------------------


def test_deadlocks_are_retried_for_writes_only(opened: Callable[..., PgVectorStore]) -> None:
    import psycopg

    store = opened(retries=3)
    calls: list[int] = []

    def flaky(cur: Any) -> str:
        calls.append(1)
        if len(calls) < 3:
            raise psycopg.errors.DeadlockDetected("deadlock detected")
        return "done"

    assert store._run(flaky, retry=True) == "done" and len(calls) == 3
    calls.clear()
    with pytest.raises(psycopg.errors.DeadlockDetected):
        store._run(flaky)


def test_threads_share_one_store(opened: Callable[..., PgVectorStore]) -> None:
    store = opened(pool_size=2, max_overflow=2)
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
                assert store.delete([ids[0]]) == 1
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count() == 6 * 15 * 3
    for w in range(6):
        assert store.count(parse_filter({"user_id": f"u{w}"})) == 45


def test_overlapping_batches_from_threads_neither_deadlock_nor_lose_rows(
    opened: Callable[..., PgVectorStore],
) -> None:
    store = opened()
    errors: list[BaseException] = []
    ids = [f"shared{i:03d}" for i in range(60)]

    def work(worker: int) -> None:
        try:
            rng = random.Random(worker)
            for _ in range(10):
                batch = rng.sample(ids, 20)
                store.upsert([make_record(i, f"by {worker}") for i in batch], random_vectors(20, DIM, worker))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count() == len({i for w in range(5) for i in _sampled(ids, w)})


def _sampled(ids: list[str], worker: int) -> set[str]:
    rng = random.Random(worker)
    return {i for _ in range(10) for i in rng.sample(ids, 20)}


def test_stores_opening_a_new_table_at_once_all_succeed(opened: Callable[..., PgVectorStore]) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(5)

    def open_one() -> None:
        try:
            barrier.wait()
            opened().count()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_forked_child_gets_its_own_connections(opened: Callable[..., PgVectorStore]) -> None:
    """The gunicorn master may build the store and fork: the child must not share its sockets."""
    import multiprocessing

    store = opened()
    store.upsert([make_record("before")], random_vectors(1, DIM))
    context = multiprocessing.get_context("fork")
    result = context.Queue()
    child = context.Process(target=_child_work, args=(store, result))
    child.start()
    child.join(timeout=60)
    assert child.exitcode == 0 and result.get(timeout=5) == 2
    assert store.count() == 2 and {r.id for r in store.list()} == {"before", "child"}


def _child_work(store: PgVectorStore, result: Any) -> None:
    store.upsert([make_record("child")], random_vectors(1, DIM, 5))
    result.put(store.count())


_WORKER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from memorist.testing.vector_store import make_record, random_vectors
    from memorist.plugin.contracts import ProviderContext
    from memorist_pgvector import PgVectorStore

    worker = int(sys.argv[1])
    store = PgVectorStore(
        PgVectorStore.Options(url={url!r}, table={table!r}, pool_size=2),
        ProviderContext(data_dir=Path("."), dimension={dim}),
    )
    for batch in range(12):
        ids = [f"p{{worker}}-{{batch}}-{{j}}" for j in range(5)]
        store.upsert([make_record(i, user_id=f"p{{worker}}") for i in ids],
                     random_vectors(5, {dim}, worker * 1000 + batch))
        assert store.delete([ids[0]]) == 1
        store.delete_where(__import__("memorist.filters").filters.parse_filter({{"id": ids[1]}}))
        store.count()
    store.close()
    """
)


def test_processes_share_one_table(opened: Callable[..., PgVectorStore], pg_module_url: str, table: str) -> None:
    opened().close()  # create the table once, as startup would
    script = _WORKER.format(root=str(ROOT), url=pg_module_url, table=table, dim=DIM)
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(w)], stderr=subprocess.PIPE, text=True) for w in range(3)
    ]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [e for p, e in zip(procs, errors, strict=True) if p.returncode != 0] == []
    store = opened()
    assert store.count() == 3 * 12 * 3
    assert store.count(parse_filter({"user_id": "p1"})) == 36
