"""``memorist.testing`` works for a third-party plugin: an installed throwaway package runs the kit's suites.

Why: the kit is a published surface. This test writes a small plugin package
(its own vector store, registered through the ``memorist`` entry-point group,
and its own tests built only from ``memorist.testing``), builds its wheel,
installs it with ``pip install --target`` as a user would, and runs that
package's tests in a
separate pytest process whose root is the package (none of this project's
conftest or fixtures). The suite must pass for a correct store and must fail,
naming the broken promise, when the store is wrong.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from memorist.plugin.contracts import ProviderContext
from memorist.testing import free_port, percentile
from memorist.testing.embedder import EmbedderContract
from memorist.testing.hashing import HashingEmbedder
from memorist.testing.pg import EXTERNAL_URL_ENV, PostgresCluster, libpq_url

NAME, VERSION = "memorist_tinystore", "0.0.1"
#: The wheel's metadata: a distribution with one entry point in the ``memorist`` group.
METADATA = {
    "METADATA": f"Metadata-Version: 2.1\nName: memorist-tinystore\nVersion: {VERSION}\n",
    "WHEEL": "Wheel-Version: 1.0\nGenerator: test_testing_kit\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    "entry_points.txt": f"[memorist]\ntinystore = {NAME}\n",
}
PLUGIN = {
    "memorist_tinystore/__init__.py": '''
        """A third-party vector store: LanceDB under another name, with a switch that breaks one promise."""

        from __future__ import annotations

        import os
        from collections.abc import Callable, Sequence
        from typing import ClassVar

        from memorist.plugin.hookspecs import hookimpl
        from memorist.plugin.contracts import VectorStore
        from memorist_lancedb import LanceDBVectorStore


        class TinyStore(LanceDBVectorStore):
            name: ClassVar[str] = "tinystore"

            def delete(self, ids: Sequence[str]) -> int:
                deleted = super().delete(ids)
                # Broken on purpose: claims every id existed (the contract says "how many existed").
                return len(ids) if os.environ.get("TINYSTORE_BROKEN") else deleted


        @hookimpl
        def register_vector_stores(register: Callable[[type[VectorStore]], None]) -> None:
            register(TinyStore)
    ''',
    "tests/test_tinystore.py": """
        from __future__ import annotations

        from pathlib import Path

        import pytest
        from memorist.plugin.manager import load_plugins
        from memorist.plugin.contracts import ProviderContext
        from memorist.plugin.registry import ProviderRegistry
        from memorist.testing.inprocess import AppServer
        from memorist.testing.server import ADMIN
        from memorist.testing.vector_store import VectorStoreContract

        from memorist_tinystore import TinyStore


        class TestTinyStoreContract(VectorStoreContract):
            @pytest.fixture
            def make_store(self, tmp_path: Path):
                opened = []

                def make(dimension: int) -> TinyStore:
                    store = TinyStore(TinyStore.Options(), ProviderContext(data_dir=tmp_path, dimension=dimension))
                    opened.append(store)
                    return store

                yield make
                for store in opened:
                    store.close()

            @pytest.fixture
            def store(self, make_store):
                return make_store(self.dimension)


        def test_registered_through_the_entry_point() -> None:
            registry = ProviderRegistry.from_plugins(load_plugins(environ={"MEMORIST_PLUGINS": "tinystore"}))
            assert registry.get("vector_store", "tinystore") is TinyStore


        def test_the_app_stores_and_finds_through_it(tmp_path: Path) -> None:
            with AppServer(tmp_path / "data", env={"MEMORIST_VECTOR_STORE__PROVIDER": "tinystore"}) as server:
                assert server.get("/health").json()["components"]["vector_store"] == "tinystore"
                body = {"messages": [{"role": "user", "content": "Otters hold hands"}], "user_id": "u", "infer": False}
                assert server.post("/memories", headers=ADMIN, json=body).status_code == 200
                found = server.post("/search", headers=ADMIN, json={"query": "otters", "user_id": "u"}).json()
                assert [r["memory"] for r in found["results"]] == ["Otters hold hands"]
    """,
}


def build_wheel(source: Path, out: Path) -> Path:
    """The package's wheel, written with the standard library (no build backend or network needed).

    A wheel is a zip of the package plus ``*.dist-info`` (METADATA, WHEEL,
    entry_points.txt and a RECORD of sha256 digests): what setuptools would
    produce for this pure-Python package.
    """
    info = f"{NAME}-{VERSION}.dist-info"
    files = {path.relative_to(source).as_posix(): path.read_bytes() for path in (source / NAME).rglob("*.py")}
    files.update({f"{info}/{name}": text.encode() for name, text in METADATA.items()})

    def digest(data: bytes) -> str:
        return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

    record = "".join(f"{name},sha256={digest(data)},{len(data)}\n" for name, data in files.items())
    wheel = out / f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{info}/RECORD", record + f"{info}/RECORD,,\n")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the package's source directory, the ``--target`` directory it was installed into)."""
    root = tmp_path_factory.mktemp("plugin")
    source = root / "memorist-tinystore"
    for name, text in PLUGIN.items():
        path = source / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    wheel = build_wheel(source, root)
    target = root / "site"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (target / "memorist_tinystore" / "__init__.py").exists()
    assert (target / f"{NAME}-{VERSION}.dist-info" / "entry_points.txt").exists()
    return source, target


