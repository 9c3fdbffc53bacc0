"""Provider registry: names, contracts, and the messages users see."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from memorist.errors import ConfigurationError, PluginError, UnknownProviderError
from memorist.plugin.contracts import ProviderContext, ProviderOptions, Reranker
from memorist.plugin.manager import load_plugins
from memorist.plugin.registry import ProviderRegistry

from tests.plugins import hashing


@pytest.fixture(scope="module")
def registry() -> ProviderRegistry:
    return ProviderRegistry.from_plugins(load_plugins({}, extra=[hashing]))


def test_unknown_provider_names_the_installed_ones(registry: ProviderRegistry) -> None:
    with pytest.raises(UnknownProviderError) as err:
        registry.get("vector_store", "lancdb")
    assert str(err.value) == "vector_store.provider 'lancdb' is not installed; installed: lancedb, pgvector"


def test_unknown_option_is_named_with_its_key(registry: ProviderRegistry) -> None:
    with pytest.raises(ConfigurationError) as err:
        registry.validate_options("embedder", "sentence-transformers", {"modle": "x"})
    assert err.value.problems == ["embedder.options.modle: unknown option; did you mean model?"]


def test_bad_option_type_is_named_with_its_key(registry: ProviderRegistry) -> None:
    with pytest.raises(ConfigurationError) as err:
        registry.validate_options("embedder", "hashing", {"dimension": "many"})
    assert err.value.problems[0].startswith("embedder.options.dimension: ")
    assert "integer" in err.value.problems[0]


def test_build_makes_an_instance_with_validated_options(registry: ProviderRegistry, tmp_path: Path) -> None:
    embedder = registry.build("embedder", "hashing", {"dimension": "16"}, ProviderContext(tmp_path))
    assert embedder.dimension == 16  # type: ignore[attr-defined]


class _Duplicate(Reranker):
    name: ClassVar[str] = "mmr"

    class Options(ProviderOptions):
        pass

    def rerank(self, query, hits, top_k):  # type: ignore[no-untyped-def]
        return hits


def test_two_providers_with_one_name_are_refused(registry: ProviderRegistry) -> None:
    fresh = ProviderRegistry()
    fresh.add("reranker", registry.get("reranker", "mmr"))
    with pytest.raises(PluginError, match="registered twice"):
        fresh.add("reranker", _Duplicate)


def test_a_class_of_the_wrong_kind_is_refused() -> None:
    with pytest.raises(PluginError, match="not a subclass of VectorStore"):
        ProviderRegistry().add("vector_store", hashing.HashingEmbedder)
