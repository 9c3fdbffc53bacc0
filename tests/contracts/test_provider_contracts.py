"""Every built-in provider against the published contract of its slot (``memorist.testing``).

The vector stores run theirs in test_lancedb_store.py and test_pgvector_store.py, the
sentence-transformers embedder in test_embedder.py and the hashing one in
test_testing_kit.py; this module runs the rest, checks that no built-in provider of a slot
is left without its contract, and that each contract fails a provider that breaks it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from memorist.plugin.contracts import (
    ProviderContext,
)
from memorist.plugin.registry import ProviderRegistry
from memorist.records import (
    EntityMention,
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    FactWithCandidates,
    MemoryRecord,
)
from memorist.testing.embedder import EmbedderContract
from memorist.testing.entity_extractor import EntityExtractorContract
from memorist.testing.language_model import LanguageModelContract
from memorist.testing.reranker import RerankerContract
from memorist_entities.rules import RuleEntityExtractor
from memorist_heuristic.extractor import HeuristicExtractor
from memorist_openai import OpenAIEmbedder, OpenAILanguageModel
from memorist_rerankers import CrossEncoderReranker, LLMReranker, MMRReranker
from memorist_sentence_transformers import MultilingualUseEmbedder

from tests.fake_openai import FakeOpenAI, fake_openai_server

#: What the fake chat model answers (no script): a memory citing the first message, a skip
#: for the second, the grades the LLM reranker asks for, and complete_json's ``ok``.
CHAT_REPLY = json.dumps(
    {
        "memories": [{"text": "The user adopted a dog named Rex.", "source_message": 0}],
        "skipped": [{"message": 1, "reason": "question"}],
        "scores": [{"index": 0, "score": 9}, {"index": 1, "score": 2}, {"index": 2, "score": 7}],
        "ok": True,
    }
)

#: Contract test class -> the built-in provider classes it runs against (checked below).
COVERED: dict[str, set[str]] = {}


def covers(*providers: type) -> Any:
    def mark(cls: type) -> type:
        for provider in providers:
            COVERED.setdefault(cls.__name__, set()).add(f"{provider.__module__}.{provider.__qualname__}")
        return cls

    return mark


@pytest.fixture(scope="module")
def openai_server() -> Iterator[FakeOpenAI]:
    with fake_openai_server() as server:
        server.default_chat = CHAT_REPLY
        yield server


def openai_options(server: FakeOpenAI) -> dict[str, Any]:
    return {"base_url": server.base_url, "backoff_seconds": 0.001, "timeout": 5.0}


# -- language models ---------------------------------------------------------------------


@covers(HeuristicExtractor)
class TestHeuristicMeetsTheLanguageModelContract(LanguageModelContract):
    @pytest.fixture
    def language_model(self, tmp_path: Path) -> HeuristicExtractor:
        return HeuristicExtractor(HeuristicExtractor.Options(), ProviderContext(data_dir=tmp_path))


@covers(OpenAILanguageModel)
class TestOpenAIMeetsTheLanguageModelContract(LanguageModelContract):
    """Against a local server speaking the OpenAI protocol (tests/fake_openai.py)."""

    @pytest.fixture
    def language_model(self, openai_server: FakeOpenAI, tmp_path: Path) -> OpenAILanguageModel:
        options = OpenAILanguageModel.Options(**openai_options(openai_server))
        return OpenAILanguageModel(options, ProviderContext(data_dir=tmp_path))


# -- rerankers ---------------------------------------------------------------------------


@covers(MMRReranker)
class TestMMRMeetsTheRerankerContract(RerankerContract):
    @pytest.fixture
    def reranker(self, tmp_path: Path) -> MMRReranker:
        return MMRReranker(MMRReranker.Options(), ProviderContext(data_dir=tmp_path))


@pytest.fixture(scope="module")
def tiny_cross_encoder() -> Any:
    """A real CrossEncoder: the packaged MiniLM body plus a seeded, untrained one-label head."""
    import torch
    from memorist_rerankers.cross_encoder import resolve_model_path
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    return CrossEncoder(resolve_model_path("all-MiniLM-L6-v2"), num_labels=1, device="cpu")


@covers(CrossEncoderReranker)
class TestCrossEncoderMeetsTheRerankerContract(RerankerContract):
    @pytest.fixture
    def reranker(self, tmp_path: Path, tiny_cross_encoder: Any) -> CrossEncoderReranker:
        options = CrossEncoderReranker.Options()
        return CrossEncoderReranker(options, ProviderContext(data_dir=tmp_path), model=tiny_cross_encoder)


@covers(LLMReranker)
class TestLLMRerankerMeetsTheRerankerContract(RerankerContract):
    """Grades from the OpenAI language model, served by the local fake."""

    @pytest.fixture
    def reranker(self, openai_server: FakeOpenAI, tmp_path: Path) -> LLMReranker:
        model = OpenAILanguageModel(
            OpenAILanguageModel.Options(**openai_options(openai_server)), ProviderContext(data_dir=tmp_path)
        )
        options = LLMReranker.Options(batch_size=3)
        return LLMReranker(options, ProviderContext(data_dir=tmp_path, language_model=model))


# -- entity extractors -------------------------------------------------------------------


@covers(RuleEntityExtractor)
class TestRulesMeetTheEntityExtractorContract(EntityExtractorContract):
    @pytest.fixture
    def entity_extractor(self, tmp_path: Path) -> RuleEntityExtractor:
        return RuleEntityExtractor(RuleEntityExtractor.Options(), ProviderContext(data_dir=tmp_path))


# -- embedders (the sentence-transformers one runs it in test_embedder.py) ----------------


@pytest.fixture(scope="module")
def multilingual_use(tmp_path_factory: pytest.TempPathFactory) -> MultilingualUseEmbedder:
    """Built once: its model loads in about a second."""
    context = ProviderContext(data_dir=tmp_path_factory.mktemp("use"))
    return MultilingualUseEmbedder(MultilingualUseEmbedder.Options(), context)


@covers(MultilingualUseEmbedder)
class TestMultilingualUseMeetsTheEmbedderContract(EmbedderContract):
    @pytest.fixture
    def embedder(self, multilingual_use: MultilingualUseEmbedder) -> MultilingualUseEmbedder:
        return multilingual_use


@covers(OpenAIEmbedder)
class TestOpenAIEmbedderMeetsTheEmbedderContract(EmbedderContract):
    """The fake server embeds a hashed bag of words: the paraphrase check is left out."""

    checks_meaning = False

    @pytest.fixture
    def embedder(self, openai_server: FakeOpenAI, tmp_path: Path) -> OpenAIEmbedder:
        return OpenAIEmbedder(OpenAIEmbedder.Options(**openai_options(openai_server)), ProviderContext(tmp_path))


#: Built-in providers whose contract runs in another module (see the docstring).
ELSEWHERE = {
    "memorist_sentence_transformers.embedder.SentenceTransformerEmbedder",
    "memorist_lancedb.store.LanceDBVectorStore",
    "memorist_pgvector.store.PgVectorStore",
}


def test_every_built_in_provider_of_a_slot_meets_its_contract() -> None:
    """A built-in provider added later without its contract test fails here."""
    from memorist.plugin.contracts import PROVIDER_KINDS
    from memorist.plugin.manager import load_plugins

    registry = ProviderRegistry.from_plugins(load_plugins({}))
    built_in = {
        f"{cls.__module__}.{cls.__qualname__}"
        for kind in PROVIDER_KINDS
        for cls in (registry.get(kind, name) for name in registry.names(kind))
    }
    covered = set().union(*COVERED.values()) | ELSEWHERE
    assert built_in and built_in <= covered, sorted(built_in - covered)


# -- each contract fails a provider that breaks it ---------------------------------------


def failures(contract: Any, fixture: str, provider: object) -> list[str]:
    """Names of the contract's tests that fail for ``provider`` (parametrized ones on their cases)."""
    failed = []
    for name in dir(contract):
        if not name.startswith("test_"):
            continue
        test = getattr(contract, name)
        cases: list[dict[str, Any]] = [{}]
        for mark in getattr(test, "pytestmark", []):
            if mark.name == "parametrize":
                argnames = mark.args[0].split(",") if isinstance(mark.args[0], str) else list(mark.args[0])
                argnames = [a.strip() for a in argnames]
                cases = [dict(zip(argnames, v if len(argnames) > 1 else [v], strict=True)) for v in mark.args[1]]
        try:
            for case in cases:
                test(**{fixture: provider}, **case)
        except Exception:  # noqa: BLE001 - an assertion or a crash: either way the provider fails the test
            failed.append(name)
    return failed


