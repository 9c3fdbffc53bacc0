"""When a newly stored fact replaces an older one: the rule an add applies once.

An add compares each fact it stores with the scope's nearest stored memories
(the ones its duplicate check already read). The newer fact supersedes an older
one when both are about the same subject, the newer was observed no earlier,
it does not say it adds to what was said ("also", "another", ...), and one of:

- both name the same **attribute** a person holds one value of at a time
  (where they live, their phone number, employer, partner, ...): "lives in
  Lisbon" / "moved to Porto";
- the newer **says it changes an attribute** (an attribute word and a change word:
  "went vegan now") and the two are closer in meaning than
  :data:`ATTRIBUTE_CHANGE_SIMILARITY`, though the older told its value without the word;
- the newer **says it changes something** ("now", "no longer", "switched",
  "changed", ...) and shares a topic word with the older: "dentist appointment
  on Friday" / "the dentist appointment was rescheduled to Monday";
- both are **"X is V" statements** that differ only in the value: "favorite
  color is blue" / "favorite color is green", "is 30" / "is 31";
- the newer says it changes something and the two are close in meaning (their
  embeddings' cosine at least :data:`CHANGE_SIMILARITY`) though they share no word:
  "is flying to Tokyo on the 14th" / "flight to Tokyo moved to the 16th", "lives in
  Munich" / "is in Berlin these days". Words miss a change told with other forms of a
  word or with none of the older fact's words; the embedder reads them as one topic;
- the newer names a **relationship state** (the relationship attribute: "split up",
  "engaged") and both name one person: "has been with Marco" / "Marco and the user
  broke up" (the older need not hold a relationship word);
- the newer **says it changes something and names nothing else** (its only content words
  are names: "switched to a Pixel") and the two are closer in meaning than
  :data:`BARE_CHANGE_SIMILARITY`;
- the newer says a **habit began** (``onset_words``: "started", "began") and the two are
  closer in meaning than :data:`CHANGE_SIMILARITY`: "prefers window seats" / "has started
  picking aisle seats"; a begun habit far in meaning is one more ("started a podcast");
- both state a **taste** (the lexicons' ``preference_words``: "favourite", "prefers",
  "is into"), the newer says it changed, and the two are closer in meaning than
  :data:`PREFERENCE_SIMILARITY`: the preference slot, judged by the embedder since two
  tastes of one category (two cuisines, two drinks) rarely share a word;
- both are nearest the prototypes of one **single-valued attribute read by meaning**
  (:mod:`.attribute_prototypes`: schedule, occupation, ...) and the newer says it changes:
  "is a morning person" / "has turned into a night owl", which share no word and sit far
  apart in meaning (0.44) but are each close to "is an early bird";
- both hold a **quantity of one unit** with another value ("sleeps about 7 hours a
  night" / "sleeps 6 hours a night", "pays 45 dollars a month for the gym" / "gym
  membership went up to 55 dollars a month", "at 9:30" / "at 10:00") and are closer
  in meaning than :data:`QUANTITY_SIMILARITY`, neither placed at a point in time: "ran
  5 km on Saturday" / "ran 8 km on Sunday" (0.88) are two events, not two versions;
- the newer says **a quantity moved** (``quantity_changes`` right before it: "down to 76 kg",
  "rose to $1,400") and the older holds another value of that unit ("weighs 82 kg"), at any
  cosine: "moved to" a value says there was one before;
- both are of **one kind of taste** read by meaning (:mod:`.attribute_prototypes`'s
  ``taste_prototypes``: food, drink, music, ...), one of them states a taste, and the newer
  says it changed or holds of late: "listens to a lot of pop music" / "Lately the user has
  been really into jazz"; a thing merely new ("bought a new coffee machine") changes none;
- one is about a relative and the other names that relative through the speaker's
  possessive ("the user's sister's visit is on the 9th" / "the user's sister is now coming
  on the 15th"), the newer says it changes and the two are closer in meaning than
  :data:`CHANGE_SIMILARITY`: one event of the relative's.

**Cosines across languages.** The bars were set on English. Under an embedder that does not
know a language (MiniLM and Dutch, German, Chinese, ...) any two short statements score far
above English chance, so the paths above that link by a cosine alone read it, where no word
of the two agrees (the same attribute read by words, a topic word or one word in two forms,
a name, a shape, an owner, a value's unit), only as far as it is above the language's chance
level (:mod:`.chance_cosine`): the changed attribute, bare change, onset paths always; the
stated change and the meaning reader when the newer names its attribute by words (a move
after "Ik heb een kat." is checked by the words and found to share none). A change that
names no attribute leaves the words nothing to check and keeps its cosine. Taste pairs keep
theirs: both name a taste by words. English and an embedder that knows the language read as
before, since their chance is English's.

The words are data (the language layer's lexicons: ``exclusive_attributes`` and their
multi-word ``attribute_phrases``, whose relationship rows are the states a couple passes
through: dating, engaged, married, "split up", "tied the knot"; ``replacement_words``,
``preference_words``, ...); this module is the mechanism. It reads every language's
attribute, change and additive words at once: a fact the extractor keeps in the
speaker's words ("The user: Vivo en Sevilla.") is too short to tell its language
reliably, and those are content words that rarely mean something else in another
language. The short frame words (copulas, relatives, "my") and the function words the
topic drops ("en", "la", "je" are no shared topic) are those of the language the
statement is told in, with the default's (see :func:`reading_lexicon`); in a script
written without spaces (Japanese, Chinese, Thai) the rows are found inside a run.
An age frame is read in every language, since a short statement's language is unsure.
Facts of two different speakers never supersede each other, except that what the
assistant said about the user and what the user says about themselves are one person's
facts (the subject "user" in both). What
stays apart: "has a dog" / "also has a cat", "likes tea" / "likes coffee",
"visited Paris" / "visited Rome" (no exclusive attribute, no stated change).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..language import tokens
from ..language.morphology import names_head
from ..records import MemoryRecord
from .keywords import terms
from .supersession_agreement import agree_beyond_units, named_apart, words_agree
from .supersession_apart import VALUE_ATTRIBUTES, contact_of_own, not_now, qualified_apart
from .supersession_clauses import MAX_SENTENCES, clause_readings, labelled_sentences, sentence_adds
from .supersession_cosine import (
    ATTRIBUTE_CHANGE_SIMILARITY,
    BARE_CHANGE_SIMILARITY,
    CHANGE_SIMILARITY,
    PREFERENCE_SIMILARITY,
    SLOT_MAX_TOKENS,
    same_meaning_changed,
    same_slot,
    through_owner,
)
from .supersession_lexicon import rule_lexicon
from .supersession_offers import declined_offer
from .supersession_quantities import goal_apart, moved_quantity, other_count, other_quantity
from .supersession_reading import ASSISTANT, SELF, Reading, read, states_attribute
from .supersession_reports import read_pair
from .supersession_restated import keeps_value, restates, still_named
from .supersession_subjects import resolved
from .supersession_values import base

__all__ = [
    "ATTRIBUTE_CHANGE_SIMILARITY",
    "BARE_CHANGE_SIMILARITY",
    "CHANGE_SIMILARITY",
    "PREFERENCE_SIMILARITY",
    "QUANTITY_SIMILARITY",
    "SLOT_MAX_TOKENS",
    "may_supersede",
    "read",
    "states_attribute",
    "supersedes",
]

#: Two facts holding a quantity of one unit with different values are versions of one fact at
#: this cosine or more. Tune set: versions 0.76 to 0.93; additive facts sharing a unit, "runs 5
#: km on Mondays" / "swims 2 km on Fridays" 0.66, "pays 45 dollars ... gym" / "phone plan costs
#: 30 dollars" 0.57.
QUANTITY_SIMILARITY = 0.7
#: A stated change that names no attribute by words keeps its cosine, unless read against its
#: language's chance level (:mod:`.chance_cosine`) it falls under this: then it is at chance.
#: The bare change's bar: "Sinds deze maand heb ik mijn eigen lunchroom!" after "Ik werk als kok
#: ..." reads 0.43 above Dutch chance; unrelated changes in Chinese, Hindi and Arabic -0.05 to 0.36.
AT_CHANCE = 0.4


def may_supersede(newer: MemoryRecord, older: MemoryRecord) -> bool:
    """Whether ``newer`` may replace ``older`` at all, whatever the two say: two memories, of one
    speaker, the older observed no later, and both the user's or both the assistant's.

    Why apart from :func:`supersedes`: these guards hold for every judge of a pair, the rule
    and a language model alike (:mod:`.supersession_judge`); a model is shown only the
    memories they leave, so it can never link a fact to a later one or to another speaker's."""
    if newer.id == older.id or newer.hash == older.hash:
        return False
    if (newer.speaker or "").casefold() != (older.speaker or "").casefold():
        return False
    if older.observed_at > newer.observed_at:
        return False
    if newer.attributed_to and older.attributed_to and newer.attributed_to != older.attributed_to:
        # The assistant's own facts and the user's stay apart, but what the assistant said
        # about the user ("Since you work as a pharmacist...", "the user's manager is now
        # ...") is the user's fact as much as the user's own words, and the user's later
        # change replaces it.
        (newer_text, new), (older_text, old) = read_pair(newer.text, older.text)
        return (_of_user(new, newer_text) and _of_user(old, older_text)) or _one_person_told(new, old)
    return True


