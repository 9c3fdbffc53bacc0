"""Built-in rerankers: MMR (no model), cross-encoder (real model, offline), LLM (fake model)."""

from __future__ import annotations

import logging
import math
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import memorist_rerankers
import numpy as np
import pytest
from memorist.errors import CapabilityError, ConfigurationError, ProviderError
from memorist.plugin.contracts import LanguageModel, ProviderContext, ProviderOptions, Reranker
from memorist.plugin.registry import ProviderRegistry
from memorist.records import (
    ChatMessage,
    ExtractedFact,
    ExtractionRequest,
    MemoryRecord,
    normalized_hash,
)
from memorist_rerankers import CrossEncoderReranker, LLMReranker, MMRReranker
from memorist_rerankers.cross_encoder import resolve_model_path
from memorist_rerankers.llm import RelevanceScores
from memorist_rerankers.mmr import text_similarity

NOW = datetime(2024, 5, 1, tzinfo=UTC)


def rec(text: str, i: int | None = None) -> MemoryRecord:
    return MemoryRecord(
        id=f"m{i if i is not None else abs(hash(text))}",
        text=text,
        hash=normalized_hash(text),
        observed_at=NOW,
        created_at=NOW,
        updated_at=NOW,
    )


def hits_of(*pairs: tuple[str, float]) -> list[tuple[MemoryRecord, float]]:
    return [(rec(text, i), score) for i, (text, score) in enumerate(pairs)]


def texts(result: Sequence[tuple[MemoryRecord, float]]) -> list[str]:
    return [r.text for r, _ in result]


def ctx(tmp_path: Path, language_model: LanguageModel | None = None) -> ProviderContext:
    return ProviderContext(data_dir=tmp_path, language_model=language_model)


# -- registration --------------------------------------------------------


def test_hookimpl_registers_the_three_rerankers() -> None:
    registered: list[type[Reranker]] = []
    memorist_rerankers.register_rerankers(registered.append)
    assert [c.name for c in registered] == ["mmr", "cross-encoder", "llm"]
    registry = ProviderRegistry()
    for cls in registered:
        registry.add("reranker", cls)  # checks the contract and the name
    assert registry.names("reranker") == ["cross-encoder", "llm", "mmr"]
    opts = registry.validate_options("reranker", "mmr", {"lambda": 0.5})
    assert opts.lambda_ == 0.5  # type: ignore[attr-defined]


def test_installed_entry_point_builds_each_reranker(tmp_path: Path) -> None:
    """Through the ``memorist`` entry point, as startup finds it (only this plugin loaded)."""
    from memorist.plugin.manager import load_plugins

    registry = ProviderRegistry.from_plugins(load_plugins({"MEMORIST_PLUGINS": "rerankers"}))
    assert registry.names("reranker") == ["cross-encoder", "llm", "mmr"]
    built = registry.build("reranker", "mmr", {"lambda": 0.5}, ctx(tmp_path))
    assert isinstance(built, MMRReranker) and built.describe() == "mmr"
    lazy = registry.build("reranker", "cross-encoder", {"model": "/nonexistent"}, ctx(tmp_path))
    assert isinstance(lazy, CrossEncoderReranker) and not lazy.loaded  # built, not loaded


@pytest.mark.parametrize(
    ("name", "options", "key"),
    [
        ("mmr", {"lambda": 1.5}, "reranker.options.lambda"),
        ("mmr", {"lamda": 0.5}, "reranker.options.lamda: unknown option"),
        ("cross-encoder", {"blend": -0.1}, "reranker.options.blend"),
        ("cross-encoder", {"batch_size": 0}, "reranker.options.batch_size"),
        ("llm", {"blend": 2}, "reranker.options.blend"),
        ("llm", {"temperature": 0}, "reranker.options.temperature: unknown option"),
    ],
)
def test_invalid_options_name_the_key(name: str, options: dict[str, Any], key: str) -> None:
    registry = ProviderRegistry()
    memorist_rerankers.register_rerankers(lambda c: registry.add("reranker", c))
    with pytest.raises(ConfigurationError) as info:
        registry.validate_options("reranker", name, options)
    assert any(p.startswith(key) for p in info.value.problems), info.value.problems


@pytest.mark.process  # starts another Python process
def test_importing_the_plugin_does_not_import_torch() -> None:
    """Configuring the plugin must not cost a torch import (checked in a fresh interpreter)."""
    import subprocess

    code = "import sys, memorist_rerankers; print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# -- MMR -----------------------------------------------------------------


