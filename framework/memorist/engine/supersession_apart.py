"""Why two facts that look alike are two, for the supersession rule: values told with other
qualifiers (a work and a personal e-mail), a relative's contact beside the speaker's own, and a
fact that tells no state of now (a wish, an offer turned down, a past stint).
"""

from __future__ import annotations

from .supersession_lexicon import rule_lexicon
from .supersession_reading import Reading
from .supersession_values import VALUE_KINDS

__all__ = ["VALUE_ATTRIBUTES", "contact_of_own", "not_now", "qualified_apart"]

#: The attributes a value names by its shape (an e-mail address, a phone number): a clause of a
#: long memory that tells one anew changes it.
VALUE_ATTRIBUTES = frozenset(kind for kind, _ in VALUE_KINDS)
#: The ``slot_qualifiers`` group of a second value beside the person's own (work, office).
CONTEXT = "context"


def qualified_apart(new: Reading, old: Reading) -> bool:
    """Two values of a slot a person holds several of at once, and no stated change of state
    ("instead", "switched"; a "new" alone is the new value's): both current. So are two values
    told with different qualifiers ("work email" / "personal email", "home number" / "mobile
    number"), and a value told in a context (``slot_qualifiers`` ``context``: work, office, a
    backup) beside one told without it ("my phone number is ..." / "my work line is ..."): the
    unqualified value is presumed the person's own. A value of a device or kind (``kind``:
    "my cell is ...", "my personal email is ...") beside an unqualified one is the slot's, as
    a person names their one number either way."""
    shared = new.attributes & old.attributes
    if not shared or not shared <= rule_lexicon().qualified_attributes or new.shift:
        return False
    if new.qualifiers and old.qualifiers and not new.qualifiers & old.qualifiers:
        return True
    return _contexts(new) != _contexts(old)


def _contexts(reading: Reading) -> frozenset[str]:
    """The ``context`` qualifiers of a fact ("work", "office"): which second value it tells."""
    groups = rule_lexicon().qualifiers
    return frozenset(q for q in reading.qualifiers if groups.get(q) == CONTEXT)


def contact_of_own(new: Reading, old: Reading) -> bool:
    """Both tell the same person's contact value (a phone number, an e-mail) and nothing else
    they share: a value a person holds by themselves, so one told without a relative is the
    speaker's, never the relative's the older names. (Plans and places are shared: "dinner
    with the user's parents" is moved by "the user moved dinner to Sunday".)"""
    shared = new.attributes & old.attributes
    return bool(new.subjects & old.subjects and shared) and shared <= VALUE_ATTRIBUTES


def not_now(new: Reading, old: Reading) -> bool:
    """Whether the newer tells no state of now that the older's could give way to: a wish or a
    thought ("might move to Berlin someday", "kepikiran resign") unless the older was one too,
    an offer made or turned down ("a clinic offered me a job, but I said no") unless the older
    told one too, or a past stretch of life told without a change ("çocukken 5 yıl Almanya'da
    yaşadım")."""
    if (new.hypothetical and not old.hypothetical) or (new.offer and not old.offer):
        return True
    return new.past_stint and not new.change and not old.past_stint
