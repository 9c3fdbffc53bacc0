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

from ..language.han_numerals import han_digits
from ..language.morphology import bears_proclitic
from ..language.scripts import WORD, has_kana, kana_words, script_of
from ..records import MemoryRecord
from .keywords import index_terms, terms
from .supersession_agreement import STEM_LETTERS
from .supersession_lexicon import rule_lexicon
from .supersession_speakers import SPEAKER_LABEL

__all__ = ["ECHO_CONTENT", "ECHO_SHARE", "ECHO_STEM", "echoes", "echoes_of"]

#: Share of the user's fact's terms the assistant's memory repeats to be its echo. A
#: confirmation restates the value and mostly the frame ("Telefon numaram 0532 412 78 90." /
#: "Kaydettim: telefon numaran 0532 412 78 90.": 5 of 6); an assistant fact of its own in the
#: same add shares a word or two ("Je joue du piano ..." / "C'est super, vous jouez du piano
#: ...": the instrument, 1 of 3 terms after the label).
ECHO_SHARE = 0.5
#: Fewest content words (function words left out) a confirmation repeats where it repeats
#: under :data:`ECHO_SHARE` of all the fact's words: "Vou correr uma maratona em abril." /
#: "Que legal! Anotei a maratona de abril." repeat 2 of 6 words but 2 of 3 content words
#: (maratona, abril); a remark on the value names the value alone ("Ik woon in Utrecht." /
#: "Leuk, Utrecht is een mooie stad ...": 1 of 2 content words).
ECHO_CONTENT = 2
#: Letters two terms share at their start to be one word told by each party: the assistant
#: says the user's word in the second person ("работаю" / "работаете", "resepsiyonist" /
#: "resepsiyonistsin"), an ending the rule's :data:`STEM_LETTERS` would leave one letter short of.
ECHO_STEM = STEM_LETTERS - 1
_USER = "user"
_ASSISTANT = "assistant"


def _terms(text: str, content: bool = False) -> set[str]:
    """The terms of a statement past its label, less the label words "user" and "assistant"
    ("The user has 3 kids." is told of the user, not about one). A number told in words is its
    digits ("Three kids." confirms "has 3 kids"; "3500元" confirms "三千五"). Chinese and Japanese count by their words'
    characters, not by character pairs, which span a word's edge or a verb's kana ending
    ("每个月房租" / "每月房租" share 每, 月, 房, 租 and two pairs; "住んでいます" / "お住まい" share
    住 and no pair): Chinese by each Han character, Japanese, whose kana part its words, by
    each run of Han or of katakana ("京都の大学" / "京都の大学に": 京都, 大学). ``content``: less
    each clause's function words in its own language (:func:`.keywords.index_terms`)."""
    said = WORD.sub(_digits, han_digits(SPEAKER_LABEL.sub("", text, count=1)))
    read = index_terms(said) if content else terms(said)
    out = {t for t in read if t not in _LABEL_WORDS and not any(script_of(c) in _PAIRED for c in t)}
    out.update(kana_words(said) if has_kana(said) else (c for c in said if script_of(c) == "Han"))
    return out


#: The label's words, which every statement of a party holds.
_LABEL_WORDS = frozenset({"user", "assistant"})
#: Scripts whose character pairs :func:`_terms` leaves for its own units.
_PAIRED = frozenset({"Han", "Hiragana", "Katakana"})


def _digits(match: re.Match[str]) -> str:
    """A word telling a number of two or more ("three", "drei", "tres") as its digits; one is
    left as it is, as "a", "un", "een", "bir" are articles too."""
    value = rule_lexicon().numbers.get(match.group().casefold())
    return str(value) if value is not None and value >= 2 else match.group()


def _found(term: str, others: set[str]) -> bool:
    """Whether ``term`` or a form of it (the same first :data:`ECHO_STEM` letters, or the one
    opening the other: a stem beside its word, "mei" / "meia", where each party's clause was
    read in another language) is among ``others``."""
    if term in others:
        return True
    if any(_compound(term, o) or bears_proclitic(term, o) or bears_proclitic(o, term) for o in others):
        return True
    return any(
        min(len(term), len(o)) >= ECHO_STEM
        and term[:ECHO_STEM] == o[:ECHO_STEM]
        or min(len(term), len(o)) >= _STEM_OPENS
        and (o.startswith(term) or term.startswith(o))
        for o in others
    )


def _compound(term: str, other: str) -> bool:
    """Whether one Han word of two characters or more is part of the other: Japanese and Chinese
    build a compound from its words ("京都" in "京都旅行", "銀行" in "銀行員"), so the assistant
    naming the user's thing in a compound names the thing."""
    short, long = sorted((term, other), key=len)
    return len(short) >= 2 and short != long and short in long and all(script_of(c) == "Han" for c in long)


#: Fewest letters of a stem that opens the other party's word ("mei" / "meia", "sem" / "semi").
_STEM_OPENS = 3


def echoes(echo: MemoryRecord, fact: MemoryRecord) -> bool:
    """Whether ``echo`` is the assistant's confirmation of the user's ``fact`` stored by the same
    add: the assistant's, the fact the user's, one scope, speaker and observation time, told after
    the fact, and at least :data:`ECHO_SHARE` of the fact's terms repeated (in the same or
    another form), or of its content words, :data:`ECHO_CONTENT` at least."""
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
    return _repeats(fact.text, echo.text) or _repeats(fact.text, echo.text, content=True)


def _repeats(fact: str, echo: str, content: bool = False) -> bool:
    """Whether ``echo`` repeats at least :data:`ECHO_SHARE` of ``fact``'s terms (``content``:
    of its content words, and :data:`ECHO_CONTENT` of them at least)."""
    own = _terms(fact, content)
    if not own:
        return False
    said = _terms(echo, content)
    repeated = sum(_found(t, said) for t in own)
    return repeated >= ECHO_SHARE * len(own) and (not content or repeated >= ECHO_CONTENT)


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
