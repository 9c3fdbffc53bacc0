"""Reranking by asking the configured language model to grade relevance.

Useful when a hosted or local chat model is configured anyway and no
cross-encoder weights are available. Candidates are sent in batches of
``batch_size``; the model answers one score from 0 to 10 per candidate index
(validated against :class:`RelevanceScores`), which is divided by 10 and
blended with the original score: ``blend * model + (1 - blend) * original``.
The original score is worth keeping because 0-10 grades tie often, and it
carries what retrieval knew (keyword, entity, recency boosts).

Fallback: when the language model is not generative (the offline heuristic
extractor) or any batch fails with a :class:`~memorist.errors.MemoristError`
(e.g. a :class:`~memorist.errors.ProviderError` after the provider's own
retries), the rerank returns the candidates in their original order with
their original scores, so a search still answers. A warning is logged the
first time each kind of fallback happens per reranker instance; repeats go to
debug level so an outage does not flood the log.

Reply repair: grades outside 0-10 are clamped; indices outside the batch are
ignored; a repeated index keeps its first grade; a candidate the model did not
grade keeps its original score (neither promoted nor demoted).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import ClassVar

from memorist.plugin_api import ChatMessage, LanguageModel, MemoristError, ProviderContext, ProviderOptions, Reranker
from pydantic import BaseModel, ConfigDict, Field

from ._scores import Hit, blend, clamp01, rank, unchanged

log = logging.getLogger("memorist.rerankers.llm")

MAX_GRADE = 10.0

SYSTEM_PROMPT = (
    "You grade how relevant stored memories are to a search query. For every candidate, "
    "give a score from 0 (unrelated) to 10 (directly answers the query). Judge relevance "
    "only, not whether the memory is true or well written. Grade each candidate exactly "
    "once, by its index."
)


class CandidateScore(BaseModel):
    """The grade of one candidate of a batch."""

    model_config = ConfigDict(extra="ignore")

    index: int = Field(description="The candidate's index as shown in brackets.")
    score: float = Field(description="Relevance from 0 (unrelated) to 10 (directly answers).")


class RelevanceScores(BaseModel):
    """The reply schema: one grade per candidate index."""

    model_config = ConfigDict(extra="ignore")

    scores: list[CandidateScore] = Field(default_factory=list)


class LLMRerankerOptions(ProviderOptions):
    #: Candidates per prompt: fewer means more calls, more means longer prompts.
    batch_size: int = Field(10, ge=1, le=100)
    #: Weight of the model's grade; the original score gets ``1 - blend``.
    blend: float = Field(0.7, ge=0.0, le=1.0)
    #: Longer memory texts are cut to this many characters in the prompt.
    max_text_chars: int = Field(1000, ge=20)


class LLMReranker(Reranker[LLMRerankerOptions]):
    """Reranks with relevance grades from ``context.language_model``."""

    name: ClassVar[str] = "llm"

    Options = LLMRerankerOptions

    def __init__(self, options: LLMRerankerOptions, context: ProviderContext) -> None:
        super().__init__(options, context)
        self._warned: set[str] = set()

    def describe(self) -> str:
        model = self.context.language_model
        return f"{self.name}:{model.describe()}" if model is not None else self.name

    def rerank(self, query: str, hits: list[Hit], top_k: int) -> list[Hit]:
        if not hits or top_k <= 0:
            return []
        model = self.context.language_model
        if model is None or not model.generative:
            label = model.describe() if model is not None else "none"
            self._warn_once(
                "not-generative",
                f"llm reranker: language model '{label}' cannot grade relevance; keeping the original order",
            )
            return unchanged(hits, top_k)
        size = self.options.batch_size
        grades: list[float | None] = []
        try:
            for start in range(0, len(hits), size):
                grades.extend(self._grade_batch(model, query, hits[start : start + size]))
        except MemoristError as exc:
            self._warn_once("failed", f"llm reranker: grading failed ({exc}); keeping the original order")
            return unchanged(hits, top_k)
        weight = self.options.blend
        scores = [
            blend(original if grade is None else grade, original, weight)
            for grade, (_, original) in zip(grades, hits, strict=True)
        ]
        return rank(hits, scores, top_k)

    def _grade_batch(self, model: LanguageModel, query: str, batch: Sequence[Hit]) -> list[float | None]:
        """Grades in [0, 1] for ``batch`` (None where the model gave none)."""
        reply = model.complete_json(self.messages(query, [r.text for r, _ in batch]), RelevanceScores)
        grades: list[float | None] = [None] * len(batch)
        for item in reply.scores:
            if 0 <= item.index < len(batch) and grades[item.index] is None:
                grades[item.index] = clamp01(item.score / MAX_GRADE)
        return grades

    def messages(self, query: str, texts: Sequence[str]) -> list[ChatMessage]:
        """The prompt for one batch; indices are local to the batch (0..n-1)."""
        limit = self.options.max_text_chars
        lines = []
        for i, text in enumerate(texts):
            flat = " ".join(text.split())
            if len(flat) > limit:
                flat = flat[: limit - 1].rstrip() + "…"
            lines.append(f"[{i}] {flat}")
        user = (
            f"Query: {' '.join(query.split())}\n\nCandidates:\n"
            + "\n".join(lines)
            + '\n\nReply as {"scores": [{"index": 0, "score": 7}, ...]} '
            "with one entry per candidate."
        )
        return [
            ChatMessage(role="system", content=SYSTEM_PROMPT),
            ChatMessage(role="user", content=user),
        ]

    def _warn_once(self, kind: str, message: str) -> None:
        if kind in self._warned:
            log.debug(message)
        else:
            self._warned.add(kind)
            log.warning(message)