def _one_person_told(new: Reading, old: Reading) -> bool:
    """Whether the assistant's fact and the user's name one person of the user's world (a
    relative, a partner, someone named): "Lucas est donc en sixième" restates what the user
    told of their son Lucas, since all the assistant knows of him is what the user said."""
    lex = rule_lexicon()
    names = {name.casefold() for name in new.names | old.names}
    shared = (new.subjects & old.subjects) - {SELF, ASSISTANT}
    return any(s in lex.others or s in lex.partners or s in names for s in shared)


def supersedes(
    newer: MemoryRecord,
    older: MemoryRecord,
    similarity: float | None = None,
    attribute_of: Callable[[str], str | None] | None = None,
    above_chance: float | None = None,
    attribute_above_chance: Callable[[str], str | None] | None = None,
) -> bool:
    """Whether storing ``newer`` makes ``older`` a past version (see the module's description);
    ``similarity``: the two facts' cosine, when the caller has it; ``attribute_of``: a fact
    text's single-valued attribute read by meaning (:mod:`.attribute_prototypes`), asked only
    when no other sign links the two; ``above_chance``: the cosine read against the facts'
    language's chance level (:mod:`.chance_cosine`), what the cosine says where no word of
    the two agrees (None: the cosine as it is); ``attribute_above_chance``: ``attribute_of``
    read from the prototype cosines above chance, asked in place of it where the cosine is."""
    if not may_supersede(newer, older):
        return False
    # A listener's report ("The assistant will remember that the user's manager is now ...")
    # is read as the fact it wraps.
    (newer_text, new), (older_text, old) = read_pair(newer.text, older.text)
    if declined_offer(newer.text):
        # 'The assistant asked "Shall I switch you to Vodafone?" The user replied: nah, ...':
        # an offer turned down changes nothing.
        return False
    if restates(newer_text, old) or keeps_value(newer_text, older_text, old):
        # "... playing both guitar and piano now" keeps "plays guitar", and "..., and yours
        # stays sam@y.com" the older e-mail: a value held beside a new one is no replaced value.
        return False
    # A fact saying something still holds ("Still at the insurance company, they gave me a new
    # laptop") restates it: only a clause of its own that says a change is read for one.
    if (
        not new.continues
        and not not_now(new, old)
        and _replaces(
            new, old, newer_text, older_text, (similarity, above_chance), (attribute_of, attribute_above_chance)
        )
    ):
        return True
    if (new.additive or new.continues) and _sentence_replaces(
        newer_text, old, older_text, (similarity, above_chance), (attribute_of, attribute_above_chance)
    ):
        return True
    # One clause of a fact of several may change the older ("..., it's 312-555-0182 now. Also
    # ..."): each clause that says a change or a moved quantity is read on its own. A short
    # fact's clause with every sign of the rule (the whole's cosine); a long memory's only with
    # a value that names its attribute (an e-mail, a phone number) or a quantity it says moved,
    # since a long memory blends several statements and its "new" or "now" and shared words
    # say nothing of which (LoCoMo's turns: 109 wrong links when every sign counted).
    for clause, part, own in clause_readings(newer_text):
        if part.continues or not (part.change or part.moved):
            continue
        part = replace(part, subjects=resolved(part.subjects, old.subjects))
        if not_now(part, old):
            continue
        if new.size <= SLOT_MAX_TOKENS and not new.continues:
            # A short fact's additive word is its sentence's ("Your studio will change things
            # too"): only its subject is read clause by clause. Another sentence's "also" adds
            # its own thing ("Moved to Jakarta. The new office is there too."). A fact that
            # says its first thing goes on ("Nadal w banku, dostałam nowy laptop") names that
            # thing in its whole cosine: its clauses change only what their own words name.
            if not sentence_adds(newer_text, clause) and _replaces(
                replace(part, size=new.size),
                old,
                clause,
                older_text,
                (similarity, above_chance),
                (attribute_of, attribute_above_chance),
                named=bool(new.attributes),
            ):
                return True
        elif _value_changed(part, old, own and old.size <= SLOT_MAX_TOKENS):
            return True
        elif old.size <= SLOT_MAX_TOKENS and part.size <= SLOT_MAX_TOKENS and _names_changed_thing(part, old):
            # "Festen er rykket til søndag ..., fordi salen var optaget. Min søster kommer ...":
            # a clause saying the older's own thing was moved changes it, in a memory of any size.
            return True
    return False


