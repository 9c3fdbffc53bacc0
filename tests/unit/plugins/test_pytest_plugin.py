"""The test kit's pytest plugin: what a plugin author's tests get from installing memorist."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import lancedb  # noqa: F401 - see below
import pytest
from memorist.testing.reranker import RerankerContract

# An in-process pytester session removes the modules it imported when it ends, and LanceDB's
# Rust core cannot be imported twice in one process (its logger panics: "env_logger::init_from_env
# should not be called after logger initialized"): imported here, LanceDB is in the snapshot
# pytester restores, so the inner session's stores do not break the worker's later LanceDB tests.

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[3]

#: A plugin author's test module: a plugin that is not installed, and its tests on the fixtures alone.
AUTHORS_TESTS = """
import numpy as np
import pytest
from memorist.plugin_api import hookimpl


class Hello:
    def on_get(self, req, resp):
        resp.media = {"hello": "hola"}


class HelloPlugin:
    @hookimpl
    def configure_app(self, app, context):
        context.add_route("/hello", Hello())


@pytest.fixture
def memorist_plugins():
    return [HelloPlugin()]


def test_the_plugins_route_is_served(memorist_client):
    assert memorist_client.simulate_get("/hello").json == {"hello": "hola"}


def test_the_client_stores_and_finds_as_the_admin(memorist_client):
    said = "Los nutrias duermen de la mano"
    body = {"messages": [{"role": "user", "content": said}], "user_id": "ana", "infer": False}
    assert memorist_client.simulate_post("/memories", json=body).status_code == 200
    found = memorist_client.simulate_post("/search", json={"query": "nutrias", "user_id": "ana"}).json
    assert [m["memory"] for m in found["results"]] == [said]
    stranger = memorist_client.simulate_get("/memories", params={"user_id": "ana"}, headers={"X-API-Key": "wrong"})
    assert stranger.status_code == 401


def test_the_app_is_built_with_the_hashing_embedder(memorist_app):
    assert memorist_app.get("/health").json()["components"]["embedder"] == "hashing"


def test_a_provider_context_and_the_hashing_embedder(memorist_provider_context, memorist_hashing_embedder, tmp_path):
    assert memorist_provider_context.data_dir.is_dir() and memorist_provider_context.data_dir.is_relative_to(tmp_path)
    vectors = memorist_hashing_embedder.embed(["Otters hold hands", "otters HOLD hands", "Ich wohne in Köln"])
    assert vectors.shape == (3, 64) and np.allclose(vectors[0], vectors[1]) and not np.allclose(vectors[0], vectors[2])
"""


def test_pyproject_registers_the_plugin_under_its_module_name() -> None:
    """Named after the module, the entry point and a conftest's ``pytest_plugins`` naming the
    module load it once (two names for one module would stop pytest with an error)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"memorist.testing.fixtures": "memorist.testing.fixtures"}


def test_the_plugin_imports_nothing_heavy() -> None:
    """pytest loads it in every session of an environment with memorist installed, the
    ``testing`` extra or not: it may import pytest and nothing of the app, requests or numpy."""
    code = (
        "import sys, memorist.testing.fixtures as f; "
        "print(sorted(m for m in ('requests', 'falcon', 'numpy', 'memorist.plugin.contracts', 'memorist.testing.pg') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Inner sessions load only the plugin under test (not every installed one, as autoload would)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester


def test_a_plugin_authors_tests_run_on_the_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_my_plugin=AUTHORS_TESTS)
    result = pytester.runpytest("-p", "memorist.testing.fixtures", "-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=4)


#: The reranker the plugin guide's example tests (docs/plugins.md names it ``my_plugin``).
SHUFFLE_PLUGIN = """
from typing import ClassVar

from memorist.plugin_api import Reranker, hookimpl


class ShuffleReranker(Reranker):
    name: ClassVar[str] = "shuffle"

    def rerank(self, query, hits, top_k):
        return list(reversed(hits))[:top_k]


@hookimpl
def register_rerankers(register):
    register(ShuffleReranker)
"""


def guide_example() -> str:
    """The plugin guide's reranker tests, as the page shows them."""
    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    start = page.index("import pytest\nfrom memorist.testing.reranker import RerankerContract")
    return page[start : page.index("```", start)]


@pytest.mark.process  # another process under test (docs/testing.md#test-tiers)
def test_naming_it_in_a_conftest_beside_the_plugin_option_loads_it_once(pytester: pytest.Pytester) -> None:
    """As with the installed entry point: ``pytest_plugins`` in a conftest and the plugin already
    loaded. In a process of its own, as a plugin author runs it; with the plugin guide's example."""
    pytester.makeconftest('pytest_plugins = ["memorist.testing.fixtures"]')
    pytester.makepyfile(test_my_plugin=AUTHORS_TESTS, test_guide_example=guide_example(), my_plugin=SHUFFLE_PLUGIN)
    result = pytester.runpytest_subprocess("-p", "memorist.testing.fixtures", "-p", "no:cacheprovider", "-q")
    contract = len([name for name in dir(RerankerContract) if name.startswith("test_")])
    result.assert_outcomes(passed=4 + 1 + contract + 3 + 3)  # parametrized: top_k x4, queries x4
