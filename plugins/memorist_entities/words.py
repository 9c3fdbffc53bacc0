"""Word lists for the rule-based entity extractor: the English lexicon's ``entity_*`` lists."""

from __future__ import annotations

from memorist.plugin_api import lexicon

FUNCTION_WORDS = lexicon().words("entity_function_words")
#: Words that are capitalised only because they start a sentence (as capitalised there).
COMMON_CAPITALISED = frozenset(w[:1].upper() + w[1:] for w in lexicon().words("entity_sentence_capitals"))
#: Common verbs and adjectives that should not end a compound noun phrase.
VERBISH = lexicon().words("entity_verbish")