def mmr(tmp_path: Path, **options: Any) -> MMRReranker:
    return MMRReranker(MMRReranker.Options.model_validate(options), ctx(tmp_path))


PARIS = hits_of(
    ("Alice lives in Paris", 0.9),
    ("alice lives in Paris.", 0.88),  # same fact, other case and punctuation
    ("Alice lives in Pariss", 0.87),  # same fact with a typo
    ("Alice works as a nurse", 0.6),
    ("Bob likes green tea", 0.5),
)


def test_mmr_pushes_near_duplicates_below_distinct_relevant_hits(tmp_path: Path) -> None:
    result = mmr(tmp_path).rerank("where does alice live", PARIS, 5)
    assert texts(result)[:3] == [
        "Alice lives in Paris",
        "Alice works as a nurse",
        "Bob likes green tea",
    ]
    assert set(texts(result)[3:]) == {"alice lives in Paris.", "Alice lives in Pariss"}
    # Scores keep their meaning: each hit carries its original relevance score.
    original = {r.text: s for r, s in PARIS}
    assert all(score == original[r.text] for r, score in result)


def test_mmr_with_lambda_one_is_relevance_order(tmp_path: Path) -> None:
    shuffled = [PARIS[3], PARIS[0], PARIS[4], PARIS[2], PARIS[1]]
    result = mmr(tmp_path, **{"lambda": 1.0}).rerank("q", shuffled, 5)
    assert [s for _, s in result] == [0.9, 0.88, 0.87, 0.6, 0.5]


def test_mmr_accepts_field_name_and_alias(tmp_path: Path) -> None:
    assert mmr(tmp_path, lambda_=0.2).options.lambda_ == 0.2
    assert mmr(tmp_path, **{"lambda": 0.3}).options.lambda_ == 0.3
    assert mmr(tmp_path).options.lambda_ == 0.7


def test_mmr_is_scale_invariant(tmp_path: Path) -> None:
    """Relevance is taken relative to the best hit, so low absolute scores do not let
    diversity swamp relevance."""
    scaled = [(r, s * 0.3) for r, s in PARIS]
    assert texts(mmr(tmp_path).rerank("q", scaled, 5)) == texts(mmr(tmp_path).rerank("q", PARIS, 5))


def test_mmr_breaks_ties_by_input_order(tmp_path: Path) -> None:
    tied = hits_of(("cats purr", 0.5), ("dogs bark", 0.5), ("birds sing", 0.5), ("fish swim", 0.5))
    assert texts(mmr(tmp_path).rerank("q", tied, 4)) == [
        "cats purr",
        "dogs bark",
        "birds sing",
        "fish swim",
    ]
    same = hits_of(("same text", 0.5), ("same text", 0.5), ("same text", 0.5))
    assert [r.id for r, _ in mmr(tmp_path).rerank("q", same, 3)] == ["m0", "m1", "m2"]
    # With lambda 0 every first pick ties at 0: the more relevant hit wins, not position.
    assert texts(mmr(tmp_path, lambda_=0.0).rerank("q", PARIS[::-1], 1)) == ["Alice lives in Paris"]


def test_mmr_top_k_empty_and_clamping(tmp_path: Path) -> None:
    reranker = mmr(tmp_path)
    assert reranker.rerank("q", [], 5) == []
    assert reranker.rerank("q", PARIS, 0) == []
    assert len(reranker.rerank("q", PARIS, 2)) == 2
    assert len(reranker.rerank("q", PARIS, 50)) == len(PARIS)
    odd = hits_of(("above one", 1.5), ("below zero", -0.2), ("not a number", math.nan))
    result = reranker.rerank("q", odd, 3)
    assert [s for _, s in result] == [1.0, 0.0, 0.0]
    all_zero = hits_of(("x one", 0.0), ("y two", 0.0))
    assert texts(reranker.rerank("q", all_zero, 2)) == ["x one", "y two"]


def test_text_similarity() -> None:
    assert text_similarity("Alice lives in Paris", "ALICE lives in paris!") == 1.0
    assert text_similarity("Alice lives in Paris", "Bob likes green tea") == 0.0
    assert 0.0 < text_similarity("Alice lives in Paris", "Alice works as a nurse") < 0.5
    assert text_similarity("Alice lives in Paris", "Alice lives in Pariss") >= 0.9
    # Stop words do not make unrelated sentences look alike.
    assert text_similarity("the cat is in the hat", "the dog is in the yard") == 0.0


# -- cross-encoder -------------------------------------------------------

