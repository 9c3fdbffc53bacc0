"""Person shift: a speaker's "I", a listener's "you", as a reader of the memory says them.

"I love tea" said by Ana is remembered as "Ana loves tea"; "your charger" said by the
assistant as "the user's charger"; "What do I like?" asked by the user is searched as
"What does the user like?" as well. All three read one kind of table from a language's
lexicon (``person.<table>``): rows of surface forms ("i'm|i am") and their replacements,
with ``{s}`` for the subject. One matcher finds the forms, longest first, as whole words
in any case and with either apostrophe; what to do at each (which replacement, a verb to
conjugate) is the caller's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import DEFAULT, fold, lexicon
from .segments import at_sentence_start

_APOSTROPHE = "['’]"


@dataclass(frozen=True)
class Form:
    """One form found: where, as written, and its row's replacements (``{s}`` the subject)."""

    start: int
    end: int
    surface: str
    key: str
    replacements: tuple[str, ...]


class PersonTable:
    """A person-shift table compiled into one matcher."""

    def __init__(self, rows: list[list[str]]) -> None:
        self._rows: dict[str, tuple[str, ...]] = {}
        for row in rows:
            for surface in row[0].split("|"):
                self._rows.setdefault(" ".join(fold(surface).split()), tuple(row[1:]))
        alternatives = sorted(self._rows, key=lambda s: (-len(s), s))
        body = "|".join(r"\s+".join(re.escape(w).replace("'", _APOSTROPHE) for w in s.split()) for s in alternatives)
        # A form is a word of its own: not a piece of an address ("proton.me", "me@x.com",
        # "my.name@x.com"), whose letters are a value to keep as written.
        self.pattern = re.compile(rf"(?<![\w'’@.])(?:{body})(?![\w'’@]|\.\w)", re.I)

    def forms(self, text: str, position: int = 0) -> Iterator[Form]:
        """The forms of ``text`` from ``position``, in order. A lower-case "i" next to a full
        stop or a bracket is a letter ("i.e.", "(i)"), not the speaker."""
        if not self._rows:
            return  # an empty table (a language without one) would match the empty string
        while match := self.pattern.search(text, position):
            position = match.end()
            surface = match.group(0)
            if surface == "i" and (
                text[match.end() : match.end() + 1] in (".", ")") or text[match.start() - 1 : match.start()] == "."
            ):
                continue
            key = " ".join(fold(surface).split())
            yield Form(match.start(), match.end(), surface, key, self._rows[key])


@lru_cache(maxsize=32)
def table(name: str, language: str = DEFAULT) -> PersonTable:
    """The person-shift table ``name`` of ``language``'s lexicon (empty when it has none)."""
    return PersonTable(lexicon(language).rows("person", name))


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


#: What a caller does at a form: the replacement and where the replaced stretch ends (it may
#: take the verb after the form along), or None to leave the form as written.
Choice = Callable[[str, Form], tuple[str, int] | None]


def shift(text: str, person: PersonTable, choose: Choice) -> str:
    """``text`` with each form of ``person`` replaced as ``choose`` says, capitalized where it
    opens a sentence."""
    out: list[str] = []
    last = 0
    for form in person.forms(text):
        if form.start < last:
            continue  # inside a stretch a previous choice took (a conjugated verb)
        chosen = choose(text, form)
        if chosen is None:
            continue
        replacement, end = chosen
        if at_sentence_start(text, form.start):
            replacement = capitalized(replacement)
        out += [text[last : form.start], replacement]
        last = end
    out.append(text[last:])
    return "".join(out)
