"""How the supersession rule reads a fact as it was told: a speaker's announcement and a
listener's report unwrapped to the fact they wrap, and two facts read against each other.

A speaker often announces what they tell ("I wanted to let you know that ...", "Хочу сообщить,
что ...", "FYI ...", "...とお知らせします"): the frame is no part of the fact, and its words
mislead the reading ("would like to inform you" reads as a wish, "хочу" as a subject), so the
rule reads the fact after it, behind the speaker's label.

The assistant's turns are often bookkeeping around a fact ("Noted: ...", "I'll remember that
...", "So you live in ...", "...と覚えておきます"); the rule reads the fact inside, and what the
assistant notes of no one is its listener's. Two facts read side by side may show what one
alone cannot: a capitalized opening word the other holds in lowercase is no name, and a
reply's "she" is the person the older fact is about.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..language import DEFAULT, Boundary, Token, fold, lexicon, split, tokens
from .supersession_lexicon import (
    RECAP_OPENERS,
    RECORD_REQUESTS,
    REPORTING_OPENERS,
    TELLING_OPENERS,
    Lexicon,
    reading_lexicon,
    rule_lexicon,
)
from .supersession_openings import interjection_end
from .supersession_reading import Reading, read
from .supersession_rows import spaceless
from .supersession_speakers import ASSISTANT, SELF, SPEAKER_LABEL, statement_language, voiced
from .supersession_subjects import _SELF_POSSESSIVE, LISTENER_WINDOW, resolved
from .supersession_values import base

#: The marks a sentence ends with: a reporting opener counts where a sentence opens
#: ("Congratulations! Noted: you are now ...", "Поздравляю! Записал: ...").
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")
#: How far into a statement a reporting frame may open: "Thanks for letting me know, the
#: assistant will remember that ..." (past a courtesy), not deep in a long memory.
REPORTING_WINDOW = 10
#: The extractor's label of the user ("The user: "): a fact its rewritten voice announces
#: ("the user would like to inform you that their ...") is read behind it.
USER_LABEL = str(lexicon(DEFAULT).get("speakers", "user") or "the user").capitalize() + ": "
#: The marks after which an announcement opener opens its clause ("Hi, quick update: ...").
_CLAUSE_OPENS = (*_SENTENCE_ENDS, ",", ":", ";", "、", "，", "：")
#: The marks and spaces a statement closes with.
_CLOSES = " .!?。！？"
#: How many letters of a spaceless run may stand before an announcement inside it: the
#: speaker's pronoun ("我想告诉你", "ผมขอแจ้งให้ทราบว่า"), not a clause.
_INSIDE_LEAD = 3


@lru_cache(maxsize=16_384)
def told(text: str) -> str:
    """The fact a speaker's announcement frame wraps, behind the speaker's label, or ``text``:
    "The user: Хочу сообщить, что с 1 февраля я перешла в Сбер" is "The user: с 1 февраля я
    перешла в Сбер"; "Dear assistant, the user would like to inform you that their appointment
    moved" is "The user: their appointment moved" (the words before the frame name the user);
    "The user: 3月19日に変更になったとお知らせします" is "The user: 3月19日に変更になった".
    A frame counts within a statement's opening words, past a salutation; the openers
    (``telling_openers``: "FYI", "Quick update:") only where a clause opens. The frame's words
    would mislead the reading: "would like to" reads as a wish, "хочу" as a subject."""
    lex = reading_lexicon(DEFAULT)
    label = SPEAKER_LABEL.match(text)
    prefix = label.group(0) if label and voiced(label.group(0)) else ""
    body = text[len(prefix) :]
    found = tokens(body)
    code = statement_language(text)
    for i in range(min(len(found), REPORTING_WINDOW)):
        end = _telling_end(body, found, i, lex, code)
        if end is not None:
            rest = body[end:].lstrip(" ,:;-–—、，：")
            before = [t.word for t in found[:i]]
            if not rest.strip(_CLOSES) or any(_kin(word) for word in before):
                # "Mi hermana quería contarte que vive en Valencia": another person's news.
                return text
            if prefix or i == 0 or _past_interjections(found, i, code):
                return prefix + rest
            # The extractor's voice without a label: the fact is the user's only where the
            # words before the frame name the user ("Dear assistant, the user would like to ...").
            return USER_LABEL + rest if SELF in before else text
    folded = fold(body).rstrip(_CLOSES)
    for row in lex.telling_after:
        if folded.endswith(row) and len(folded) > len(row):
            # Where the row opens in ``body`` itself: folding may lengthen a letter ("İ").
            cut = next(at for at in range(len(body), -1, -1) if fold(body[at:]).rstrip(_CLOSES).endswith(row))
            fact = body[:cut].rstrip(" ,、，")
            return prefix + fact if fact.strip() else text
    return text


#: The rows that count only where a clause opens: elsewhere their words are a fact's own.
_OPENING_ROWS = (TELLING_OPENERS, RECORD_REQUESTS)


def _past_interjections(found: list[Token], i: int, code: str) -> bool:
    """Whether only interjections of language ``code`` (or the default's) stand before word
    ``i`` ("uh save my mate's number ...", "euh note le numéro ...")."""
    return i > 0 and interjection_end(found, 0, code) == i


def _kin(word: str) -> bool:
    """Whether ``word`` names a relative or a partner in any language ("sister", "hermana",
    "husband's"): a frame after one announces that person's news."""
    everyone = rule_lexicon()
    return bool({word, base(word)} & (everyone.others | everyone.partners))


def _telling_end(body: str, found: list[Token], i: int, lex: Lexicon, code: str) -> int | None:
    """Where in ``body`` an announcement frame opening at word ``i`` ends, or None: a row of
    words (an opener only where a clause opens), or a spaceless row inside the run, past the
    speaker's pronoun at most."""
    hit = lex.telling.at(found, i)
    if hit is not None and i + hit[0] < len(found):
        opens = i == 0 or body[: found[i].start].rstrip().endswith(_CLAUSE_OPENS) or _past_interjections(found, i, code)
        if opens or hit[1] not in _OPENING_ROWS:
            return found[i + hit[0] - 1].end
    run = found[i].word
    if not lex.telling_inside or not spaceless(run) or len(fold(body[found[i].start : found[i].end])) != len(run):
        return None
    for row in lex.telling_inside:
        at = run.find(row)
        if 0 <= at <= _INSIDE_LEAD and at + len(row) < len(run):
            return found[i].start + at + len(row)
    return None


@lru_cache(maxsize=16_384)
def reported(text: str) -> str:
    """The fact a listener's reporting frame wraps, with the extractor's label, or ``text``:
    "The assistant will remember that the user's manager is now Angela Kim." is the fact
    "the user's manager is now Angela Kim."; "The assistant: Je retiens que tu vis à Lyon"
    is "The assistant: tu vis à Lyon"; "上司は田中さんだと覚えておきます" is "上司は田中さんだ".
    An opener counts where a sentence opens: "Поздравляю! Записал: вы финансовый менеджер"
    is "вы финансовый менеджер" (the congratulation before it tells no fact)."""
    lex = reading_lexicon(DEFAULT)
    label = SPEAKER_LABEL.match(text)
    prefix = label.group(0) if label and voiced(label.group(0)) else ""
    body = text[len(prefix) :]
    found = tokens(body)
    # Only the listener reports: "The user noted that the train was late" is the user's fact.
    listener = prefix and prefix.strip(": \t").split()[-1].casefold() == ASSISTANT
    if not listener and ASSISTANT not in (t.word for t in found[:LISTENER_WINDOW]):
        return text
    for i in range(min(len(found), REPORTING_WINDOW)):
        hit = lex.reporting.at(found, i)
        opens = i == 0 or body[: found[i].start].rstrip().endswith(_SENTENCE_ENDS)
        if hit is not None and i + hit[0] < len(found) and (opens or hit[1] not in _OPENERS):
            rest = body[found[i + hit[0] - 1].end :].lstrip(" ,:;\u3001\uff0c")
            if hit[1] == RECAP_OPENERS and not _one_clause(rest, lex):
                # "So it's Spanish on Duolingo and now Japanese on Wednesdays": a recap of two
                # things tells the older beside the newer, no note of one fact.
                return text
            return prefix + rest
    folded = fold(body).rstrip(" .!。！")
    for row in lex.reporting_after:
        if folded.endswith(row) and len(folded) > len(row):
            return prefix + body[: len(folded) - len(row)]
    return text


def read_reported(text: str) -> tuple[str, Reading]:
    """The fact ``text`` tells (see :func:`told` and :func:`reported`) and its reading. What the assistant says
    it notes, and names no one in ("Σημείωσα ότι τώρα οδηγείς Toyota", "I noted: now at
    Spotify"), is its listener's fact: a note the assistant takes is of what it was told, and
    a language that says the person by the verb's ending alone names no listener by a word.
    So is what it says of the user's attribute past its own subject ("The assistant will use
    £44,500 as the user's salary")."""
    spoken = told(text)
    wrapped = reported(spoken)
    reading = read(wrapped)
    if reading.subjects <= {ASSISTANT} and not reading.owners and (wrapped != spoken or _users_attribute(wrapped)):
        reading = replace(reading, subjects=frozenset({SELF}))
    return wrapped, reading


def _users_attribute(text: str) -> bool:
    """Whether ``text`` names the user's attribute by the extractor's possessive ("The assistant
    will use £44,500 as the user's salary"): what the assistant says of it is the user's fact."""
    lex = reading_lexicon(DEFAULT)
    found = [t.word for t in tokens(text)]
    return any(w == _SELF_POSSESSIVE and base(n) in lex.attributes for w, n in zip(found, found[1:], strict=False))


#: The reporting rows that count only where a sentence opens.
_OPENERS = frozenset({REPORTING_OPENERS, RECAP_OPENERS})
_CLAUSES = Boundary.SENTENCE | Boundary.CLAUSE | Boundary.PHRASE


def _one_clause(text: str, lex: Lexicon) -> bool:
    """Whether ``text`` is one clause: no mark and no joining word parts it."""
    parts = [part for part in split(text, _CLAUSES) if part.strip()]
    return len(parts) == 1 and not any(t.word in lex.clause_joiners for t in tokens(text))


def opening_as_word(reading: Reading, other: Reading) -> Reading:
    """``reading`` with its opening "name" read as a word where ``other`` holds that word in
    lowercase among its topic words: a capital opening a sentence is no sign of a name, and a
    language that drops its pronoun opens with a verb ("Οδηγώ ένα Fiat Panda" / "τώρα οδηγείς
    Toyota", "Přešel jsem k T-Mobilu"). Names stay out of the topic ("Emma" changes nothing of
    "Lisbon"); a word told in lowercase elsewhere is no name, so it joins the topic and leaves
    the subjects and names."""
    if reading.opening is None or not reading.opening[2] & other.topic:
        return reading
    word, name, words = reading.opening
    return replace(
        reading,
        topic=reading.topic | words,
        subjects=reading.subjects - {word},
        names=reading.names - {name},
        opening=None,
    )


def read_pair(newer: str, older: str) -> tuple[tuple[str, Reading], tuple[str, Reading]]:
    """Each fact as its reporting frame wraps it, and read against the other: a word each holds
    (an opening capital that is no name), the newer's third person as the older's person."""
    (newer_text, new), (older_text, old) = read_reported(newer), read_reported(older)
    new, old = opening_as_word(new, old), opening_as_word(old, new)
    new = replace(new, subjects=resolved(new.subjects, old.subjects))
    return (newer_text, new), (older_text, old)
