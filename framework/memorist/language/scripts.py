"""Writing systems and words in any of them: the one tokenizer.

A word is a run of letters, marks and digits in any script, so Devanagari's vowel signs
and Arabic's vowel marks stay inside their word (Python's ``\\w`` splits "हिन्दी" at each
sign). Scripts written without spaces between words (Chinese, Japanese, Thai; Korean
glues its particles to the noun) have no words to split on: their runs are indexed and
searched as overlapping character pairs (bigrams), the usual segmentation-free approach
of full-text engines (Lucene's CJK analyzer), which needs no dictionary or model.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

#: (first code point, last code point, script) of the scripts the engine tells apart.
_RANGES: tuple[tuple[int, int, str], ...] = (
    (0x0041, 0x024F, "Latin"),
    (0x0370, 0x03FF, "Greek"),
    (0x0400, 0x052F, "Cyrillic"),
    (0x0530, 0x058F, "Armenian"),
    (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"),
    (0x0750, 0x077F, "Arabic"),
    (0x0900, 0x097F, "Devanagari"),
    (0x0980, 0x0DFF, "Indic"),
    (0x0E00, 0x0E7F, "Thai"),
    (0x0E80, 0x0EFF, "Lao"),
    (0x10A0, 0x10FF, "Georgian"),
    (0x1100, 0x11FF, "Hangul"),
    (0x1780, 0x17FF, "Khmer"),
    (0x1E00, 0x1EFF, "Latin"),
    (0x3040, 0x309F, "Hiragana"),
    (0x30A0, 0x30FF, "Katakana"),
    (0x3130, 0x318F, "Hangul"),
    (0x3400, 0x4DBF, "Han"),
    (0x4E00, 0x9FFF, "Han"),
    (0xAC00, 0xD7AF, "Hangul"),
    (0xF900, 0xFAFF, "Han"),
    (0xFB1D, 0xFB4F, "Hebrew"),
    (0xFB50, 0xFDFF, "Arabic"),
    (0xFE70, 0xFEFF, "Arabic"),
    (0xFF66, 0xFF9F, "Katakana"),
)
#: Scripts without spaces between words (or, for Hangul, with particles glued to words).
SPACELESS = frozenset({"Han", "Hiragana", "Katakana", "Hangul", "Thai", "Lao", "Khmer"})
#: Scripts without letter case: capitals say nothing about names there.
CASELESS = frozenset({"Hebrew", "Arabic", "Devanagari", "Indic", "Thai", "Lao", "Khmer", "Georgian"} | SPACELESS)
#: Right-to-left scripts.
RTL = frozenset({"Hebrew", "Arabic"})


def _marks() -> str:
    """Combining marks of the scripts above, as a character-class body (computed once)."""
    ranges: list[tuple[int, int]] = []
    for cp in range(0x0300, 0x3100):
        if unicodedata.category(chr(cp)) in ("Mn", "Mc"):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1] = (ranges[-1][0], cp)
            else:
                ranges.append((cp, cp))
    return "".join(f"{chr(a)}-{chr(b)}" if a != b else re.escape(chr(a)) for a, b in ranges)


#: A word: letters, digits and marks of any script; an apostrophe or a hyphen inside keeps it
#: whole ("don't", "l'école", "breath-taking").
_MARKS = _marks()
_LETTER = rf"(?:[^\W_]|[{_MARKS}])"
WORD = re.compile(rf"[^\W_]{_LETTER}*(?:['’\-]{_LETTER}+)*")
#: A number as a value is written: "1,200.50", "555-1234", "10:30", "3/4".
NUMBER = re.compile(r"\d[\d,.:/\-]*\d|\d")
#: The words and numbers of a text, a number first ("3rd" is 3 and "rd"): how the parts that
#: compare values (duplicates, versions of a fact) read a text.
WORD_OR_NUMBER = re.compile(rf"{NUMBER.pattern}|{WORD.pattern}")
#: A term of the keyword index: word characters and marks (no apostrophes: "don't" is two).
TERM = re.compile(rf"[^\W_]{_LETTER}*")


def script_of(char: str) -> str | None:
    """The script of one character, or None for punctuation, digits, spaces and symbols."""
    cp = ord(char)
    if cp < 0x80:
        return "Latin" if char.isalpha() else None
    lo, hi = 0, len(_RANGES) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        first, last, name = _RANGES[mid]
        if cp < first:
            hi = mid - 1
        elif cp > last:
            lo = mid + 1
        else:
            return name if char.isalpha() or unicodedata.category(char)[0] == "M" else None
    return "Other" if char.isalpha() else None


def scripts(text: str) -> Counter[str]:
    """How many letters of ``text`` each script holds."""
    return Counter(s for s in map(script_of, text) if s is not None)


@lru_cache(maxsize=4096)
def main_script(text: str) -> str | None:
    """The script most of ``text``'s letters are in (None: no letters)."""
    counts = scripts(text)
    return counts.most_common(1)[0][0] if counts else None