def _sentence_replaces(
    newer: str,
    old: Reading,
    older: str,
    cosines: tuple[float | None, float | None],
    readers: tuple[Callable[[str], str | None] | None, Callable[[str], str | None] | None],
) -> bool:
    """Whether one sentence of a fact of several, read as a fact of its own, replaces the
    older, when another sentence's additive word made the whole fact read as adding: "The
    landlord put the rent up, we pay £1,340 now. Council tax is another £160." moves the rent."""
    prefix, sentences = labelled_sentences(newer)
    if len(sentences) < 2:
        return False
    for sentence in sentences[:MAX_SENTENCES]:
        part = read(prefix + sentence)
        if part.additive or part.continues or not (part.change or part.moved) or not_now(part, old):
            continue
        part = replace(part, subjects=resolved(part.subjects, old.subjects))
        if _replaces(part, old, prefix + sentence, older, cosines, readers):
            return True
    return False


#: How far into a fact the user named through a possessive makes it the user's ("the user's
#: manager is ...", "Dinner with the user's parents ...").
OWNER_WINDOW = 5


def _of_user(reading: Reading, text: str) -> bool:
    """Whether a fact is about the user or a person or thing of theirs named early ("the user's
    manager is now Angela Kim"): what the assistant says of it is the user's fact."""
    opening = tokens(text)[:OWNER_WINDOW]
    # "The assistant: your manager is now ...": the listener's possessive names the user's person.
    listener = rule_lexicon().listener if text.casefold().lstrip().startswith(f"the {ASSISTANT}") else frozenset()
    return SELF in reading.subjects or any(base(t.word) == SELF or t.word in listener for t in opening)


