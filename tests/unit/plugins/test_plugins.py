"""Plugin discovery: entry points, allow/deny lists, and refusing a misspelled hook."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from memorist.cli import cli
from memorist.errors import PluginError
from memorist.plugin.manager import load_plugins
from memorist.plugin.registry import ProviderRegistry

from tests.plugins import hashing, misspelled

BUILTINS = {"entities", "heuristic", "lancedb", "openai", "pgvector", "rerankers", "sentence_transformers", "webhooks"}


def make_distribution(root: Path, module: str, source: str, entry: str = "thirdparty") -> Path:
    """A real installed distribution (module + dist-info) on a path entry of its own."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{module.replace('_', '-')}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[memorist]\n{entry} = {module}\n")
    return root


THIRD_PARTY = """
    from memorist.plugin.hookspecs import hookimpl
    from memorist.plugin.contracts import Reranker

    class ReverseReranker(Reranker):
        name = "reverse"

        def rerank(self, query, hits, top_k):
            return list(reversed(hits))[:top_k]

    @hookimpl
    def register_rerankers(register):
        register(ReverseReranker)
"""


def test_builtin_plugins_are_discovered_through_entry_points() -> None:
    plugins = load_plugins({})
    names = {info.name for info in plugins.info()}
    assert BUILTINS <= names
    registry = ProviderRegistry.from_plugins(plugins)
    assert "lancedb" in registry.names("vector_store")
    assert "sentence-transformers" in registry.names("embedder")
    assert "heuristic" in registry.names("language_model")
    assert "rules" in registry.names("entity_extractor")
    info = {i.name: i for i in plugins.info()}
    assert info["lancedb"].version == "0.1.0"
    assert info["lancedb"].hooks == ("register_vector_stores",)


def test_third_party_plugin_is_discovered_like_a_builtin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(make_distribution(tmp_path, "thirdparty_plugin", THIRD_PARTY)))
    plugins = load_plugins({})
    info = {i.name: i for i in plugins.info()}
    assert info["thirdparty"].version == "1.2.3"
    assert info["thirdparty"].hooks == ("register_rerankers",)
    assert "reverse" in ProviderRegistry.from_plugins(plugins).names("reranker")


def test_plugin_object_registered_in_a_test() -> None:
    plugins = load_plugins({}, extra=[hashing])
    assert "hashing" in ProviderRegistry.from_plugins(plugins).names("embedder")


def test_allow_list_loads_only_named_plugins() -> None:
    plugins = load_plugins({"MEMORIST_PLUGINS": "lancedb, sentence-transformers"})
    assert {i.name for i in plugins.info()} == {"lancedb", "sentence_transformers"}
    registry = ProviderRegistry.from_plugins(plugins)
    assert registry.names("language_model") == []


def test_allow_list_naming_a_missing_plugin_is_an_error() -> None:
    with pytest.raises(PluginError, match="lancdb.*not installed; installed: .*lancedb"):
        load_plugins({"MEMORIST_PLUGINS": "lancdb"})


def test_deny_list_skips_named_plugins() -> None:
    plugins = load_plugins({"MEMORIST_DISABLE_PLUGINS": "openai,rerankers"})
    names = {i.name for i in plugins.info()}
    assert "openai" not in names and "rerankers" not in names
    assert "lancedb" in names
    assert "openai" not in ProviderRegistry.from_plugins(plugins).names("language_model")


def test_misspelled_hook_fails_at_startup() -> None:
    with pytest.raises(PluginError, match="register_embeders"):
        load_plugins({}, extra=[misspelled])


def test_misspelled_hook_in_an_installed_plugin_stops_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = "from memorist.plugin.hookspecs import hookimpl\n\n@hookimpl\ndef memory_addded(memory):\n    pass\n"
    make_distribution(tmp_path, "typo_plugin", source, entry="typo")
    monkeypatch.syspath_prepend(str(tmp_path))  # installed: its entry point is found on sys.path
    monkeypatch.delitem(sys.modules, "typo_plugin", raising=False)
    result = CliRunner().invoke(cli, ["plugins"])
    assert result.exit_code == 2, result.output
    assert "memory_addded" in result.stderr
    assert "Traceback" not in result.stderr


def test_memorist_plugins_command_lists_versions_and_hooks() -> None:
    result = CliRunner().invoke(cli, ["plugins"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "lancedb 0.1.0: register_vector_stores" in result.stdout
    assert "heuristic 0.1.0: register_language_models" in result.stdout
    assert "vector_store: lancedb" in result.stdout


def test_plugin_modules_by_import_path() -> None:
    plugins = load_plugins({"MEMORIST_PLUGIN_MODULES": "tests.plugins.hashing"})
    assert "hashing" in ProviderRegistry.from_plugins(plugins).names("embedder")
    with pytest.raises(PluginError, match="cannot import 'no.such.module'"):
        load_plugins({"MEMORIST_PLUGIN_MODULES": "no.such.module"})
