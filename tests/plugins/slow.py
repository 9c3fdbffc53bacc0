"""A throwaway plugin: the heuristic extractor taking ``options.delay`` seconds per extraction.

It stands in for a slow language model (an LLM call of many seconds) in tests of a real
server: a request that is slow for reasons outside the server must not stall the others.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from memorist.hookspecs import hookimpl
from memorist.providers import ExtractedFact, ExtractionRequest, LanguageModel
from memorist_heuristic.extractor import HeuristicExtractor
from pydantic import Field


class SlowExtractor(HeuristicExtractor):
    name: ClassVar[str] = "slow-heuristic"

    class Options(HeuristicExtractor.Options):
        delay: float = Field(1.0, ge=0, le=600)

    options: Options

    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        time.sleep(self.options.delay)
        return super().extract(request)


@hookimpl
def register_language_models(register: Callable[[type[LanguageModel]], None]) -> None:
    register(SlowExtractor)
