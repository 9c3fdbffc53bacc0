"""The language layer: one lexicon, one tokenizer, one person shift, for every part that
reads text (extraction, dedup, versions, keywords, query forms, entities).

- :mod:`.lexicon`: word lists per language as data files (``lexicons/<code>.yaml``).
- :mod:`.scripts`: the writing system of a text and its words in any script; scripts
  without spaces are read as character pairs.
- :mod:`.segments`: sentences and clauses in every script, by the kind of boundary a
  reader parts at (sentence, clause, colon, phrase, dash, bracket).
- :mod:`.person`: person-shift tables ("I am" -> "Ana is", "do I" -> "does the user").

:func:`language_of` tells a text's language cheaply: by script where a script has one
language here, and by function words among the languages written in Latin letters. Rules
written for one language (English greetings, say) apply only to text in that language;
text in another keeps every fact, and its own lexicon's greetings are skipped.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import DEFAULT, Lexicon, fold, languages, lexicon, lexicons_path
from .person import Form, PersonTable, capitalized, shift
from .person import table as person_table
from .phrases import Phrases, Token, phrases, tokens
from .scripts import CASELESS, NUMBER, SPACELESS, WORD_OR_NUMBER, main_script, pieces, script_of, scripts, words
from .segments import (
    CAPITALS_OPEN_AFTER,
    QUESTION_MARKS,
    Boundary,
    at_sentence_start,
    boundaries,
    has_boundary,
    join_sentences,
    opening_break,
    sentences,
    split,
)
from .voice import query_forms as user_voice_forms

__all__ = [
    "Boundary",
    "CAPITALS_OPEN_AFTER",
    "CASELESS",
    "DEFAULT",
    "NUMBER",
    "SPACELESS",
    "Form",
    "Lexicon",
    "PersonTable",
    "QUESTION_MARKS",
    "Phrases",
    "Token",
    "WORD_OR_NUMBER",
    "at_sentence_start",
    "boundaries",
    "capitalized",
    "fold",
    "has_boundary",
    "join_sentences",
    "language_of",
    "languages",
    "lexicon",
    "lexicons_path",
    "main_script",
    "opening_break",
    "person_table",
    "phrases",
    "pieces",
    "script_of",
    "sentences",
    "scripts",
    "shift",
    "split",
    "tokens",
    "user_voice_forms",
    "words",
]


@lru_cache(maxsize=1)
def _by_script() -> tuple[dict[str, str], dict[str, list[str]]]:
    """Script -> its one language, and script -> the languages sharing it."""
    sharing: dict[str, list[str]] = {}
    for code in languages():
        for script in lexicon(code).scripts:
            sharing.setdefault(script, []).append(code)
    only = {script: codes[0] for script, codes in sharing.items() if len(codes) == 1}
    return only, sharing


def _own_words(code: str) -> frozenset[str]:
    lex = lexicon(code)
    spoken = {w for name in ("greetings", "thanks") for p in lex.phrases(name) for w in p.split()}
    # The words naming what a person holds one of (where they live, their job, their phone):
    # what a short statement of a fact is about ("We wonen in Delft." has no Dutch function
    # word English lacks). A word several languages list ("email") counts for each in part.
    attributes = {
        w
        for name in lex.get("exclusive_attributes") or {}
        for w in lex.words("exclusive_attributes", name)
        if " " not in w
    }
    return lex.words("function_words") | lex.words("index_stop_words") | spoken | attributes


@lru_cache(maxsize=64)
def _evidence(script: str) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """What each word and each letter says about the languages written in ``script``: a
    word (function word, greeting, thanks) or letter ("ñ", "ß") used by k of them counts
    1/k for each ("in" is English, German and Italian; "est" is only French)."""
    _, sharing = _by_script()
    codes = sharing.get(script, [])
    by_word: dict[str, dict[str, float]] = {}
    by_letter: dict[str, dict[str, float]] = {}
    for code in codes:
        for word in _own_words(code):
            by_word.setdefault(word, {})[code] = 1.0
        for letter in lexicon(code).words("letters"):
            by_letter.setdefault(letter, {})[code] = 1.0
    for table in (by_word, by_letter):
        for weights in table.values():
            for code in weights:
                weights[code] = 1.0 / len(weights)
    return by_word, by_letter


#: E-mail addresses, web addresses and handles: values whose letters are no language's words.
_ADDRESSES = re.compile(r"\S+@\S+|\bhttps?://\S+|\bwww\.\S+|@\w+")


def _evidence_scores(text: str) -> str | tuple[tuple[str, ...], dict[str, float], str]:
    """The language when the script alone tells it; else the script's languages, each
    one's evidence, and the default among them."""
    if text.isascii():
        script = "Latin"  # the common case, without counting letters
    else:
        counts = scripts(text)
        if not counts:
            return DEFAULT
        script = counts.most_common(1)[0][0]
        if script in ("Han", "Hiragana", "Katakana"):
            return "ja" if counts.get("Hiragana", 0) + counts.get("Katakana", 0) else "zh"
    only, sharing = _by_script()
    if script in only:
        return only[script]
    candidates = sharing.get(script)
    if not candidates:
        return "und"  # a script no lexicon is written in: no language rules apply
    by_word, by_letter = _evidence(script)
    # An address is no word of the language: "ana@mail.io" holds Italian "io", "a@b.es" Spanish "es".
    folded = _ADDRESSES.sub(" ", fold(text))
    score = dict.fromkeys(candidates, 0.0)
    for token in words(folded):
        weights = by_word.get(token)
        if weights is None:  # most words are no language's function word
            continue
        short = 0.5 if len(token) == 1 else 1.0  # "i", "e", "a": initials and abbreviations too
        for code, weight in weights.items():
            score[code] += weight * short
    if not text.isascii():
        for letter in set(folded):
            for code, weight in by_letter.get(letter, {}).items():
                score[code] += weight
    default = DEFAULT if DEFAULT in candidates else candidates[0]
    return tuple(candidates), score, default


def _lexicon_choice(score: dict[str, float], default: str, lettered: bool = False) -> str:
    """The leading language; another than the default must lead it by half a word.

    The margin guards an English text against a loanword; a text with non-ASCII letters
    and not one default-language word has nothing to guard ("Ça va."), so there the
    letters' lead tells. A plain-ASCII text keeps the margin ("Le Guin." stays English).
    """
    best = default
    for code in score:
        if score[code] > score[best]:
            best = code
    if lettered and score[default] <= 0:
        return best
    return best if score[best] - score[default] >= 0.5 else default


@lru_cache(maxsize=8192)
def language_of(text: str) -> str:
    """The language ``text`` is most likely in (ISO 639-1), :data:`DEFAULT` when unsure.

    Japanese is told from Chinese by its kana; a script only one lexicon is written in
    tells its language. Among the languages sharing a script, a text is the language its
    evidence points to most: its function words (a word several languages use counts for
    each in part) and, for a question too short for many words, the letters its spelling
    uses ("é", "ñ", "ß", each distinct letter once). Another language than the default
    must lead the default by half a word's worth: an English text has English function
    words, so a loanword in it ("see you mañana") does not tip it. A character n-gram
    model deciding the close calls was measured and not wired (``benchmarks/language_id.py``,
    docs/benchmarks.md "Language identification").
    """
    reading = _evidence_scores(text)
    if isinstance(reading, str):
        return reading
    _, score, default = reading
    return _lexicon_choice(score, default, lettered=not text.isascii())
