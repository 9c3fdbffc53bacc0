"""An assistant's echo of the user's fact goes with the fact it echoes.

A chat add often holds the user's statement and the assistant's confirmation of it: "Trabajo
de enfermera en el Hospital La Paz." / "Entendido, trabajas como enfermera en el Hospital La
Paz.". The add stores both (the assistant's words are a memory of their own), and a later
change of the user's ("Dejé el hospital; ahora trabajo en ...") replaces the user's statement
by the rule (:mod:`.supersession_rule`). The confirmation is the same fact, but the rule reads
it as the assistant's: where the extractor keeps the words as said, nothing in "trabajas ..."
names the user to a reader of any language but the one whose verb ending says "you". So the
echo is recognised by structure, not by words of any language: a memory of the assistant's
stored by the same add as the user's replaced fact (one observation time, one scope) that
repeats most of that fact's terms (its values: the number, the place, the role) is replaced
with it. The assistant's own facts of that add that repeat little ("C'est super !") and
the user's other facts are left alone; an assistant memory is never the one that carries a
user's fact away (the direction is only user fact -> its echo).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..records import MemoryRecord
from .keywords import terms
from .supersession_agreement import STEM_LETTERS

__all__ = ["ECHO_SHARE", "ECHO_STEM", "echoes", "echoes_of"]

#: Share of the user's fact's terms the assistant's memory repeats to be its echo. A
#: confirmation restates the value and mostly the frame ("Telefon numaram 0532 412 78 90." /
#: "Kaydettim: telefon numaran 0532 412 78 90.": 5 of 6); an assistant fact of its own in the
#: same add shares a word or two ("Je joue du piano ..." / "C'est super, vous jouez du piano
#: ...": the instrument, 1 of 3 terms after the label).
ECHO_SHARE = 0.5
#: Letters two terms share at their start to be one word told by each party: the assistant
#: says the user's word in the second person ("работаю" / "работаете", "resepsiyonist" /
#: "resepsiyonistsin"), an ending the rule's :data:`STEM_LETTERS` would leave one letter short of.
ECHO_STEM = STEM_LETTERS - 1
#: The extractor's label in front of a kept statement ("The user: ", "The assistant: ").
_LABEL = re.compile(r"^\s*the (?:user|assistant)\s*:\s*", re.IGNORECASE)
_USER = "user"
_ASSISTANT = "assistant"


def _terms(text: str) -> set[str]:
    return set(terms(_LABEL.sub("", text)))


def _found(term: str, others: set[str]) -> bool:
    """Whether ``term`` or a form of it (the same first :data:`ECHO_STEM` letters) is among ``others``."""
    if term in others:
        return True
    return any(min(len(term), len(o)) >= ECHO_STEM and term[:ECHO_STEM] == o[:ECHO_STEM] for o in others)


def echoes(echo: MemoryRecord, fact: MemoryRecord) -> bool:
    """Whether ``echo`` is the assistant's confirmation of the user's ``fact`` stored by the same
    add: the assistant's, the fact the user's, one scope, speaker and observation time, told after
    the fact, and at least :data:`ECHO_SHARE` of the fact's terms repeated (in the same or
    another form)."""
    if echo.id == fact.id or (echo.attributed_to or "") != _ASSISTANT or (fact.attributed_to or "") != _USER:
        return False
    if echo.scope != fact.scope or (echo.speaker or "") != (fact.speaker or ""):
        return False
    if echo.observed_at != fact.observed_at:
        return False
    if (
        echo.source_message is not None
        and fact.source_message is not None
        and echo.source_message <= fact.source_message
    ):
        return False  # a confirmation follows what it confirms
    own = _terms(fact.text)
    if not own:
        return False
    said = _terms(echo.text)
    return sum(_found(t, said) for t in own) >= ECHO_SHARE * len(own)


def echoes_of(replaced: Sequence[MemoryRecord], candidates: Iterable[MemoryRecord]) -> list[MemoryRecord]:
    """The ``candidates`` that echo one of the ``replaced`` facts (each once, none of them
    replaced already)."""
    gone = {r.id for r in replaced}
    out: dict[str, MemoryRecord] = {}
    for candidate in candidates:
        if candidate.id in gone or candidate.id in out:
            continue
        if any(echoes(candidate, fact) for fact in replaced):
            out[candidate.id] = candidate
    return list(out.values())
