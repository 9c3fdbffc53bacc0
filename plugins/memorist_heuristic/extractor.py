"""The offline heuristic extractor: messages to memories without a hosted model.

One pass, ADD-only: each message is segmented into sentences; greetings,
thanks, filler and bare questions are dropped, each with its reason (an add
reports them as ``skipped``); exclusions are applied; what remains is
rewritten in the third person with relative dates resolved, and grouped into
memories of at most ``max_chars`` characters (one per message when it fits,
so a memory keeps the context of its sentences).

What it cannot do (a language model can): follow free-form custom
instructions or inclusion prompts, translate, infer facts that are only
implied, or resolve "you" to the other speaker.
"""

from __future__ import annotations

from typing import ClassVar

from memorist.plugin_api import (
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    LanguageModel,
    ProviderContext,
    ProviderOptions,
    SkippedInput,
    account_for_messages,
)
from pydantic import Field

from .categories import categorize, excluded, exclusion_patterns
from .corrections import restate
from .dates import resolve_relative_dates
from .rewrite import speaker_label, standalone
from .segment import classified_sentences


class HeuristicExtractorOptions(ProviderOptions):
    #: Longest memory; longer messages are split at sentence boundaries.
    max_chars: int = Field(480, ge=80, le=10_000)
    #: Extract from system messages too (they are usually instructions, not facts).
    include_system: bool = False


class HeuristicExtractor(LanguageModel[HeuristicExtractorOptions]):
    """Rule-based extraction; the embedded default's language-model slot."""

    name: ClassVar[str] = "heuristic"

    Options = HeuristicExtractorOptions

    def __init__(self, options: HeuristicExtractorOptions, context: ProviderContext) -> None:
        super().__init__(options, context)

    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        return self.extract_detailed(request).facts

    def extract_detailed(self, request: ExtractionRequest) -> Extraction:
        """Facts, and every sentence or message not kept with the reason (see ``segment``)."""
        patterns = exclusion_patterns(request.excludes)
        facts: list[ExtractedFact] = []
        skipped: list[SkippedInput] = []
        #: Each speaker's kept sentences so far, as said: what a correction may restate.
        said: dict[str, list[str]] = {}
        for index, message in enumerate(request.messages):
            if message.role == "tool" or (message.role == "system" and not self.options.include_system):
                continue  # reported by account_for_messages
            speaker = speaker_label(message.name, message.role)
            earlier = said.setdefault(speaker, [])
            kept: list[str] = []
            restated: list[str] = []
            for sentence, reason in classified_sentences(message.content):
                if reason is None and excluded(sentence, patterns):
                    reason = "excluded"
                if reason is not None:
                    skipped.append(SkippedInput(message=index, reason=reason, text=sentence))
                    continue
                correction = restate(sentence, earlier)
                if correction is None:
                    kept.append(sentence)
                else:  # a memory of its own, worded as the fact it corrects (see corrections)
                    restated.append(correction.sentence)
                    kept.extend([correction.rest] if correction.rest else [])
                earlier.append(correction.sentence if correction else sentence)
            for chunk in [*restated, *self._chunks(kept)]:
                text = standalone(resolve_relative_dates(chunk, request.observed_at), speaker)
                facts.append(
                    ExtractedFact(
                        text=text,
                        categories=categorize(text, request.categories or None),
                        source_message=index,
                        attributed_to=message.role if message.role != "system" else "user",
                        speaker=message.name,
                    )
                )
        return Extraction(facts=facts, skipped=account_for_messages(request, facts, skipped))

    def _chunks(self, sentences: list[str]) -> list[str]:
        chunks: list[str] = []
        current = ""
        for sentence in sentences:
            if current and len(current) + 1 + len(sentence) > self.options.max_chars:
                chunks.append(current)
                current = sentence
            else:
                current = f"{current} {sentence}" if current else sentence
        if current:
            chunks.append(current)
        return chunks