def run_plugin_tests(installed: tuple[Path, Path], *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """pytest on the installed package's tests only: its own root directory, the installed code first."""
    source, target = installed
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(source),
            str(source / "tests"),
            *args,
        ],
        cwd=source.parent,  # not the source: only the installed copy is importable
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]),
            "HF_HUB_OFFLINE": "1",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


#: The contract's two filter sweeps (one test per case of ``FILTER_CASES``, ~140 tests) run one case
#: each here: TinyStore is LanceDB, whose own contract run (tests/contracts/test_lancedb_store.py) sweeps every
#: case; what this run proves is the kit working from an installed package, parametrized tests included.
ONE_CASE_PER_SWEEP = "not reference_semantics or reference_semantics[eq] or reference_semantics[in]"


def test_an_installed_plugin_runs_the_kit_and_passes(installed: tuple[Path, Path]) -> None:
    done = run_plugin_tests(installed, "-k", ONE_CASE_PER_SWEEP)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    passed = int(summary.split(" passed")[0].split()[-1])
    # the contract (its sweeps one case each, four tests), plus the plugin's own two
    assert passed >= 50 and "failed" not in summary and "deselected" in summary, summary


def test_the_contract_fails_a_wrong_store(installed: tuple[Path, Path]) -> None:
    done = run_plugin_tests(installed, "-k", "delete_by_id or delete_where_counts", TINYSTORE_BROKEN="1")
    assert done.returncode == 1, done.stdout[-4000:] + done.stderr[-2000:]
    failed = {line.split("::")[-1].split(" ")[0] for line in done.stdout.splitlines() if line.startswith("FAILED")}
    assert "test_delete_by_id_counts_existing_only" in failed, done.stdout[-4000:]
    assert "test_delete_where_counts_and_is_not_capped" not in failed  # only the broken promise fails


