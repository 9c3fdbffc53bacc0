"""Cosines read against chance: what two unrelated statements score in a language.

The supersession rule's cosine bars (:mod:`.supersession_rule`) were set on English, where
the default embedder (all-MiniLM-L6-v2, trained on English) gives two short unrelated
statements about 0.14. In a language it was not trained on, its word pieces are few and
shared, and any two short statements score far higher whatever they say: "Ik heb een kat."
/ "Ik ben verhuisd naar Groningen." 0.62 against 0.24 for the same pair in English, above
the bar a change word needs to link two facts, so a move hid a cat. A bar per language
would be a number per language to tune; instead the rule reads a cosine that no word of the
two facts backs relative to its language's chance level, mapped onto the English scale
before it meets the bars (the words back it otherwise: :mod:`.supersession_rule`)::

    s' = c_en + (s - c_lang) * (1 - c_en) / (1 - c_lang)

English is unchanged by construction, a cosine at a language's chance level reads as
English chance, and 1 stays 1. A multilingual embedder, whose chance is about equal across
the languages it knows, changes almost nothing, and it too is read against chance in a
language it does not know (USE multilingual gives Swedish statements 0.6).

A language's chance level ``c_lang`` is the mean cosine of the distinct pairs of its
lexicon's ``unrelated_statements`` (short first-person facts on different topics, data
written in each language), under the configured embedder. It is measured lazily, one
language at a time on first need, and cached per embedder identity (its class and
:meth:`describe`), so an add pays for it once per process and language. Two facts in one
language use its chance; two read as different languages the higher of their two (a short
fact's language is often misread, "Mi sono trasferita a Bologna." reads as English, and a
user tells their facts in one). A language without statements, or an unsure one, reads
as English: nothing changes where nothing is known.
"""

from __future__ import annotations

from collections.abc import Callable
from threading import Lock

import numpy as np

from ..language import DEFAULT, language_of, lexicon
from .supersession_speakers import SPEAKER_LABEL

#: The lexicon list whose pairs measure a language's chance level.
STATEMENTS = "unrelated_statements"
#: A language whose chance is this close to 1 (every statement embeds alike: a script the
#: embedder has no pieces for, Thai under MiniLM scores 1.0) has a cosine that says nothing:
#: it reads as English chance.
MIN_SPREAD = 0.05

Embed = Callable[[list[str]], np.ndarray]

#: Chance levels by embedder identity, then language (None: no statements to measure).
_LEVELS: dict[str, dict[str, float | None]] = {}
_LOCK = Lock()


def chance_of(vectors: np.ndarray) -> float:
    """The mean cosine of the distinct pairs of ``vectors`` (rows)."""
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0, 1.0, norms)
    n = len(unit)
    if n < 2:
        raise ValueError("a chance level needs at least two statements")
    cosines = unit @ unit.T
    return float((cosines.sum() - np.trace(cosines)) / (n * n - n))


def fact_language(text: str) -> str:
    """The language of a fact's own words, its speaker label left out."""
    return language_of(SPEAKER_LABEL.sub("", text, count=1) or text)


def on_english_scale(similarity: float, chance: float, english: float) -> float:
    """``similarity``, measured where unrelated statements score ``chance``, on the scale where
    they score ``english`` (see the module's description)."""
    if 1.0 - chance < MIN_SPREAD:
        return english
    mapped = english + (similarity - chance) * (1.0 - english) / (1.0 - chance)
    return max(-1.0, min(1.0, mapped))


class ChanceCosine:
    """Reads one embedder's cosines against each language's chance level."""

    def __init__(self, embed: Embed, identity: str) -> None:
        self._embed = embed
        self._identity = identity

    def chance(self, code: str) -> float | None:
        """Language ``code``'s chance level under this embedder (None: no statements)."""
        with _LOCK:
            known = _LEVELS.get(self._identity, {})
            if code in known:
                return known[code]
        statements = [str(s) for s in lexicon(code).get(STATEMENTS) or ()]
        # Embedded outside the lock: concurrent adds measuring one language agree on its value.
        level = chance_of(np.asarray(self._embed(statements))) if len(statements) >= 2 else None
        with _LOCK:
            _LEVELS.setdefault(self._identity, {})[code] = level
        return level

    def relative(self, similarity: float | None, newer: str, older: str) -> float | None:
        """The cosine of facts ``newer`` and ``older`` on the English scale (None stays None)."""
        if similarity is None:
            return None
        codes = {fact_language(newer), fact_language(older)}
        if codes == {DEFAULT}:
            return similarity
        english = self.chance(DEFAULT)
        levels = [self.chance(code) for code in codes]
        if english is None:
            return similarity
        # A short fact's language is often misread ("Mi sono trasferita a Bologna." reads as
        # English), and a user tells their facts in one: the higher level of the two holds.
        own = max(english if level is None else level for level in levels)
        return on_english_scale(similarity, own, english)

    def on_english_scale(self, scores: np.ndarray, text: str) -> np.ndarray:
        """Cosines of ``text`` with sentences in any language (the meaning reader's prototypes)
        on the English scale, read against ``text``'s language: identity for English."""
        code = fact_language(text)
        english = self.chance(DEFAULT)
        level = self.chance(code) if code != DEFAULT else None
        if english is None or level is None:
            return scores
        if 1.0 - level < MIN_SPREAD:
            return np.full_like(scores, english)
        mapped = english + (np.asarray(scores) - level) * (1.0 - english) / (1.0 - level)
        return np.clip(mapped, -1.0, 1.0)


def identity_of(embedder: object) -> str:
    """What names an embedder's vector space: its class and its description (model, backend)."""
    describe = getattr(embedder, "describe", None)
    label = describe() if callable(describe) else ""
    return f"{type(embedder).__module__}.{type(embedder).__qualname__}:{label}"
