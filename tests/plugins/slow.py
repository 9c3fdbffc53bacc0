"""A throwaway plugin: the heuristic extractor taking ``options.delay`` seconds per extraction.

It stands in for a slow language model (an LLM call of many seconds) in tests of a real
server: a request that is slow for reasons outside the server must not stall the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from memorist.plugin.contracts import Extraction, ExtractionRequest, LanguageModel
from memorist.plugin.hookspecs import hookimpl
from memorist_heuristic.extractor import HeuristicExtractor, HeuristicExtractorOptions
from pydantic import Field


class SlowExtractorOptions(HeuristicExtractorOptions):
    delay: float = Field(1.0, ge=0, le=600)


class SlowExtractor(HeuristicExtractor):
    name: ClassVar[str] = "slow-heuristic"

    Options = SlowExtractorOptions

    def extract_detailed(self, request: ExtractionRequest) -> Extraction:
        time.sleep(float(getattr(self.options, "delay", 0.0)))
        return super().extract_detailed(request)


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    register(SlowExtractor)