def test_free_port_is_bindable() -> None:
    import socket

    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([3.0, 1.0, 2.0], 0.5, 2.0),
        ([5.0], 0.95, 5.0),
        (list(map(float, range(1, 101))), 0.95, 95.0),
        ([1.0, 9.0], 1.0, 9.0),
    ],
)
def test_percentile_is_nearest_rank(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == expected


def test_percentile_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        percentile([], 0.5)
    with pytest.raises(ValueError):
        percentile([1.0], 95)


def test_the_shared_test_server_acknowledges_commits_without_flushing(pg_cluster: PostgresCluster) -> None:
    """The kit's own test server skips WAL flushes: the pgvector contract suite spent a third of
    its time waiting for the disk. (A ``TEST_POSTGRES_URL`` server keeps its own settings.)"""
    import psycopg

    if os.environ.get(EXTERNAL_URL_ENV):
        pytest.skip("an external server keeps its own settings")

    with psycopg.connect(libpq_url(pg_cluster.base_url)) as conn:
        settings = {name: conn.execute(f"SHOW {name}").fetchone()[0] for name in ("fsync", "synchronous_commit")}
    assert settings == {"fsync": "off", "synchronous_commit": "off"}


class TestHashingEmbedderMeetsTheEmbedderContract(EmbedderContract):
    """The test kit's own embedder; it hashes words, so the paraphrase check is left out."""

    checks_meaning = False

    @pytest.fixture
    def embedder(self, tmp_path: Path) -> HashingEmbedder:
        return HashingEmbedder(HashingEmbedder.Options(dimension=64), ProviderContext(data_dir=tmp_path))


def test_the_embedder_contract_catches_what_the_engine_relies_on(tmp_path: Path) -> None:
    """An embedder whose vectors are not unit length, or depend on their batch, fails the contract."""
    import numpy as np

    class Unnormalized(HashingEmbedder):
        name = "unnormalized"

        def embed(self, texts, purpose="document"):  # type: ignore[no-untyped-def]
            return super().embed(texts, purpose) * 3.0

    class BatchDependent(HashingEmbedder):
        name = "batch-dependent"

        def embed(self, texts, purpose="document"):  # type: ignore[no-untyped-def]
            vectors = super().embed(texts, purpose)
            if len(texts) > 1:  # a padding leak: a batch shifts every vector a little
                vectors = vectors + 0.01
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            return vectors

    contract = EmbedderContract()
    context = ProviderContext(data_dir=tmp_path)
    with pytest.raises(AssertionError):
        contract.test_vectors_are_float32_unit_rows_in_order(Unnormalized(HashingEmbedder.Options(), context))
    with pytest.raises(AssertionError):
        contract.test_a_text_gets_the_same_vector_alone_in_a_batch_and_again(
            BatchDependent(HashingEmbedder.Options(), context)
        )


def test_the_plugin_guides_embedder_example_works_as_shown(tmp_path: Path) -> None:
    """docs/plugins.md's embedder, taken from the page: listed by ``memorist plugins``, accepted by
    ``config check`` and passing the contract suite with the page's own test module."""
    import re

    page = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()
    section = page.split("## An embedder, end to end", 1)[1].split("## Plugin settings, in one place", 1)[0]
    plugin, test_module = re.findall(r"```python\n(.*?)```", section, re.S)
    (tmp_path / "my_memorist_embedder").mkdir()
    (tmp_path / "my_memorist_embedder" / "__init__.py").write_text(plugin)
    (tmp_path / "test_trigram.py").write_text(test_module)
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env = base | {
        "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
        "MEMORIST_PLUGIN_MODULES": "my_memorist_embedder",
    }
    listed = subprocess.run(
        [sys.executable, "-m", "memorist.cli", "plugins"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert listed.returncode == 0, listed.stderr
    assert "my_memorist_embedder -: register_embedders" in listed.stdout.splitlines()
    embedders = next(line for line in listed.stdout.splitlines() if line.startswith("embedder: "))
    assert "trigram" in embedders.split(": ", 1)[1].split(", ")
    chosen = env | {"MEMORIST_EMBEDDER__PROVIDER": "trigram", "MEMORIST_EMBEDDER__OPTIONS__DIMENSION": "128"}
    checked = subprocess.run(
        [sys.executable, "-m", "memorist.cli", "config", "check", "--data-dir", str(tmp_path / "d")],
        cwd=tmp_path,
        env=chosen,
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0 and checked.stdout.strip() == "configuration ok (1 warning)", checked.stderr
    typo = chosen | {"MEMORIST_EMBEDDER__OPTIONS__DIMENSOIN": "128"}
    refused = subprocess.run(
        [sys.executable, "-m", "memorist.cli", "config", "check", "--data-dir", str(tmp_path / "d")],
        cwd=tmp_path,
        env=typo,
        capture_output=True,
        text=True,
    )
    assert "error: embedder.options.dimensoin: unknown option; did you mean dimension?" in refused.stderr
    contract = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_trigram.py"],
        cwd=tmp_path,
        env=base | {"PYTHONPATH": env["PYTHONPATH"]},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert contract.returncode == 0 and "10 passed" in contract.stdout, contract.stdout[-2000:]
