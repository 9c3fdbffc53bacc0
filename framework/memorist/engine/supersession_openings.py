"""How a message opens, as the supersession rule reads it: the interjections, greetings and
discourse openers before what it says ("Oh iya, ...", "btw ..."), and whether its first clause
says a state goes on ("Still at the bank, ...").
"""

from __future__ import annotations

from ..language import DEFAULT, Boundary, Token, split, tokens
from ..language.phrases import phrases
from .supersession_lexicon import Lexicon
from .supersession_rows import spaceless
from .supersession_speakers import SPEAKER_LABEL
from .supersession_subjects import _REPLY_WORDS, _replied_by_user
from .supersession_values import base, state_opening

__all__ = ["first_clause_continues", "interjection_end", "past_interjection", "past_time_word"]


#: What may close an opening interjection ("Oh iya, istriku ...", "Ha, no: ...").
_INTERJECTION_CLOSERS = frozenset(",:;!-–—")


def past_interjection(text: str, found: list[Token], code: str) -> str:
    """``text`` (its tokens: ``found``) without the interjections, greetings and thanks that
    open what the speaker said, up to the punctuation closing them: "The user: Oh iya, istriku
    juga baru naik gaji" is about the wife, as "istriku juga baru naik gaji" is, not about "oh"."""
    label = SPEAKER_LABEL.match(text)
    start = next((i for i, t in enumerate(found) if t.start >= label.end()), len(found)) if label else 0
    at = interjection_end(found, start, code)
    if at == start or at >= len(found):
        return text
    closed = any(c in _INTERJECTION_CLOSERS for c in text[found[at - 1].end : found[at].start])
    # A discourse opener ("btw", "anyway") is never what a message is about: it needs no comma,
    # nor does a dictated "and then" going on from what was said before.
    if not closed and interjection_end(found, start, code, ("openers", "sequence_joiners")) < at:
        return text
    return text[: label.end()] + text[found[at].start :] if label else text[found[at].start :]


#: How far past a change word a relative makes it the possessive's ("Now my sister", "Giờ mẹ tôi").
RELATIVE_WINDOW = 2


def past_time_word(text: str, lex: Lexicon) -> str:
    """``text`` without a word saying the change that opens what the speaker said, when the
    speaker's or the listener's possessive or a relative follows it: "The user: Ahora mi
    madre vive con nosotros" is about the mother, as "Mi madre ahora vive ..." is, "Now my
    mum lives with us" about the mum, and the assistant's "Ahora tu madre vive ..." about the
    listener's mother. Before anything else ("Now lives in Porto", "Today is ...") the
    word stays: what follows it names no one."""
    label = SPEAKER_LABEL.match(text)
    start = label.end() if label else 0
    found = tokens(text[start:])
    at = 0
    while at < len(found):
        if found[at].word in lex.change_words or found[at].word in lex.change_openers:
            at += 1
        elif match := lex.now_words.at(found, at):
            at += match[0]
        elif (opened := state_opening(found, at, lex, lex.dates)) is not None and opened[1]:
            at = opened[0]  # "As of March my sister's rent ...", "Ab Juli meine Miete ..."
        else:
            break
    if 0 < at < len(found) - 1 and found[at].word in lex.articles:
        at += 1  # "As of March the user's sister's rent ...": the extractor's voice
    if at == 0 or at >= len(found):
        return text
    opening = base(found[at].word)
    if not (opening in lex.speaker or opening in lex.listener or _relative(opening, lex)):
        return text
    if not any(_relative(base(t.word), lex) for t in found[at : at + RELATIVE_WINDOW]):
        # "Bây giờ tôi có ba đứa con": the speaker's word with no relative after it is the
        # speaker, and the statement's subject reading keeps its opening.
        return text
    return text[:start] + text[start + found[at].start :]


def _relative(word: str, lex: Lexicon) -> bool:
    return word in lex.others or word in lex.partners


def interjection_end(
    found: list[Token],
    start: int,
    code: str,
    rows: tuple[str, ...] = ("thanks", "greetings", "fillers", "openers", "sequence_joiners"),
) -> int:
    """Where the run of interjections, greetings, thanks and discourse openers (of ``rows``)
    from ``start`` ends (``start`` itself when none opens there)."""
    # The language's own and the default's: "ok", "wow" open messages typed in any language.
    lists = [phrases(*rows, language=c) for c in dict.fromkeys((code, DEFAULT))]
    at = start
    while at < len(found) and (match := next((m for f in lists if (m := f.at(found, at))), None)) is not None:
        at += match[0]
    return at


def opens_as_condition(text: str, lex: Lexicon) -> bool:
    """Whether the statement opens as a condition ("if the user moved to Berlin they would
    ...", "wenn ich nach Berlin ziehen würde", "如果我搬到北京"): it supposes a state, and no
    state of now gives way to it. Only the opening counts: "not sure if I told you, I moved"
    tells a move."""
    label = SPEAKER_LABEL.match(text)
    said = text[label.end() :] if label else text
    body = tokens(said)
    if not body:
        return False
    hit = lex.conditions.at(body, 0)
    if hit is not None:
        # "Sí, vivo en Madrid", "Si, j'habite ...": a word a comma closes is a reply, no "if".
        return not said[body[hit[0] - 1].end :].lstrip().startswith(",")
    opening = body[0].word  # a run opening with its condition word: "如果我搬到北京"
    return opening.startswith(lex.condition_runs) if lex.condition_runs else False


def first_clause_continues(text: str, lex: Lexicon) -> bool:
    """Whether the first clause of what the speaker said tells that a state goes on ("Still at
    the insurance company btw, ..."): a later clause's "still" ("the kids are still adjusting")
    is another thing's. In a reply's frame ('The assistant asked "Still at the bakery?" The user
    replied: ...') it is the reply's first clause: the question's words are the assistant's."""
    if _replied_by_user(text):
        text = text.split(_REPLY_WORDS, 1)[1]
    label = SPEAKER_LABEL.match(text)
    parts = [p for p in split(text[label.end() :] if label else text, _FIRST_CLAUSE) if p.strip()]
    if not parts:
        return False
    first = tokens(parts[0])
    runs = [t.word for t in first if spaceless(t.word)]
    return lex.continuations.anywhere(first) or "continuation_words" in lex.inside_kinds(runs)


#: What ends a fact's first clause.
_FIRST_CLAUSE = Boundary.LINE | Boundary.SENTENCE | Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE
