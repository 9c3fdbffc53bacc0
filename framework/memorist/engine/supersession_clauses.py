"""A fact read clause by clause: one clause of a long message may change an older fact while
the rest of the message tells other news, so the supersession rule reads each clause as a fact
of its own, behind the extractor's label, with the whole fact's subject where a clause names
none of its own.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..language import Boundary, split, tokens
from .supersession_lexicon import Lexicon, reading_lexicon
from .supersession_reading import Reading, read
from .supersession_speakers import SELF, SPEAKER_LABEL, statement_language, voiced
from .supersession_subjects import _names_speaker

#: Where a fact is read clause by clause: its sentences, and the clauses and phrases in them.
_CLAUSE_PARTS = Boundary.LINE | Boundary.SENTENCE | Boundary.CLAUSE | Boundary.PHRASE | Boundary.DASH
#: Most clauses of one fact read on their own: a reading's cost stays bounded for a long memory.
MAX_CLAUSES = 12


def sequence_pieces(part: str, lex: Lexicon) -> list[str]:
    """``part`` cut where a ``sequence_joiners`` row ("and then", "und dann") opens a clause
    past its first word, each piece stripped: dictated speech parts its clauses by these
    words alone ("so um the user works at tesco and then on saturdays they help ...")."""
    found = tokens(part)
    pieces, start, i = [], 0, 1
    while i < len(found):
        hit = lex.sequence_joiners.at(found, i)
        if hit is None:
            i += 1
            continue
        pieces.append(part[start : found[i].start])
        i += hit[0]
        start = found[i].start if i < len(found) else len(part)
    pieces.append(part[start:])
    return [piece.strip() for piece in pieces]


@lru_cache(maxsize=16_384)
def clause_readings(text: str) -> tuple[tuple[str, Reading, bool], ...]:
    """Each clause of a fact of several, read as a fact of its own, with its text (past the
    joiner that links it, behind the extractor's label): one clause of a long message may
    change a fact ("..., so they had to get a new number too, it's 312-555-0182 now. Also
    ..."), and the additive or other subject of another clause says nothing of it. A clause
    that names no subject of its own ("it's ... now", "so they ...") is about the fact's
    subjects; so is one about someone named (a conversation's two named people are told
    apart by the whole fact). Each with whether it names its subject itself (the speaker or a
    relative). Empty for a fact of one clause."""
    label = SPEAKER_LABEL.match(text)
    prefix = label.group(0) if label else ""
    lex = reading_lexicon(statement_language(text))
    parts = [
        piece
        for part in split(text[len(prefix) :], _CLAUSE_PARTS)
        for piece in sequence_pieces(part, lex)
        if piece.strip()
    ]
    if len(parts) < 2:
        return ()
    whole = read(text)
    out = []
    for part in parts[:MAX_CLAUSES]:
        found = tokens(part)
        while found and found[0].word in lex.clause_joiners:
            part = part[found[1].start :] if len(found) > 1 else ""
            found = tokens(part)
        if len(found) < 2:
            continue
        clause = prefix + part
        reading = read(clause)
        own = reading.subjects & ({SELF} | lex.others)
        if (
            own == {SELF}
            and whole.subjects <= lex.others | lex.partners
            and not _names_speaker([t.word for t in found], lex)
        ):
            # "муж ушёл из банка, теперь работает ...": a clause naming no one goes on about the
            # fact's relative (its verb's person is no word the reader sees).
            own = frozenset()
        if prefix and not voiced(prefix):
            # A preamble read as a label ("Long week: ..., and they started a new job", "Busy
            # week: the user's sister moved ..."): the clause's own subject stands past it.
            alone = read(part).subjects & ({SELF} | lex.others)
            if alone and (not own or alone - {SELF}):
                own, reading = alone, replace(reading, subjects=alone)
        out.append((clause, reading if own else replace(reading, subjects=whole.subjects), bool(own)))
    return tuple(out)


#: How many sentences of one fact are read on their own.
MAX_SENTENCES = 6


def sentence_adds(text: str, clause: str) -> bool:
    """Whether the sentence of ``text`` that holds ``clause`` (read behind the same label)
    says it adds to what was told."""
    prefix, sentences = labelled_sentences(text)
    body = (clause[len(prefix) :] if clause.startswith(prefix) else clause).strip()
    held = next((s for s in sentences if body and body in s), None)
    return read(prefix + held).additive if held is not None else read(text).additive


def labelled_sentences(text: str) -> tuple[str, list[str]]:
    """The extractor's label opening ``text`` ("The user: "; empty if none) and the sentences
    after it, each to be read behind the same label. Dictated speech runs its sentences on
    with "and then" (``sequence_joiners``): each piece is a sentence of its own, so the "also"
    of "... down to 84 kilos and then they also started swimming" adds only the swimming."""
    label = SPEAKER_LABEL.match(text)
    prefix = label.group(0) if label else ""
    lex = reading_lexicon(statement_language(text))
    return prefix, [
        piece
        for s in split(text[len(prefix) :], Boundary.SENTENCE | Boundary.LINE)
        for piece in sequence_pieces(s, lex)
        if piece.strip()
    ]
