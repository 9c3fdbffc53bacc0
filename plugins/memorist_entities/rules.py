"""Rule-based entity extraction: proper nouns, quoted text, compound noun phrases.

No model, no download: capitalised word runs that are not sentence-initial
function words are proper nouns; text in quotes is an entity as written; runs
of two or three content words (no function words, no common verbs) approximate
compound noun phrases ("support group", "charity race"). Over-extraction is
cheap because the search side weights an entity by how rare it is.
"""

from __future__ import annotations

import re
from typing import ClassVar

from memorist.plugin_api import EntityExtractor, EntityMention, ProviderContext, ProviderOptions
from pydantic import Field

from .words import COMMON_CAPITALISED, FUNCTION_WORDS, VERBISH

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’\-]*|[0-9]+|[.!?;:,()\"“”]")
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,60})[\"”]")
_POSSESSIVE = re.compile(r"(?:'|’)s$")
_SENTENCE_PUNCT = frozenset(".!?;:")


def _clean(word: str) -> str:
    return _POSSESSIVE.sub("", word).strip("-'’")


class RuleEntityExtractorOptions(ProviderOptions):
    #: Extract compound noun phrases (two or three content words) too.
    noun_phrases: bool = True
    max_entities: int = Field(24, ge=1, le=200)


class RuleEntityExtractor(EntityExtractor[RuleEntityExtractorOptions]):
    """Finds proper nouns, quoted titles and compound noun phrases with rules."""

    name: ClassVar[str] = "rules"

    Options = RuleEntityExtractorOptions

    def __init__(self, options: RuleEntityExtractorOptions, context: ProviderContext) -> None:
        super().__init__(options, context)

    def extract(self, text: str) -> list[EntityMention]:
        found: dict[str, EntityMention] = {}

        def add(surface: str, kind: str) -> None:
            surface = " ".join(surface.split())
            key = surface.casefold()
            if len(surface) >= 2 and key not in found:
                found[key] = EntityMention(text=surface, kind=kind)

        for match in _QUOTED.finditer(text):
            add(match.group(1).strip(), "quoted")
        tokens = _TOKEN.findall(_QUOTED.sub(" , ", text))
        self._proper_nouns(tokens, add)
        if self.options.noun_phrases:
            self._noun_phrases(tokens, add)
        return list(found.values())[: self.options.max_entities]

    @staticmethod
    def _proper_nouns(tokens: list[str], add: object) -> None:
        run: list[str] = []
        sentence_start = True
        for token in [*tokens, "."]:
            word = _clean(token)
            capitalised = word[:1].isupper() and word.lower() not in FUNCTION_WORDS
            if capitalised and sentence_start and word in COMMON_CAPITALISED:
                capitalised = False
            if capitalised or (run and word.isdigit()):
                run.append(word)
            else:
                if run:
                    add(" ".join(run), "proper_noun")  # type: ignore[operator]
                run = []
            sentence_start = token in _SENTENCE_PUNCT or (sentence_start and token in '"“”(')

    @staticmethod
    def _noun_phrases(tokens: list[str], add: object) -> None:
        run: list[str] = []
        for token in [*tokens, "."]:
            word = _clean(token).lower()
            usable = (
                token[:1].islower()
                and len(word) > 2
                and word not in FUNCTION_WORDS
                and word not in VERBISH
                and not word.endswith(("ly", "ing", "ed"))
            )
            if usable:
                run.append(word)
                continue
            if 2 <= len(run) <= 3:
                add(" ".join(run), "noun_phrase")  # type: ignore[operator]
            elif len(run) > 3:
                add(" ".join(run[-2:]), "noun_phrase")  # type: ignore[operator]
            run = []