def words(text: str) -> list[str]:
    """The words of ``text`` in any script, in order (spaceless runs whole: see :func:`pieces`)."""
    return WORD.findall(text)


#: Scripts written together in one language: a Japanese run of kanji and kana is one run.
_RUN_OF = {"Hiragana": "Han", "Katakana": "Han"}


def runs(token: str) -> list[tuple[str, str | None]]:
    """``token`` cut where its script changes ("東京2023年" -> 東京, 2023, 年); Japanese kanji
    and kana stay one run (their words cross the two)."""
    out: list[tuple[str, str | None]] = []
    for char in token:
        script = script_of(char)
        script = _RUN_OF.get(script, script) if script else script
        if unicodedata.category(char)[0] == "M" and out:
            script = out[-1][1]  # a mark belongs to the letter before it
        if out and out[-1][1] == script:
            out[-1] = (out[-1][0] + char, script)
        else:
            out.append((char, script))
    return out


#: The scripts of a Japanese content word: a run of Han characters or of katakana. Hiragana
#: write the endings and particles between them ("大阪に住んでいます": 大阪, 住).
_JAPANESE_WORD_SCRIPTS = frozenset({"Han", "Katakana"})


def has_kana(text: str) -> bool:
    """Whether ``text`` holds hiragana or katakana: Japanese, whose kana part its words."""
    return any(script_of(c) in {"Hiragana", "Katakana"} for c in text)


def kana_words(text: str) -> list[str]:
    """The content words of Japanese ``text`` by their script, in order: each run of Han
    characters or of katakana ("猫を二匹飼っています" -> 猫, 二匹飼). A character pair across a
    kana ending ("ます", "いま", "てい") is what any two statements share, not a word; the
    runs need no dictionary and keep a word's kanji whole."""
    found: list[str] = []
    word, kind = "", None
    for char in text:
        script = script_of(char)
        if script not in _JAPANESE_WORD_SCRIPTS:
            script = None
        if script is not None and script == kind:
            word += char
            continue
        if word:
            found.append(word)
        word, kind = (char, script) if script is not None else ("", None)
    if word:
        found.append(word)
    return found


def bigrams(run: str) -> list[str]:
    """Overlapping character pairs of a spaceless run ("東京都" -> 東京, 京都); a single
    character is its own term. A character is a letter with the marks that follow it (a Thai
    vowel sign belongs to its consonant)."""
    letters: list[str] = []
    for char in run:
        if letters and unicodedata.category(char)[0] == "M":
            letters[-1] += char
        else:
            letters.append(char)
    return ["".join(letters)] if len(letters) < 2 else [letters[i] + letters[i + 1] for i in range(len(letters) - 1)]


def pieces(token: str) -> list[tuple[str, str | None]]:
    """A term's indexable pieces with their script: spaceless runs as bigrams, the rest whole."""
    if token.isascii():
        return [(token, "Latin")]
    out: list[tuple[str, str | None]] = []
    for run, script in runs(token):
        if script in SPACELESS:
            out.extend((pair, script) for pair in bigrams(run))
        else:
            out.append((run, script))
    return out
