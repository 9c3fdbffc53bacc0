"""The language layer: one lexicon, one tokenizer, one person shift, for every part that
reads text (extraction, dedup, versions, keywords, query forms, entities).

- :mod:`.lexicon`: word lists per language as data files (``lexicons/<code>.yaml``).
- :mod:`.scripts`: the writing system of a text and its words in any script; scripts
  without spaces are read as character pairs.
- :mod:`.person`: person-shift tables ("I am" -> "Ana is", "do I" -> "does the user").

:func:`language_of` tells a text's language cheaply: by script where a script has one
language here, and by function words among the languages written in Latin letters. Rules
written for one language (English greetings, say) apply only to text in that language;
text in another keeps every fact, and its own lexicon's greetings are skipped.
"""

from __future__ import annotations

from functools import lru_cache

from .lexicon import DEFAULT, Lexicon, fold, languages, lexicon, lexicons_path
from .person import Form, PersonTable, at_sentence_start, capitalized, shift
from .person import table as person_table
from .phrases import Phrases, Token, phrases, tokens
from .scripts import CASELESS, NUMBER, SPACELESS, WORD_OR_NUMBER, main_script, pieces, script_of, scripts, words
from .voice import query_forms as user_voice_forms

__all__ = [
    "CASELESS",
    "DEFAULT",
    "NUMBER",
    "SPACELESS",
    "Form",
    "Lexicon",
    "PersonTable",
    "Phrases",
    "Token",
    "WORD_OR_NUMBER",
    "at_sentence_start",
    "capitalized",
    "fold",
    "language_of",
    "languages",
    "lexicon",
    "lexicons_path",
    "main_script",
    "person_table",
    "phrases",
    "pieces",
    "script_of",
    "scripts",
    "shift",
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
    return lex.words("function_words") | lex.words("index_stop_words") | spoken


@lru_cache(maxsize=64)
def _telling_words(code: str) -> frozenset[str]:
    """The words that tell ``code`` from the other languages of its script: its function
    words and the words of its greetings and thanks, less those another one uses too ("in"
    is English and German, "me" English and Spanish)."""
    _, sharing = _by_script()
    others = {c for script in lexicon(code).scripts for c in sharing.get(script, ()) if c != code}
    return _own_words(code).difference(*(_own_words(c) for c in others))


@lru_cache(maxsize=8192)
def language_of(text: str) -> str:
    """The language ``text`` is most likely in (ISO 639-1), :data:`DEFAULT` when unsure.

    Japanese is told from Chinese by its kana; a Latin-script text is the language
    whose function words it uses most (ties, and none at all, go to the default; another
    language needs two of its words, or half the text's).
    """
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
    tokens = [fold(w) for w in words(text)]
    best, best_hits = DEFAULT if DEFAULT in candidates else candidates[0], 0
    for code in candidates:
        vocabulary = _telling_words(code)
        hits = sum(t in vocabulary for t in tokens)
        if code != DEFAULT and hits < 2 and 2 * hits < len(tokens):
            continue  # one telling word in a longer text is a loanword ("go get 'em"), not a language
        if hits > best_hits or (hits == best_hits and code == DEFAULT):
            best, best_hits = code, hits
    return best