def _bound(newer: str, old: Reading) -> bool:
    """Whether one clause of ``newer`` names both an attribute of the older fact and its
    subject: "Busy week: the user's sister moved to Bristol, they helped her carry the boxes"
    names a move (the sister's) and the speaker (helping), never the speaker's move. A clause
    naming no subject of its own is the whole fact's ("..., it's 312-555-0182 now")."""
    clauses = clause_readings(newer)
    return not clauses or any(
        part.attributes & old.attributes and part.subjects & old.subjects for _, part, _ in clauses
    )


def _value_changed(new: Reading, old: Reading, attributes: bool) -> bool:
    """A clause of a long memory gives a new value of an attribute its value names (an e-mail,
    a phone number) or says a quantity moved: "it's 312-555-0182 now", "is down to 84 kg";
    with ``attributes`` (a clause naming the speaker or a relative itself, and a short older
    fact), a changed value of any attribute both name: "..., the user moved to Bristol last
    week, and ..."."""
    if not new.subjects & old.subjects or new.additive or qualified_apart(new, old):
        return False
    shared = new.attributes & old.attributes
    return bool(shared & VALUE_ATTRIBUTES or attributes and shared) or moved_quantity(new, old)


def _replaces(
    new: Reading,
    old: Reading,
    newer: str,
    older: str,
    cosines: tuple[float | None, float | None],
    readers: tuple[Callable[[str], str | None] | None, Callable[[str], str | None] | None],
    named: bool | None = None,
) -> bool:
    """:func:`supersedes` over two readings (``newer``, ``older``: their texts; ``cosines``: the
    pair's cosine and the same read against chance; ``readers``: the meaning reader as it
    is and above chance; ``named``: whether the newer fact names its attribute by words, when
    ``new`` reads one clause of it: "Het oude gebruik ik niet meer" names none, but its fact,
    "Ik heb een nieuw e-mailadres: ...", does, and the clause's cosine is checked as the
    fact's is)."""
    named = bool(new.attributes) if named is None else named
    similarity, above_chance = cosines
    attribute_of, attribute_above_chance = readers
    if qualified_apart(new, old) or goal_apart(new, old):
        return False
    if new.owners - old.owners:
        # "The user's sister's rent is $1,600 now" names a relative's thing: it changes no
        # "The user's rent is $1,450", though both read the user as the one who owns.
        return False
    if old.owners and not new.owners and not old.owners & new.subjects and contact_of_own(new, old):
        # And the other way: "the user switched networks and got a new mobile number" is the
        # speaker's own number; it changes no "The user's mum's number is ..." (but "Leo lost
        # his phone, new number ..." changes "The user's son Leo's number").
        return False
    if new.subjects & old.subjects and other_count(new, old):
        return True
    if new.additive:
        return False
    if new.subjects & old.subjects and moved_quantity(new, old):
        return True
    if _names_changed_thing(new, old) and max(new.size, old.size) <= SLOT_MAX_TOKENS:
        # "The user's parents asked to move dinner to Sunday" / "Dinner with the user's parents
        # is Saturday": a change frame's object is the older fact's thing, whoever moved it.
        return True
    if not new.subjects & old.subjects:
        return _partner_named(new, old) or through_owner(new, old, similarity or 0.0)
    # The paths below link by the cosine alone, so it counts only as far as it is above the
    # language's chance level unless a word of the two agrees (see :func:`.supersession_agreement.words_agree`).
    checked = above_chance is not None and not words_agree(new, old)
    meant = min(similarity or 0.0, above_chance or 0.0) if checked else similarity
    if checked and named_apart(new, old, named):
        # Each names its attribute or a taste by words, and they name two ("учится": school,
        # "работаю": employer; "seviyorum": a taste): the words have checked the pair and found
        # two facts; no cosine links them.
        meant = 0.0
    if (
        new.attributes & old.attributes
        and new.owners == old.owners
        and _bound(newer, old)
        and not still_named(newer, old)
    ):
        # A relative's thing ("मेरी बहन की शादी", the sister's wedding) holds the relative's
        # attribute, not the speaker's: it replaces no "मैं शादीशुदा हूँ" (the speaker is married).
        return True
    # A change that names its attribute by words ("verhuisd naar": residence) is checked by them:
    # an older fact that names none ("Ik heb een kat.") is linked only by a cosine above chance.
    # One that names none ("Sinds deze maand heb ik mijn eigen lunchroom!") leaves the words
    # nothing to check, and its cosine counts as it is.
    told = meant if named else similarity
    if checked and not named and (above_chance or 0.0) < AT_CHANCE:
        # Nor does a cosine at its language's chance level, though no word can check it: "我有一只猫"
        # / "我已经离开银行了，现在在一家保险公司做客服" score 0.62, Chinese chance.
        told = meant
    # Two facts naming two attributes by words are two facts, though a change in one names the
    # other's person or place: "Priya and the user broke up" changes no "Priya works night
    # shifts", "works in Köln now" no "lives in Köln"; unless the change moved the older's
    # thing ("we moved Mia's party indoors": "moved" reads as a residence word there).
    apart = bool(new.attributes and old.attributes and not new.attributes & old.attributes)
    apart = apart and not new.objects & old.topic
    if (
        new.change
        and not apart
        and (new.topic & old.topic or new.names & old.names or (told or 0.0) >= CHANGE_SIMILARITY)
    ):
        return True
    if new.several and old.several:
        # "allergic to shellfish" after "allergic to peanuts": a person holds several, and no
        # change word said one replaced the other.
        return False
    if new.shapes & old.shapes:
        return True
    short = max(old.size, new.size) <= SLOT_MAX_TOKENS
    if short and same_slot(new, old, meant or 0.0, similarity or 0.0):
        return True
    # The meaning reader's prototype cosines are read the same way as the change's cosine: above
    # chance where the newer names its attribute by words and the older agrees by none ("Ich
    # spiele gern Schach." / "Ich bin nach Leipzig umgezogen." both read as an occupation).
    reader = attribute_above_chance if checked and named and attribute_above_chance else attribute_of
    if short and reader is not None and same_meaning_changed(new, old, newer, older, reader):
        return True
    # Two values of one unit are one quantity's versions by their cosine: the unit they share is
    # what is compared, no word saying they are one thing ("ganhei um bônus de 2.000 reais" /
    # "salário é de 4.500 reais"). Where nothing else agrees, the cosine is read on the English
    # scale, as the paths above read theirs.
    by_unit = above_chance is not None and not agree_beyond_units(new, old)
    quantity_similarity = min(similarity or 0.0, above_chance or 0.0) if by_unit else similarity
    return quantity_similarity is not None and quantity_similarity >= QUANTITY_SIMILARITY and other_quantity(new, old)


def _partner_named(new: Reading, old: Reading) -> bool:
    """The speaker's relationship state changed ("S Petrem jsme se rozešli", "Tom and I broke
    up") with the person an older fact names as the speaker's partner, that fact's subject
    being the partner word itself ("Můj přítel se jmenuje Petr.", "My boyfriend's name is
    Tom."): the older told the relationship, told of the partner."""
    if SELF not in new.subjects or "relationship" not in new.attributes or not old.subjects:
        return False
    partners = {s for s in old.subjects if rule_lexicon().attributes.get(s) == "relationship"}
    return partners == old.subjects and bool(new.names & old.names)


def _names_changed_thing(new: Reading, old: Reading) -> bool:
    """Whether what ``new`` says was moved (a change frame's object, a passive's subject) is
    the older fact's thing: a shared topic word, or in two facts of a compounding language
    the head of the older's compound or name ("festen" / "födelsedagsfest", "Die Feier" /
    "Meine Geburtstagsfeier")."""
    if new.objects & old.topic:
        return True
    if not (new.objects and new.compounds and old.compounds):
        return False
    things = old.topic | old.names | {term for name in old.names for term in terms(name)}
    return any(names_head(part, whole) for part in new.objects for whole in things)
