"""Which of a new fact's links to older facts stand, read over all of them at once.

:func:`.supersession_rule.supersedes` judges one pair at a time. A change told in words
("Планы поменялись: летом едем в Калининград, а не в Сочи.", "עזבתי את אינטל, ...") names the
older fact it changes by a word of the two (a shared topic word, a name, one attribute named
on both), and the cosine paths may link it besides to an unrelated short fact of the user's
("Я занимаюсь плаванием.", "אני אלרגי לבוטנים."), since in a language the embedder knows
little any two short statements of one person score high, above the chance level read for
that language too. One change tells one change: where a word of the two backs one link of a
new fact, a link the cosine alone makes for that same fact is the cosine's inflation, and is
dropped. A new fact linked by cosines alone keeps them (a change told in other words, "has
turned into a night owl" after "is a morning person"), as does one linked by words to
several older facts (each a value it names).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import MemoryRecord
from .supersession_rule import supersedes


def by_words(newer: MemoryRecord, older: MemoryRecord) -> bool:
    """Whether the rule links the two with every cosine taken away: a word of the two backs it."""
    return supersedes(newer, older, 0.0, None, 0.0, None)


def standing(newer: MemoryRecord, linked: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The older facts ``newer`` replaces, of those the rule linked it to one by one: the ones
    a word backs when any is, else all of them."""
    if len(linked) < 2:
        return list(linked)
    worded = [older for older in linked if by_words(newer, older)]
    return worded or list(linked)
