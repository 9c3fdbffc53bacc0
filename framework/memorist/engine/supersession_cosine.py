"""The supersession rule's links read by a cosine alone, with no shared word.

The rule (:mod:`.supersession_rule`) links most pairs by their words: a shared attribute, a
topic word, a name, a value's shape or unit. The paths here link two facts of one subject by
how close they are in meaning, since a change is often told with none of the older fact's
words: a relationship's state, a changed attribute, a bare change, a habit begun, a taste,
a relative's event told through the speaker's possessive, an attribute or taste read by
meaning (:mod:`.attribute_prototypes`). The bars were set on English; the rule hands them a
cosine already read against its language's chance level where no word of the two agrees
(:mod:`.supersession_agreement`, :mod:`.chance_cosine`). Only short facts are linked so: a
long memory blends several statements, and a cosine says nothing of which changed.
"""

from __future__ import annotations

from collections.abc import Callable

from .attribute_prototypes import TASTE
from .supersession_reading import SELF, Reading

__all__ = [
    "ATTRIBUTE_CHANGE_SIMILARITY",
    "BARE_CHANGE_SIMILARITY",
    "CHANGE_SIMILARITY",
    "PREFERENCE_SIMILARITY",
    "SLOT_MAX_TOKENS",
    "same_meaning_changed",
    "same_slot",
    "through_owner",
]

#: A stated change supersedes an older fact of the same subject sharing no topic word when the
#: two facts' cosine is at least this. On the tune set the changes that share no word score
#: 0.71 to 0.82 with what they change, while additive facts that say "new" or "now" ("bought a
#: new laptop" / "got a new phone case") score 0.44 at most with the facts they sit beside.
CHANGE_SIMILARITY = 0.6
#: A stated change of an attribute held one value at a time ("went vegan now": diet) replaces
#: an older fact of its subject this close in meaning that told the old value in other words
#: ("eats a lot of meat"): the attribute and the change are two signs, so the bar sits below
#: :data:`CHANGE_SIMILARITY`. Tune set: additive facts with an attribute and a change word
#: score 0.35 ("bought a new laptop" / "got a new phone case").
ATTRIBUTE_CHANGE_SIMILARITY = 0.5
#: A stated change that names nothing but its new value ("switched to a Pixel": a name and a
#: change word, no topic word left) replaces the nearest fact of its subject at this cosine or
#: more: its meaning is the only evidence of what it changes. Tune set: 0.44 ("uses an
#: iPhone"); the additive facts with a change word score 0.52 and below but keep topic words.
BARE_CHANGE_SIMILARITY = 0.4
#: Two tastes, the newer told as a change, are one preference slot at this cosine or more:
#: "favourite cuisine is Thai" / "obsessed with Mexican food these days" (0.51 on the tune
#: set). A taste needs both facts to say it is one and the newer to say it changed, so the
#: bar sits below :data:`CHANGE_SIMILARITY`; "likes tea" / "likes coffee" (no change) stay apart.
PREFERENCE_SIMILARITY = 0.45
#: Longest fact, older or newer, a slot read without a shared word links (:func:`same_slot`):
#: a fact stated once ("The user has been with Sara since college." is 9 words) rather than a
#: memory that blends several ("The event was really thought-provoking. Melanie is starting ...").
SLOT_MAX_TOKENS = 20


def same_slot(new: Reading, old: Reading, similarity: float, tastes: float) -> bool:
    """The slots read without a shared word: a relationship's state, a changed attribute, a
    bare change, a habit begun, a taste (see the module's description). Only between short
    facts: a long memory blends several, and a word or a cosine says nothing of which changed.
    ``similarity``: the pair's cosine as far as it counts (:func:`.supersession_agreement.words_agree`); ``tastes``:
    as it is, since two tastes agree by their words already (each states one)."""
    if "relationship" in new.attributes and (_people(new) & old.names) - old.subjects:
        return True
    if new.attributes and new.change and similarity >= ATTRIBUTE_CHANGE_SIMILARITY:
        return True
    if new.change and not new.topic and similarity >= BARE_CHANGE_SIMILARITY:
        return True
    if new.onset and similarity >= CHANGE_SIMILARITY:
        return True
    # A taste told of late ("ultimamente il mio piatto preferito ...") has changed, as a taste's
    # kind read by meaning already counts it (:func:`same_meaning_changed`).
    return new.preference and old.preference and (new.change or new.recent) and tastes >= PREFERENCE_SIMILARITY


def through_owner(new: Reading, old: Reading, similarity: float) -> bool:
    """A relative's event told once through the speaker's possessive and once with the relative
    as subject ("the user's sister's visit is on the 9th" / "the user's sister is now coming on
    the 15th"): the same event when the newer says it changed and the two are close in meaning
    (their one shared word, the relative, says nothing of which of the relative's facts it is)."""
    linked = new.subjects & old.owners or new.owners & old.subjects
    return (
        bool(linked) and new.change and similarity >= CHANGE_SIMILARITY and max(new.size, old.size) <= SLOT_MAX_TOKENS
    )


def same_meaning_changed(
    new: Reading, old: Reading, newer: str, older: str, attribute_of: Callable[[str], str | None]
) -> bool:
    """Both facts are about one single-valued attribute read by meaning, the newer told as a
    change or an onset; or both are of one kind of taste, one of them states a taste, and the
    newer says it changed or holds of late: "listens to a lot of pop music" / "Lately the user
    has been really into jazz", "loves horror movies" / "These days the user mostly watches
    documentaries". A thing merely new ("bought a new coffee machine" after "likes green tea",
    "loves their new espresso machine") changes no taste, and a taste begun is as often one
    more ("started listening to podcasts")."""
    if not (new.change or new.onset or new.recent):
        return False
    meant = _same_meant_attribute(newer, older, attribute_of)
    if meant is None:
        return False
    if meant.startswith(TASTE):
        return (new.preference or old.preference) and (new.shift or new.recent)
    return new.change or new.onset


def _same_meant_attribute(newer: str, older: str, attribute_of: Callable[[str], str | None]) -> str | None:
    """The single-valued attribute (or kind of taste) both facts are nearest to by meaning ("is
    a morning person" / "has turned into a night owl": schedule), else None."""
    attribute = attribute_of(newer)
    return attribute if attribute is not None and attribute_of(older) == attribute else None


def _people(reading: Reading) -> frozenset[str]:
    """Whom a fact names: its names, and a subject other than the speaker ("Sara and the user").
    The rule links a relationship state to a short older fact naming that person past its
    subject (the partner: "has been with Sara"), never to any older fact about the same
    subject ("Caroline ... as a single parent" replaces nothing Caroline said before), nor to
    a long memory that names them among other things."""
    return reading.names | (reading.subjects - {SELF})
