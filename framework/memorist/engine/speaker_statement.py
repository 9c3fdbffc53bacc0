"""Whether a statement is the speaker's own, as the supersession rule reads it.

A language that drops its subject pronoun ("Vivo en Madrid.", "Mieszkam w Krakowie.",
"Μένω στην Αθήνα.") says who a statement is about in its verb, not in an opening word. The
supersession rule already reads such a statement as the speaker's (an attribute word or a
change word opening it, the language's first-person words early in it): the extractor asks
the same reading, so a fact it keeps apart is the fact the rule will later replace.
"""

from __future__ import annotations

from .supersession_reading import read
from .supersession_subjects import SELF


def about_speaker(text: str) -> bool:
    """Whether the supersession reading takes the speaker, and no one else, as the subject of
    ``text`` ("Vivo en Madrid.": yes; "Es hat einen Garten.", "Mi hermano vive ...": no)."""
    return read(text).subjects == {SELF}