PACKAGED = resolve_model_path("all-MiniLM-L6-v2")
QUERY = "where does alice live"
CANDIDATES = hits_of(
    ("Bob likes green tea", 0.9),
    ("Alice lives in Paris", 0.8),
    ("The meeting is on Monday", 0.7),
    ("Alice moved to Berlin last year", 0.6),
    ("Carol plays the violin", 0.5),
)


@pytest.fixture(scope="module")
def tiny_cross_encoder() -> Any:
    """A real CrossEncoder: packaged MiniLM body plus a seeded, untrained one-label head."""
    import torch
    from sentence_transformers import CrossEncoder

    torch.manual_seed(0)
    return CrossEncoder(PACKAGED, num_labels=1, device="cpu")


def logits_of(model: Any, query: str, hits: Sequence[tuple[MemoryRecord, float]]) -> np.ndarray:
    import torch

    pairs = [(query, r.text) for r, _ in hits]
    return np.asarray(model.predict(pairs, activation_fn=torch.nn.Identity(), show_progress_bar=False))


def cross(tmp_path: Path, instance: Any = None, **options: Any) -> CrossEncoderReranker:
    """A reranker with ``options``; ``instance`` injects an already built model."""
    return CrossEncoderReranker(CrossEncoderReranker.Options.model_validate(options), ctx(tmp_path), model=instance)