class MiscitingModel(HeuristicExtractor):
    """Cites a message the request does not have, and says nothing about the others; judges
    every new fact to replace a memory no fact was shown."""

    name: ClassVar[str] = "misciting"

    def extract_detailed(self, request: ExtractionRequest) -> Extraction:
        return Extraction(facts=[ExtractedFact(text="The user has a dog.", source_message=len(request.messages) + 3)])

    def replaced_memories(self, facts: Sequence[FactWithCandidates]) -> list[list[str]] | None:
        return [["atlantis"] for _ in facts]


class NegativeScores(MMRReranker):
    """Returns every candidate twice, with scores below zero."""

    name: ClassVar[str] = "negative"

    def rerank(
        self, query: str, hits: list[tuple[MemoryRecord, float]], top_k: int
    ) -> list[tuple[MemoryRecord, float]]:
        return [(record, -1.0) for record, _ in hits + hits][:top_k]


class Inventive(RuleEntityExtractor):
    """Names an entity the text does not hold, and finds nothing real."""

    name: ClassVar[str] = "inventive"

    def extract(self, text: str) -> list[EntityMention]:
        return [EntityMention(text="Atlantis")] if text.strip() else []


def test_the_contracts_fail_providers_that_break_them(tmp_path: Path) -> None:
    context = ProviderContext(data_dir=tmp_path)
    model = failures(LanguageModelContract(), "language_model", MiscitingModel(MiscitingModel.Options(), context))
    assert {
        "test_facts_cite_messages_of_the_request",
        "test_every_message_is_accounted_for",
        "test_replaced_memories_judges_each_fact_or_leaves_it_to_the_rule",
    } <= set(model)
    reranker = failures(RerankerContract(), "reranker", NegativeScores(NegativeScores.Options(), context))
    assert {"test_returns_at_most_top_k_of_the_candidates_each_once", "test_one_candidate_comes_back"} <= set(reranker)
    entities = failures(EntityExtractorContract(), "entity_extractor", Inventive(Inventive.Options(), context))
    assert {"test_mentions_are_text_of_the_input_each_once", "test_an_obvious_name_is_found"} <= set(entities)


def test_the_built_in_providers_pass_where_the_broken_ones_fail(tmp_path: Path) -> None:
    """The failure check above is not vacuous: the same runner passes a good provider."""
    context = ProviderContext(data_dir=tmp_path)
    assert (
        failures(LanguageModelContract(), "language_model", HeuristicExtractor(HeuristicExtractor.Options(), context))
        == []
    )
    assert failures(RerankerContract(), "reranker", MMRReranker(MMRReranker.Options(), context)) == []
    good = RuleEntityExtractor(RuleEntityExtractor.Options(), context)
    assert failures(EntityExtractorContract(), "entity_extractor", good) == []
