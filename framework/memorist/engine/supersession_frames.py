"""Where a lexicon's rows told in parts stand in a fact: a change or a negation told around
its object ("move … to", "ne … plus") and a change told in the passive, whose words before
it name the thing changed ("offsite got moved to denver").

The rule reads a fact once per older fact it is weighed against, and a memory may be long
(an import's line), so rows are looked up where their first word stands rather than tried
at every token.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..language import Token
from .supersession_lexicon import Lexicon
from .supersession_rows import Gapped
from .supersession_speakers import SPEAKER_LABEL

__all__ = ["MAX_GAP", "PASSIVE_SUBJECT", "around", "passive_subject"]


#: Most words before a passive change read as the thing changed ("the team offsite").
PASSIVE_SUBJECT = 4


def passive_subject(text: str, found: list[Token], lex: Lexicon) -> list[Token] | None:
    """The words of the clause before a passive change row ("offsite" in "offsite got moved
    to denver", "Die Feier" in "Die Feier wurde auf Sonntag verschoben"), at most
    :data:`PASSIVE_SUBJECT`; None when the fact holds no such row. The clause opens after the
    extractor's label, a clause mark or a joiner."""
    label = SPEAKER_LABEL.match(text)
    opening = label.end() if label else 0
    words = [t.word for t in found]
    at = _positions(words)
    for head, tail in lex.passive_changes:
        for i in at.get(head[0], ()):
            if i > len(found) - len(head) or tuple(words[i : i + len(head)]) != head:
                continue
            end = i + len(head)
            if tail and not any(
                tuple(words[j : j + len(tail)]) == tail and not _BREAKS & set(text[found[end - 1].end : found[j].start])
                for j in range(end, min(len(found), end + MAX_GAP + 2))
            ):
                continue
            before = [t for t in found[:i] if t.start >= opening and not _BREAKS & set(text[t.end : found[i].start])]
            cut = max((k + 1 for k, t in enumerate(before) if t.word in lex.clause_joiners), default=0)
            subject = before[cut:][-PASSIVE_SUBJECT:]
            if subject:
                return subject
    return None


def _positions(words: list[str]) -> dict[str, list[int]]:
    """Where each word stands, in order: a row is looked for only where its first word is, so
    reading a long memory costs its length once, not its length times the lexicon's rows."""
    at: dict[str, list[int]] = {}
    for k, word in enumerate(words):
        at.setdefault(word, []).append(k)
    return at


#: Most words between a gapped row's two parts ("moved the team dinner to", "ne bois plus").
MAX_GAP = 3
#: Marks that end a clause: a gapped row does not reach across one.
_BREAKS = frozenset(".,;:!?")


def around(
    text: str, found: list[Token], frames: tuple[Gapped, ...], joiners: frozenset[str] = frozenset()
) -> list[list[Token]]:
    """The gaps of each gapped row (``change_frames``: "move … to"; ``negation_frames``: "ne
    … plus") ``found`` holds within a clause: one to :data:`MAX_GAP` words, none of them one
    of ``joiners`` ("and"). A row's last word before the gap may be an elided one ("n'" of
    "n'aime").

    Public: the reading (:mod:`.supersession_reading`) reads ``change_frames`` with it, the restated rule
    (:mod:`.supersession_restated`) ``negation_frames``."""
    out = []
    words = [t.word for t in found]
    at = _positions(words)
    for head, tail in frames:
        if len(head) == 1 and head[0].endswith("'"):
            # An elided one-word row ("n'") opens on any word it starts ("n'aime").
            starts: Iterable[int] = (k for k, word in enumerate(words) if word.startswith(head[0]))
        else:
            starts = at.get(head[0], ())
        for i in starts:
            if i >= len(found) - len(head) - len(tail):
                continue
            opening = words[i : i + len(head)]
            elided = head[-1].endswith("'") and opening[-1].startswith(head[-1])
            if opening[:-1] != list(head[:-1]) or not (opening[-1] == head[-1] or elided):
                continue
            after = i + len(head) - (1 if elided else 0)
            for close in range(after + 1, min(after + MAX_GAP, len(found) - len(tail)) + 1):
                if tuple(t.word for t in found[close : close + len(tail)]) != tail:
                    continue
                gap = found[after:close]
                # "keep pushing and working to ...": a joiner in the gap joins two verbs, no object.
                if not _BREAKS & set(text[found[after].start : found[close].start]) and not any(
                    t.word in joiners for t in gap
                ):
                    out.append(found[after:close] if not elided else [])
                break
    return out