def sig(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def test_cross_encoder_orders_by_model_scores(tmp_path: Path, tiny_cross_encoder: Any) -> None:
    logits = logits_of(tiny_cross_encoder, QUERY, CANDIDATES)
    expected = [CANDIDATES[i][0].text for i in sorted(range(len(logits)), key=lambda i: -logits[i])]
    # Precondition: the model disagrees with the input order, so the test can fail.
    assert expected != texts(CANDIDATES)
    result = cross(tmp_path, tiny_cross_encoder).rerank(QUERY, CANDIDATES, 5)
    assert texts(result) == expected
    by_text = {r.text: sig(float(x)) for (r, _), x in zip(CANDIDATES, logits, strict=True)}
    for record, score in result:
        assert 0.0 <= score <= 1.0
        assert score == pytest.approx(by_text[record.text], abs=1e-6)


def test_cross_encoder_blend_math(tmp_path: Path, tiny_cross_encoder: Any) -> None:
    logits = logits_of(tiny_cross_encoder, QUERY, CANDIDATES)
    result = cross(tmp_path, tiny_cross_encoder, blend=0.25).rerank(QUERY, CANDIDATES, 5)
    expected = {r.text: 0.25 * sig(float(x)) + 0.75 * s for (r, s), x in zip(CANDIDATES, logits, strict=True)}
    assert [s for _, s in result] == pytest.approx(sorted(expected.values(), reverse=True), abs=1e-6)
    for record, score in result:
        assert score == pytest.approx(expected[record.text], abs=1e-6)
    # blend 0 is the original order and scores, whatever the model says.
    original = cross(tmp_path, tiny_cross_encoder, blend=0.0).rerank(QUERY, CANDIDATES, 5)
    assert original == [(r, pytest.approx(s)) for r, s in CANDIDATES]


def test_cross_encoder_batching(tmp_path: Path, tiny_cross_encoder: Any) -> None:
    calls: list[int] = []

    class Spy:
        def predict(self, pairs: list[tuple[str, str]], **kwargs: Any) -> Any:
            calls.append(kwargs["batch_size"])
            return tiny_cross_encoder.predict(pairs, **kwargs)

    one = cross(tmp_path, Spy(), batch_size=1).rerank(QUERY, CANDIDATES, 5)
    many = cross(tmp_path, Spy(), batch_size=64).rerank(QUERY, CANDIDATES, 5)
    assert calls == [1, 64]
    assert texts(one) == texts(many)
    assert [s for _, s in one] == pytest.approx([s for _, s in many], abs=1e-5)


def test_cross_encoder_top_k_and_empty_input(tmp_path: Path, tiny_cross_encoder: Any) -> None:
    reranker = cross(tmp_path, tiny_cross_encoder)
    full = reranker.rerank(QUERY, CANDIDATES, 5)
    assert reranker.rerank(QUERY, CANDIDATES, 2) == full[:2]
    assert reranker.rerank(QUERY, CANDIDATES, 0) == []
    assert reranker.rerank(QUERY, [], 5) == []


def test_cross_encoder_loads_lazily_from_the_packaged_alias(tmp_path: Path, tiny_cross_encoder: Any) -> None:
    import torch

    reranker = cross(tmp_path, model="all-MiniLM-L6-v2", batch_size=4)
    assert not reranker.loaded
    assert reranker.rerank(QUERY, [], 5) == []
    assert not reranker.loaded  # nothing to score: no load
    torch.manual_seed(0)  # same seed as the fixture: the same untrained head
    result = reranker.rerank(QUERY, CANDIDATES, 5)
    assert reranker.loaded
    expected = cross(tmp_path, tiny_cross_encoder).rerank(QUERY, CANDIDATES, 5)
    assert texts(result) == texts(expected)
    assert [s for _, s in result] == pytest.approx([s for _, s in expected], abs=1e-6)
    assert reranker.describe() == "cross-encoder:all-MiniLM-L6-v2"


@pytest.mark.parametrize("model", ["no-such-org/no-such-cross-encoder", "/nonexistent/cross-encoder-dir"])
def test_cross_encoder_missing_model_is_a_clear_configuration_error(tmp_path: Path, model: str) -> None:
    reranker = cross(tmp_path, model=model)  # configuring it does not load anything
    with pytest.raises(ConfigurationError) as first:
        reranker.rerank(QUERY, CANDIDATES, 3)
    message = str(first.value)
    assert message.startswith("reranker.options.model: cannot load cross-encoder")
    assert model in message and "offline" in message
    with pytest.raises(ConfigurationError) as second:  # remembered, not retried
        reranker.rerank(QUERY, CANDIDATES, 3)
    assert second.value is first.value


def test_cross_encoder_two_label_models_and_clamped_inputs(tmp_path: Path) -> None:
    class TwoLabel:
        def predict(self, pairs: list[tuple[str, str]], **kwargs: Any) -> np.ndarray:
            return np.array([[0.0, 2.0], [1.0, -1.0], [0.5, 0.5]][: len(pairs)])

    hits = hits_of(("a", 1.7), ("b", -1.0), ("c", 0.5))
    result = cross(tmp_path, TwoLabel(), blend=0.5).rerank("q", hits, 3)
    assert texts(result) == ["a", "c", "b"]
    assert [s for _, s in result] == pytest.approx(
        [0.5 * sig(2.0) + 0.5 * 1.0, 0.5 * 0.5 + 0.5 * 0.5, 0.5 * sig(-2.0) + 0.0]
    )

    class Wrong:
        def predict(self, pairs: list[tuple[str, str]], **kwargs: Any) -> np.ndarray:
            return np.zeros((len(pairs), 3))

    with pytest.raises(ProviderError):
        cross(tmp_path, Wrong()).rerank("q", hits, 3)


# -- LLM -----------------------------------------------------------------


class ScriptedModel(LanguageModel):
    """A generative model whose grades come from a text -> grade table."""

    name = "scripted"

    def __init__(self, grades: dict[str, Any], fail: bool = False) -> None:
        super().__init__(ProviderOptions(), ProviderContext(data_dir=Path(".")))
        self.grades = grades
        self.fail = fail
        self.calls: list[list[str]] = []
        self.schemas: list[type] = []
        self.prompts: list[list[ChatMessage]] = []

    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        return []

    def complete_json(self, messages: Sequence[ChatMessage], schema: type[Any]) -> Any:
        self.schemas.append(schema)
        self.prompts.append(list(messages))
        if self.fail:
            raise ProviderError("scripted outage")
        lines = [ln for ln in messages[-1].content.splitlines() if ln.startswith("[")]
        batch = [ln.split("] ", 1)[1] for ln in lines]
        self.calls.append(batch)
        scores = []
        for i, text in enumerate(batch):
            grade = self.grades.get(text)
            if isinstance(grade, list):  # several entries (duplicates, stray indices)
                scores.extend(grade)
            elif grade is not None:
                scores.append({"index": i, "score": grade})
        return schema.model_validate({"scores": scores})


class Heuristicish(LanguageModel):
    """Not generative: it does not override ``complete_json``."""

    name = "heuristicish"

    def __init__(self) -> None:
        super().__init__(ProviderOptions(), ProviderContext(data_dir=Path(".")))

    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        return []


def llm(tmp_path: Path, model: LanguageModel | None, **options: Any) -> LLMReranker:
    return LLMReranker(LLMReranker.Options.model_validate(options), ctx(tmp_path, model))


def test_llm_reorders_by_blended_grades(tmp_path: Path) -> None:
    grades = {r.text: g for (r, _), g in zip(CANDIDATES, [0, 10, 2, 7, 0], strict=True)}
    model = ScriptedModel(grades)
    result = llm(tmp_path, model, blend=0.5).rerank(QUERY, CANDIDATES, 5)
    expected = {r.text: 0.5 * g / 10 + 0.5 * s for (r, s), g in zip(CANDIDATES, [0, 10, 2, 7, 0], strict=True)}
    assert texts(result) == sorted(expected, key=lambda t: -expected[t])
    assert texts(result)[0] == "Alice lives in Paris"
    for record, score in result:
        assert score == pytest.approx(expected[record.text])
    assert model.schemas == [RelevanceScores]
    assert QUERY in model.prompts[0][-1].content and model.prompts[0][0].role == "system"


def test_llm_batches_with_local_indices(tmp_path: Path) -> None:
    model = ScriptedModel({r.text: 5 for r, _ in CANDIDATES})
    result = llm(tmp_path, model, batch_size=2).rerank(QUERY, CANDIDATES, 5)
    assert model.calls == [texts(CANDIDATES[0:2]), texts(CANDIDATES[2:4]), texts(CANDIDATES[4:5])]
    # Equal grades: the original score decides, as blended.
    assert texts(result) == texts(CANDIDATES)
    assert [s for _, s in result] == pytest.approx([0.7 * 0.5 + 0.3 * s for _, s in CANDIDATES])


def test_equal_model_scores_keep_input_order(tmp_path: Path) -> None:
    """Ties in the new score are broken by input position, never by hash or id."""
    ascending = hits_of(("d", 0.1), ("c", 0.2), ("b", 0.3), ("a", 0.4))
    model = ScriptedModel({r.text: 6 for r, _ in ascending})
    assert texts(llm(tmp_path, model, blend=1.0).rerank("q", ascending, 4)) == ["d", "c", "b", "a"]

    class Flat:
        def predict(self, pairs: list[tuple[str, str]], **kwargs: Any) -> np.ndarray:
            return np.zeros(len(pairs))

    result = cross(tmp_path, Flat(), blend=1.0).rerank("q", ascending, 4)
    assert texts(result) == ["d", "c", "b", "a"] and {s for _, s in result} == {0.5}


def test_llm_repairs_replies(tmp_path: Path) -> None:
    hits = hits_of(("over", 0.2), ("under", 0.9), ("ungraded", 0.4), ("twice", 0.1))
    model = ScriptedModel(
        {
            "over": 15,  # clamped to 10
            "under": -3,  # clamped to 0
            # "ungraded" is missing: it keeps its original score
            "twice": [
                {"index": 3, "score": 8},
                {"index": 3, "score": 0},
                {"index": 99, "score": 10},
            ],
        }
    )
    result = dict((r.text, s) for r, s in llm(tmp_path, model, blend=1.0).rerank("q", hits, 4))
    assert result == pytest.approx({"over": 1.0, "under": 0.0, "ungraded": 0.4, "twice": 0.8})


def test_llm_top_k_and_empty_input(tmp_path: Path) -> None:
    model = ScriptedModel({r.text: i for i, (r, _) in enumerate(CANDIDATES)})
    reranker = llm(tmp_path, model, blend=1.0)
    assert reranker.rerank(QUERY, [], 5) == []
    assert reranker.rerank(QUERY, CANDIDATES, 0) == []
    assert model.calls == []  # nothing asked
    assert texts(reranker.rerank(QUERY, CANDIDATES, 2)) == texts(CANDIDATES[::-1][:2])


@pytest.mark.parametrize(
    "model",
    [Heuristicish(), ScriptedModel({}, fail=True), None],
    ids=["not-generative", "fails", "none"],
)
def test_llm_falls_back_to_original_order_and_warns_once(
    tmp_path: Path, model: LanguageModel | None, caplog: pytest.LogCaptureFixture
) -> None:
    shuffled = [CANDIDATES[2], CANDIDATES[0], (CANDIDATES[1][0], 1.4)]
    reranker = llm(tmp_path, model)
    with caplog.at_level(logging.DEBUG, logger="memorist.rerankers.llm"):
        first = reranker.rerank(QUERY, shuffled, 3)
        second = reranker.rerank(QUERY, shuffled, 2)
    assert first == [(CANDIDATES[2][0], 0.7), (CANDIDATES[0][0], 0.9), (CANDIDATES[1][0], 1.0)]
    assert second == first[:2]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "original order" in warnings[0].getMessage()


def test_non_generative_model_really_cannot_grade() -> None:
    """The fallback's premise: the contract's default complete_json raises CapabilityError."""
    model = Heuristicish()
    assert not model.generative
    with pytest.raises(CapabilityError):
        model.complete_json([ChatMessage(role="user", content="hi")], RelevanceScores)
