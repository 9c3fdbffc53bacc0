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

from memorist.plugin_api import (
    CAPITALS_OPEN_AFTER,
    SPACELESS,
    EntityExtractor,
    EntityMention,
    ProviderContext,
    ProviderOptions,
    at_sentence_start,
    language_of,
    lexicon,
    script_of,
)
from pydantic import Field

from .words import COMMON_CAPITALISED, FUNCTION_WORDS, VERBISH

_TOKEN = re.compile(r"[^\W\d_][\w'’\-]*|[0-9]+|[.!?;:,()\"“”。！？]")
_QUOTED = re.compile(r"[\"“]([^\"“”]{2,60})[\"”]")
_POSSESSIVE = re.compile(r"(?:'|’)s$")


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
        unquoted = _QUOTED.sub(" , ", text)
        matches = list(_TOKEN.finditer(unquoted))
        tokens = [match.group() for match in matches]
        # The language layer's one notion of a sentence's start: after "." as after "。", "؟" or "¿".
        starts = [
            match.group()[0].isupper() and at_sentence_start(unquoted, match.start(), CAPITALS_OPEN_AFTER)
            for match in matches
        ]
        language = "en" if text.isascii() else language_of(text)
        # Another language's function words are no names either ("Mi hermana...", "Меня зовут...").
        function_words = lexicon(language).words("function_words") if language != "en" else frozenset()
        self._proper_nouns(tokens, starts, add, function_words)
        if not text.isascii():
            _caseless_names(text, add)
        if self.options.noun_phrases:
            self._noun_phrases(tokens, add)
        return list(found.values())[: self.options.max_entities]

    @staticmethod
    def _proper_nouns(
        tokens: list[str], starts: list[bool], add: object, function_words: frozenset[str] = frozenset()
    ) -> None:
        """Runs of capitalized words; at a sentence's start (``starts``, one per token) a
        capital alone makes no name of a common word ("Yesterday", "Honestly")."""
        run: list[str] = []
        for token, sentence_start in zip([*tokens, "."], [*starts, True], strict=True):
            word = _clean(token)
            capitalised = (
                word[:1].isupper() and word.lower() not in FUNCTION_WORDS and word.lower() not in function_words
            )
            if capitalised and sentence_start and word in COMMON_CAPITALISED:
                capitalised = False
            if capitalised or (run and word.isdigit()):
                run.append(word)
            else:
                if run:
                    add(" ".join(run), "proper_noun")  # type: ignore[operator]
                run = []

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


#: Katakana runs: in Japanese, the names of foreign people and places ("マリア", "ニューヨーク").
_KATAKANA = re.compile(r"[\u30a0-\u30ff\uff66-\uff9f]{2,}")
#: The longest name taken from a run without spaces after a name marker ("我叫王伟").
SPACELESS_NAME_CHARS = 4


def _caseless_names(text: str, add: object) -> None:
    """Names in scripts without capitals: a Katakana run, the word after one of the lexicon's
    ``name_markers`` ("اسمي سارة", "मेरा नाम प्रिया", "我叫王伟") and the word before one of
    its ``name_suffixes`` ("田中さん", "민수 씨"), less a glued ``name_ending``."""
    for match in _KATAKANA.finditer(text):
        add(match.group(0), "proper_noun")  # type: ignore[operator]
    lex = lexicon(language_of(text))
    endings = lex.phrases("name_endings")
    for marker in lex.phrases("name_markers"):
        start = text.find(marker)
        while start >= 0:
            name = _name_at(text, start + len(marker), endings)
            if name:
                add(name, "proper_noun")  # type: ignore[operator]
            start = text.find(marker, start + len(marker))
    for suffix in lex.phrases("name_suffixes"):
        start = text.find(suffix)
        while start > 0:
            name = _name_before(text, start)
            if name:
                add(name, "proper_noun")  # type: ignore[operator]
            start = text.find(suffix, start + len(suffix))


def _name_at(text: str, position: int, endings: tuple[str, ...]) -> str:
    rest = text[position:].lstrip()
    if not rest:
        return ""
    script = script_of(rest[0])
    end = 0
    while end < len(rest) and script_of(rest[end]) == script:
        end += 1
    name = rest[:end]
    if script in ("Han",) and len(name) > SPACELESS_NAME_CHARS:
        name = name[:SPACELESS_NAME_CHARS]
    for ending in endings:
        if name.endswith(ending) and len(name) > len(ending):
            name = name[: -len(ending)]
            break
    return name if script not in SPACELESS or len(name) >= 2 else ""


def _name_before(text: str, position: int) -> str:
    before = text[:position].rstrip()
    if not before:
        return ""
    script = script_of(before[-1])
    start = len(before)
    while start > 0 and script_of(before[start - 1]) == script and script is not None:
        start -= 1
    name = before[start:]
    if script in SPACELESS:
        name = name[-SPACELESS_NAME_CHARS:]
    return name if len(name) >= 2 else ""
