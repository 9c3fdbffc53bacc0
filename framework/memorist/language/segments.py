"""Sentences and clauses of a text, in every script the lexicons cover: the one segmenter.

A boundary has a kind, and each reader asks for the kinds it needs: the extractor cuts a
message into sentences (a line break, a full stop, a question or exclamation mark), the
keyword index detects a language per clause (a sentence's end, a semicolon or a colon),
the supersession rule reads who each clause of a fact is about (a semicolon, a colon or a
comma), the reading of relative dates keeps a time word with its own clause (every mark
below, dashes and brackets too). The marks of each kind are listed once here, for every
script: "。！？" end a Chinese or Japanese sentence, "؟" an Arabic question, "।" a Hindi
sentence, "،" and "、" are commas, "؛" and "；" semicolons.

A Western mark (".", ",", ";", ":") parts only before a space or the text's end, so
"3.5", "1,200", "10:30" and "e.g." stay whole; a full-width mark of Chinese and Japanese
parts where it stands, since those scripts put no space after it. Which words part a
clause ("and I ...", "because ...") is a lexicon's data, passed in by the reader.

A full stop after an abbreviation (the lexicons' ``abbreviations``: "Dr.", "e.g.") or a
name's initial ("J.K. Rowling") ends no sentence, and neither does one before a lower-case
word. Thai writes no mark at a sentence's end (a space parts it, as it parts phrases), so a
Thai line is one sentence. Which marks open or close a sentence around its words (brackets,
quotes of every language, Spanish "¿" and "¡") is read from Unicode's categories, and
:func:`at_sentence_start` is the one answer to whether a word opens a sentence.

Why not a library: pySBD took fifty times the time of this splitter per LoCoMo turn and
reads English only; ICU's sentence iterator (PyICU) reads every script and is faster, but
LoCoMo recall was no better with it, it gives no weaker kinds of boundary, and its only
wheels are a third party's. See docs/language.md.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from functools import lru_cache

from .lexicon import fold, languages, lexicon
from .phrases import tokens
from .scripts import CASELESS, script_of


class Boundary(enum.IntFlag):
    """The kinds of boundary, strongest first; a reader combines those it parts at."""

    #: A line break: always a sentence's end.
    LINE = enum.auto()
    #: A full stop, a question or an exclamation mark, an ellipsis.
    SENTENCE = enum.auto()
    #: A semicolon: two clauses of one sentence.
    CLAUSE = enum.auto()
    #: A colon: what a preamble announces ("Some background: they live in Denver").
    COLON = enum.auto()
    #: A comma: a phrase or a clause of a list.
    PHRASE = enum.auto()
    #: An em or en dash: an aside.
    DASH = enum.auto()
    #: A hyphen between spaces ("mental health - I'd love to"), an aside typed without a dash.
    HYPHEN = enum.auto()
    #: A parenthesis or a bracket.
    BRACKET = enum.auto()


#: Marks written before a space (Latin, Greek, Cyrillic, Hebrew, Arabic, Devanagari and
#: Ethiopic writing), by kind. Greek's question mark (U+037E) ends a sentence; its ";" is a
#: semicolon as everywhere (text is not read as Greek for it).
_SPACED: dict[Boundary, str] = {
    Boundary.SENTENCE: ".!?…‼⁇⁈⁉\u037e؟۔।॥።፧",
    Boundary.CLAUSE: ";؛፤",
    Boundary.COLON: ":፥",
    Boundary.PHRASE: ",،፣",
    Boundary.HYPHEN: "-",
}
#: Marks that part where they stand: full-width marks of Chinese and Japanese (no space
#: follows them), dashes and brackets (an aside may touch its words: "Porto—for now").
_STANDING: dict[Boundary, str] = {
    Boundary.LINE: "\n",
    Boundary.SENTENCE: "。！？｡",
    Boundary.CLAUSE: "；",
    Boundary.COLON: "：",
    Boundary.PHRASE: "，、､",
    Boundary.DASH: "—–",
    Boundary.BRACKET: "()[]（）［］",
}
#: The marks that end a question, in every script ("?", "？", "؟", Greek's U+037E).
QUESTION_MARKS = ("?", "？", "؟", "\u037e")
#: Marks written before a sentence, by kind: Spanish opens a question with "¿" and an
#: exclamation with "¡" (Unicode files both as plain punctuation, Po, like "?" itself).
_LEADING: dict[Boundary, str] = {Boundary.SENTENCE: "¿¡"}


@lru_cache(maxsize=1024)
def _quote(char: str) -> bool:
    """Whether ``char`` is a quotation mark of any script, by Unicode: an initial or final
    quote (Pi, Pf: "“", "»", "’"), a mark named one ('"', "„", "＂", "〝") or the apostrophe.
    Which way a quote faces differs by language ("»Ja«" in German, "« oui »" in French,
    "„ja“"), so a reader tells an opening quote from a closing one by where it stands."""
    category = unicodedata.category(char)
    return (
        category in ("Pi", "Pf")
        or (category[0] == "P" and "QUOTATION MARK" in unicodedata.name(char, ""))
        or char == "'"
    )


@lru_cache(maxsize=1024)
def opening_mark(char: str) -> bool:
    """Whether ``char`` may stand before a sentence's first word: an opening bracket (Ps:
    "(", "「", "（", "„"), a quote, or a mark that opens a sentence ("¿", "¡")."""
    return bool(char) and (unicodedata.category(char) == "Ps" or _quote(char) or char in _LEADING[Boundary.SENTENCE])


@lru_cache(maxsize=1024)
def closing_mark(char: str) -> bool:
    """Whether ``char`` may close a sentence after its mark ('"Done." Then ...'): a closing
    bracket (Pe: ")", "」", "）") or a quote."""
    return bool(char) and (unicodedata.category(char) == "Pe" or _quote(char))


#: The brackets and quotes of the scripts the lexicons cover (Latin-1 to CJK punctuation,
#: and the full-width forms), for the patterns below.
_MARKS = "".join(chr(c) for c in (*range(0x3040), *range(0xFE30, 0xFF70)) if unicodedata.category(chr(c))[0] == "P")
#: What may close a sentence after its mark ('"Done." Then', "„Fertig.“ Dann").
_CLOSERS = "".join(c for c in _MARKS if closing_mark(c))


def _class(marks: str) -> str:
    return "".join(re.escape(c) for c in marks)


@lru_cache(maxsize=32)
def _pattern(at: Boundary, within_words: bool = False) -> re.Pattern[str]:
    """A run of boundary marks of the kinds ``at``, with the spaces around it."""
    spaced = _class("".join(marks for kind, marks in _SPACED.items() if kind & at))
    standing = _class("".join(marks for kind, marks in _STANDING.items() if kind & at))
    units = []
    if spaced:  # a Western mark parts before a space or the end, past a closing quote
        units.append(rf"[{spaced}]+" if within_words else rf"[{spaced}]+[{_class(_CLOSERS)}]*(?=\s|$)")
    if standing:
        units.append(rf"[{standing}]+")
    unit = "|".join(units) or r"(?!)"
    return re.compile(rf"(?:{unit})(?:\s*(?:{unit}))*\s*")


def boundaries(text: str, at: Boundary, *, within_words: bool = False) -> list[tuple[int, int]]:
    """Where ``text`` parts at a boundary of the kinds ``at``: the span of each run of marks
    with the spaces around it, in order. ``within_words``: a Western mark parts inside a
    run of letters too ("3.5", "ana@mail.com" in pieces)."""
    spans = []
    for match in _pattern(at, within_words).finditer(text):
        start = match.start()
        while start and text[start - 1].isspace():  # the spaces before the marks (found from
            start -= 1  # the marks: a pattern opening with spaces is tried at every space)
        spans.append((start, match.end()))
    return spans


def split(text: str, at: Boundary, *, within_words: bool = False) -> list[str]:
    """``text`` cut at every boundary of the kinds ``at``, the marks and the spaces after them
    left out (pieces may be empty, as with :func:`re.split`: a text opening with a mark has
    an empty first piece; a space before a mark stays with the piece before it)."""
    return _pattern(at, within_words).split(text)


def join_sentences(left: str, right: str) -> str:
    """Two sentences as one text: a space between them, none after a full-width stop
    ("猫が好きです。犬も好きです。")."""
    if not left or not right:
        return left or right
    return f"{left}{right}" if left.endswith(tuple(_STANDING[Boundary.SENTENCE])) else f"{left} {right}"


def has_boundary(text: str, at: Boundary) -> bool:
    """Whether ``text`` (the gap between two words, say) holds a boundary of the kinds ``at``."""
    return bool(boundaries(text, at))


def opening_break(text: str, at: Boundary, joiners: frozenset[str] = frozenset()) -> int:
    """Where the break ``text`` opens with ends: marks of the kinds ``at`` and words of
    ``joiners`` (a lexicon's "and", "because"), with the spaces between; 0 when ``text``
    opens with neither (", and my partner is joining" -> the offset of "my")."""
    pattern = _pattern(at)
    words = tokens(text) if joiners else []
    end, word = 0, 0
    while True:
        mark = pattern.match(text, len(text) - len(text[end:].lstrip()))
        if mark is not None:
            end = mark.end()
            continue
        while word < len(words) and words[word].start < end:
            word += 1
        if word < len(words) and words[word].word in joiners and not text[end : words[word].start].strip():
            end = words[word].end
            word += 1
            continue
        break
    return len(text) - len(text[end:].lstrip()) if end else 0


@lru_cache(maxsize=1)
def abbreviations() -> tuple[str, ...]:
    """Every lexicon's ``abbreviations`` (folded, each with its dots): a full stop closing
    one ends no sentence ("Dr. Lee", "e.g. tea")."""
    return tuple(sorted({word for code in languages() for word in lexicon(code).words("abbreviations")}))


@lru_cache(maxsize=1)
def _longest_abbreviation() -> int:
    return max(map(len, abbreviations()), default=0)


def _after_abbreviation(head: str) -> bool:
    """Whether ``head`` ends with an abbreviation standing as a word of its own."""
    if not head.endswith("."):
        return False  # every abbreviation closes with its full stop
    tail = fold(head[-_longest_abbreviation() - 1 :])  # folded once, not once per abbreviation
    for word in abbreviations():
        if tail.endswith(word):
            before = tail[-len(word) - 1 : -len(word)]
            if not before or not (before.isalnum() or before == "_"):
                return True
    return False


#: The lexicons' lists of words that are no name: function words ("the", "dann"), words that
#: open a sentence capitalized ("Honestly", "Take"), and those opening a time ("In March").
_NO_NAME_LISTS = ("function_words", "entity_sentence_capitals", "not_names")


@lru_cache(maxsize=1)
def _no_names() -> frozenset[str]:
    """Every lexicon's words that are no name (folded): a capitalized one after a capital
    letter's full stop opens a sentence, and the letter was no initial."""
    return frozenset(fold(word) for code in languages() for key in _NO_NAME_LISTS for word in lexicon(code).words(key))


#: A word as :func:`_closes_initial` reads the one after an initial ("Tolkien's", "O'Brien").
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")


def _closes_initial(text: str, dot: int) -> bool:
    """Whether the full stop at ``dot`` closes an initial of a name, and so ends no sentence:
    a single capital letter (of any script with case) standing as a word of its own, then
    another such letter with its stop ("J.K. Rowling", "А. С. Пушкина") or a capitalized
    word that is no lexicon's function word or sentence opener ("J. R. R. Tolkien's").

    A mechanism, not a list of names: a name's initials are capitals closed by a stop, and
    a name is none of the lexicons' words that are no name (:data:`_NO_NAME_LISTS`). So "I
    live in Apt. B. Then I moved." parts after "B." ("Then" is a function word; "apt." is an
    abbreviation of the English lexicon), and so does "It's vitamin D. Take it daily.", while
    "We chose plan B. Anna agreed." and "So did I. Anna came." stay one sentence: a capital
    letter alone before a name reads as an initial, since joining two sentences loses less
    than cutting a name in two."""
    letter = text[dot - 1 : dot]
    if not letter.isupper() or (dot >= 2 and (text[dot - 2].isalnum() or text[dot - 2] == "_")):
        return False
    rest = text[dot + 1 :].lstrip()
    if not rest[:1].isupper():
        return False
    if rest[1:2] == ".":
        return True  # the next initial
    word = _WORD.match(rest)
    return word is not None and fold(word.group()) not in _no_names()


def _first_letter(text: str, start: int) -> str:
    """The first sign of ``text`` from ``start`` past spaces and opening marks ("¿", "«", "("),
    or "" at the end."""
    while start < len(text) and (text[start].isspace() or opening_mark(text[start])):
        start += 1
    return text[start : start + 1]


def _opens_sentence(char: str) -> bool:
    """Whether a sentence may open with ``char``: a capital, a digit, or a letter of a
    script without case."""
    if not char:
        return False
    return char.isupper() or char.isdigit() or script_of(char) in CASELESS


#: The boundaries after which a capital says nothing of a name: a sentence's end, a
#: semicolon, a colon ("Note: Tea is ready" is no name "Tea"). Read by the versions of a
#: fact (a capital not opening a sentence is a value) and the rule-based entity extractor.
CAPITALS_OPEN_AFTER = Boundary.SENTENCE | Boundary.CLAUSE | Boundary.COLON


@lru_cache(maxsize=8)
def _ending_marks(at: Boundary) -> tuple[str, str]:
    """The marks of the kinds ``at``: those that part before a space, those that part where they stand."""
    spaced = "".join(marks for kind, marks in _SPACED.items() if kind & at)
    standing = "".join(marks for kind, marks in _STANDING.items() if kind & at)
    return spaced, standing


def at_sentence_start(text: str, position: int, at: Boundary = Boundary.SENTENCE) -> bool:
    """Whether ``position`` of ``text`` opens a sentence (so a word put there is capitalized,
    and a capital there is no sign of a name): the text's start, or after a line break, a
    mark of the kinds ``at`` (the segmenter's marks of every script: ".", "。", "؟", "।"...),
    an opening bracket, or a mark that opens a sentence ("¿", "¡"), with spaces between.

    The one notion of a sentence's start for every reader. A quote right before the word
    opens it ('He said: "you'); a quote or a closing bracket further back is passed over
    ('"Done." Then', "(sic). Then"). A Western mark touching the word parts nothing
    ("3.5", "J.K"), as in :func:`boundaries`; an abbreviation's full stop ends no sentence
    ("e.g. you", "Dr. Lee")."""
    spaced, standing = _ending_marks(at)
    i = position
    while i > 0:
        char = text[i - 1]
        if char == "\n":
            return True
        if char.isspace():
            i -= 1
        elif opening_mark(char) and (i == position or not _quote(char)):
            return True  # an opening bracket, "¿" or a quote touching the word
        elif closing_mark(char):
            i -= 1
        else:
            break
    if i == 0:
        return True
    last = text[i - 1]
    if last in standing:
        return True
    if last not in spaced or not any(char.isspace() for char in text[i:position]):
        return False
    return last != "." or not (_after_abbreviation(text[:i]) or _closes_initial(text, i - 1))


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order. A line break always ends one; a full
    stop (of any script) does unless the next word opens in lower case or, for ".", an
    abbreviation or a name's initial ends there ("J.K. Rowling", "А. С. Пушкина")."""
    out: list[str] = []
    for line in split(text.strip(), Boundary.LINE):
        start = 0
        for begin, end in boundaries(line, Boundary.SENTENCE):
            if end < len(line) and not _opens_sentence(_first_letter(line, end)):
                continue
            run = line[begin:end]
            marks = run.strip().rstrip(_CLOSERS)
            last = begin + len(run) - len(run.lstrip()) + len(marks)
            if marks.endswith(".") and (_after_abbreviation(line[:last]) or _closes_initial(line, last - 1)):
                continue
            out.append(line[start:end].strip())
            start = end
        out.append(line[start:].strip())
    return [s for s in out if s]
