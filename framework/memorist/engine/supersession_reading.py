"""How the supersession rule reads one fact: who it is about, which attributes it names,
whether it says it changes or adds, its topic words, names, quantities and shape.

:mod:`.supersession_rule` decides from two such readings; this module turns a fact's
text into one with the lists of :mod:`.supersession_lexicon` (the frame words of the
fact's own language and the default's, every language's content words).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from ..language import DEFAULT, Token, lexicon, tokens
from ..language.morphology import compounding, forms, name_stem
from ..language.scripts import has_kana, kana_words
from .keywords import STOP_WORDS, terms
from .supersession_frames import around, passive_subject
from .supersession_lexicon import Lexicon, reading_lexicon
from .supersession_openings import (
    first_clause_continues,
    interjection_end,
    opens_as_condition,
    past_interjection,
    past_time_word,
)
from .supersession_owners import genitive_owner, labelled_owner, possessive_owners, run_owner
from .supersession_rows import spaceless
from .supersession_speakers import ASSISTANT, SELF, SPEAKER_LABEL, statement_language
from .supersession_subjects import (
    NAME,
    _clause_subjects,
    _labelled_name,
    common_openings,
    names_partner,
)
from .supersession_values import (
    anchored,
    base,
    counts,
    ended,
    framed,
    in_parentheses,
    moved,
    quantities,
    told,
    value_kinds,
)
from .versions import version_key

#: Longest facts read for the "X is V" shape: a long memory differs in more than one value.
COPULA_MAX_TOKENS = 14


@dataclass(frozen=True)
class Reading:
    """What the rule needs of one fact's text."""

    subjects: frozenset[str]
    attributes: frozenset[str]
    topic: frozenset[str]
    additive: bool
    change: bool
    #: The text's value-masked shapes when it is a short "X is V" statement (else empty).
    shapes: frozenset[str]
    #: Its quantities as (unit, value): ("hour", "7"), ("$", "400"), (":", "9:30").
    quantities: frozenset[tuple[str, str]] = frozenset()
    #: Whether it places itself at a point in time (a weekday, a month, "yesterday"): an event.
    anchored: bool = False
    #: Whether it states a taste ("favourite", "prefers", "is into"): the preference slot.
    preference: bool = False
    #: The people and things it names (capitalized words past the first): "Mia", "Pixel".
    names: frozenset[str] = frozenset()
    #: How many words it has.
    size: int = 0
    #: Whether it says a habit began ("has started picking aisle seats").
    onset: bool = False
    #: Counts of things a person has, as (what is counted, number, told as an ordinal):
    #: ("children", 2, False) for "has two kids", ("children", 3, True) for "third child".
    counts: frozenset[tuple[str, int, bool]] = frozenset()
    #: The relatives whose thing the speaker's possessive names: "sister" in "the user's
    #: sister's visit" (the visit is the user's to plan and the sister's to make).
    owners: frozenset[str] = frozenset()
    #: The units of the quantities it says moved ("down to 76 kg": "kg").
    moved: frozenset[str] = frozenset()
    #: Whether it says it holds of late ("lately"): a taste told so has changed.
    recent: bool = False
    #: Whether it says a state changed, not only that a thing is new ("switched", "now"; not
    #: "bought a new coffee machine"): an older taste's change needs no taste word of its own.
    shift: bool = False
    #: The words qualifying which of a slot's several values it tells ("work", "personal",
    #: "home", "mobile"): a work and a personal e-mail are two values, both current.
    qualifiers: frozenset[str] = frozenset()
    #: The terms of what a change frame moved ("moved dinner to Sunday": "dinner"), whoever
    #: moved it: an older fact about that thing holds its old value.
    objects: frozenset[str] = frozenset()
    #: Whether its language writes compounds as one word ("födelsedagsfest"): a thing named by
    #: a compound's last part is the compound's (:func:`memorist.language.morphology.names_head`).
    compounds: bool = False
    #: Whether it tells a value as a goal ("goal weight 75 kg", "Mein Ziel sind 85 Kilo"): a
    #: target is another slot than the value the person holds now.
    goal: bool = False
    #: Whether it tells the fact as wished or weighed ("might move to Berlin someday"): not so now.
    hypothetical: bool = False
    #: Whether it places the fact in a past stretch of life ("lived in Germany as a kid").
    past_stint: bool = False
    #: Whether it tells an offer made or turned down ("offered me a job, but I said no").
    offer: bool = False
    #: Whether it tells that a state goes on ("still at the bank"): what holds, restated.
    continues: bool = False
    #: The capitalized word opening the statement past the extractor's label, read as a name
    #: ("The user: Eli turned 8"), as (the word, its name stem, its topic terms): another
    #: fact may show it is a word (:func:`opening_as_word`).
    opening: tuple[str, str, frozenset[str]] | None = None
    #: Whether it tells a value of which a person holds several at once (an allergy, ``several_values``
    #: rows): two such facts of different values add to each other unless a change word ties them.
    several: bool = False


def _chain_owners(found: list[Token], lex: Lexicon, code: str) -> frozenset[str]:
    """The relatives a possessive chain opening ``found`` names, past an interjection, before
    or after the extractor's label ("The user: euh ma soeur habite à Grenoble")."""
    words = [t.word for t in found]
    start = interjection_end(found, 0, code)
    if start == 0 and len(words) > 2 and words[0] in lex.articles and words[1] == SELF:
        return possessive_owners(words[:2] + words[interjection_end(found, 2, code) :], lex)
    return possessive_owners(words[start:], lex)


@lru_cache(maxsize=65_536)
def read(text: str) -> Reading:
    code = statement_language(text)
    lex = reading_lexicon(code)
    found = tokens(text)
    words = [t.word for t in found]
    # Names: capitalized words past the first; never a topic ("Emma" changes nothing of "Lisbon").
    # A sentence's opening word the language lists as a common one is no name ("Då har ni ...").
    commons = common_openings(text, found)
    names = {t.word for i, t in enumerate(found) if i and t.surface[0].isupper() and i not in commons}
    runs = [w for w in words if spaceless(w)]
    inside = lex.inside_kinds(runs)
    attributes = frozenset(
        [
            lex.attributes[base(w)]
            for i, w in enumerate(words)
            if base(w) in lex.attributes and not _qualifies(words, i, lex)
        ]
        + _phrased(found, lex)
        + value_kinds(text)
        + framed(text, found, lex)
        + [attribute for stem, attribute in lex.inside_attributes if any(stem in run for run in runs)]
    )
    frame = lexicon(code).words("function_words") if code != DEFAULT else frozenset()
    kept = [
        base(w)
        for w in words
        if w[0].isalpha()
        and base(w) not in lex.speaker
        # The label's "assistant" says who spoke, as "user" does: two of its statements share
        # no topic by it ("vous jouez du piano" / "vous habitez maintenant à Bordeaux").
        and base(w) != ASSISTANT
        and w not in lex.change_words
        and w not in names
        and base(w) not in frame
        and w not in lex.values
    ]
    # Japanese: its content words by script, not character pairs across kana endings ("ます",
    # "いま" are in any two statements), less the runs of the rows read inside a run ("今は").
    japanese = [w for w in kept if has_kana(w)]
    said_of = _inside_runs(lex) if japanese else frozenset()
    topic = frozenset(terms(" ".join(w for w in kept if not has_kana(w)))) | frozenset(
        run for w in japanese for run in kana_words(w) if run not in said_of
    )
    based = [replace(t, word=base(t.word)) for t in found]  # "j'adore": "adore", "user's": "user"
    # The extractor's resolution of a relative date ("Last month (December 2025) the user ...")
    # is no word of the sentence: its subject is still within the opening words.
    spoken = past_interjection(text, found, code)
    # "As of March my sister's rent ...", "Ahora mi madre vive ...": past the date or the word
    # saying the change, the possessive chain opens what the speaker said.
    dated = past_time_word(spoken, lex)
    spoken_found = found if dated is text else tokens(dated)
    said = [t.word for t in spoken_found if not in_parentheses(dated, t)]
    # The possessive chain is read from there too ("the user's sister's rent").
    chain = found if dated is spoken else spoken_found
    spoken = dated
    # "The user: Mia turned 5 yesterday" is about Mia too (the speaker stays a subject: a
    # statement in a language that drops its pronoun opens with a verb, "Corro 25 km").
    labelled = _labelled_name(spoken, lex)
    subjects = _clause_subjects(spoken, said, lex, frozenset(names)) | labelled
    # "syrran" and "min syster", "mamma" and "mia madre": one relative, whichever word told it.
    subjects = frozenset(lex.kin.get(s, s) for s in subjects)
    held = counts(words, lex)
    if NAME in attributes and names_partner(words, lex):
        attributes -= {NAME}  # "the user's husband is called Mark": his name, not the user's
    said_values = told(text, lex)
    gaps = around(text, found, lex.change_frames, lex.clause_joiners)
    # "The user's parents asked to move dinner to Sunday": what a change frame moved.
    objects = frozenset(
        term
        for gap in gaps
        for t in gap
        if t.word.isalpha() and t.word not in STOP_WORDS and base(t.word) not in frame | lex.speaker
        for term in terms(base(t.word))
    )
    # "The user: offsite got moved to denver", "festen flyttas till söndag": a passive change's
    # subject is the thing changed, as a change frame's object is.
    passive = passive_subject(text, found, lex)
    objects |= frozenset(
        term
        for t in passive or ()
        if t.word.isalpha() and t.word not in STOP_WORDS and base(t.word) not in frame | lex.speaker | lex.articles
        for form in forms(base(t.word), code)
        for term in terms(form)
    )
    framed_change = bool(gaps) or bool(around(text, found, lex.negation_frames, lex.clause_joiners))
    framed_change = framed_change or passive is not None
    change = lex.change.anywhere(found) or "replacement_words" in inside or framed_change
    if SELF not in subjects and (attributes & lex.group_attributes or held) and _group_opens(said, lex, len(found)):
        subjects |= {SELF}
    return Reading(
        subjects | {SELF} if _holds_taste(based, lex) else subjects,
        attributes,
        topic,
        _adds(found, lex) or "additive_words" in inside or _closing_additive(text, found, lex),
        change,
        _shapes(text, words, lex),
        quantities(said_values),
        anchored([t for t in found if not in_parentheses(text, t)], lex),
        lex.preferences.anywhere(based) or "preference_words" in inside,
        frozenset(
            name_stem(n, code)  # "s Petrem" names Petr: a name in another case is the same name
            for n in names
            if (base(n) not in lex.speaker or n in labelled) and base(n) not in lex.attributes and n not in lex.others
        ),
        len(found),
        lex.onsets.anywhere(found) or "onset_words" in inside,
        held,
        # "btw the user's brother got a new phone": the chain opens past an interjection, told
        # with or without a comma after it.
        frozenset(lex.kin.get(o, o) for o in _chain_owners(chain, lex, code))
        | _genitive(words, text, lex, code)
        | labelled_owner(text, lex),
        moved(text, said_values, lex),
        lex.recency.anywhere(found),
        change and (framed_change or _shifts(found, runs, lex)),
        _qualifiers(words, runs, lex),
        objects,
        compounding(code),
        lex.goals.anywhere(based) or "goal_words" in inside,
        lex.hypothetical.anywhere(found) or "hypothetical_words" in inside or opens_as_condition(text, lex),
        lex.past_stints.anywhere(found) or "past_stint_words" in inside or ended(words, lex),
        lex.offers.anywhere(found) or "offer_words" in inside,
        first_clause_continues(spoken, lex),
        next(((w, name_stem(w, code), frozenset(terms(base(w)))) for w in labelled), None),
        lex.several.anywhere(found) or any(row in run for run in runs for row in lex.several_inside),
    )


def _qualifies(words: list[str], at: int, lex: Lexicon) -> bool:
    """Whether the word at ``at`` qualifies the attribute word after it ("work" of "work
    email", "work phone"): which of that attribute's values it is, not an attribute itself."""
    word = words[at]
    if word not in lex.qualifiers or at + 1 >= len(words):
        return False
    following = lex.attributes.get(base(words[at + 1]))
    return following is not None and following in lex.qualified_attributes


def _genitive(words: list[str], text: str, lex: Lexicon, code: str) -> frozenset[str]:
    """The relative a genitive names as the owner of the thing a fact opens with ("El alquiler
    de mi hermana ..."): an owner, so the relative's thing replaces none of the speaker's own,
    though the fact stays the speaker's to tell, as a later "la boda será el 19" that names no
    one still moves the relative's wedding."""
    labelled = SPEAKER_LABEL.match(text) is not None
    owner = genitive_owner(words, lex, labelled, code)
    if owner is None and labelled and len(words) > 2 and words[1] == SELF:
        owner = run_owner(words[2])  # "The user: 我妈的手机号是..."
    return frozenset() if owner is None else frozenset({lex.kin.get(owner, owner)})


def _inside_runs(lex: Lexicon) -> frozenset[str]:
    """The Han and katakana runs of the change, additive, taste and novelty rows read inside
    a run ("今は", "新しい", "延期"): what a statement says of its fact, not what it is about."""
    return frozenset(run for rows in lex.inside.values() for row in rows for run in kana_words(row))


def _adds(found: list[Token], lex: Lexicon) -> bool:
    """Whether an ``additive_words`` row says the fact adds to what was told, not after a
    definite article ("the other one got spammed", "el otro", "der andere"): a thing told
    before, referred back to, is the replaced value rather than one more beside it."""
    return any(
        (hit := lex.additive.at(found, i)) is not None
        and not (i and found[i - 1].word in lex.definite_articles)
        and not _of_time(found, i + hit[0], lex)
        for i in range(len(found))
    )


#: How many words may stand between an additive word and the period it counts ("another good week").
PERIOD_REACH = 2


def _of_time(found: list[Token], at: int, lex: Lexicon) -> bool:
    """Whether a period word (``period_words``: "week", "semana", "Woche") follows an additive
    word within :data:`PERIOD_REACH` words: "Another good week, I'm at 85 kg now" tells time
    passing, not one more thing beside the older."""
    return any(t.word in lex.periods for t in found[at : at + PERIOD_REACH])


#: What may follow a closing additive word: a mark ending its clause, or the text's end.
_CLAUSE_END = frozenset(",.;:!?)")


def _closing_additive(text: str, found: list[Token], lex: Lexicon) -> bool:
    """Whether a ``closing_additive_words`` row ends a clause ("got a new number too, ...")
    rather than saying a degree before a word ("too heavy")."""
    for token in found:
        if token.word in lex.closing_additive:
            after = text[token.end :].lstrip()
            if not after or after[0] in _CLAUSE_END:
                return True
    return False


def _qualifiers(words: list[str], runs: list[str], lex: Lexicon) -> frozenset[str]:
    """The slot qualifiers a fact holds, past an elided article ("dell'ufficio", "d'entreprise";
    in a script without spaces, inside a run)."""
    found = {base(w) for w in words if base(w) in lex.qualifiers}
    if runs:  # no run, nothing to look inside: skip checking every qualifier's script
        spaced = [q for q in lex.qualifiers if spaceless(q)]
        found |= {q for q in spaced for run in runs if q in run}
    return frozenset(found)


#: How far into a fact its group subject ("we") may stand: past an opening date ("Last
#: weekend we relocated ..."), not deep in a clause about something else.
GROUP_WINDOW = 5
#: Longest fact whose "we" is read as the speaker: a long memory blends several statements,
#: and its "we" may be any of them.
GROUP_MAX_TOKENS = 20


def _group_opens(words: list[str], lex: Lexicon, size: int) -> bool:
    """Whether a short fact's subject, within its opening words, is a group the speaker
    belongs to ("we", "we've", "our home"), not a relative's or pet's ("our dog lives ...")."""
    if size > GROUP_MAX_TOKENS:
        return False
    for i, word in enumerate(words[:GROUP_WINDOW]):
        # A subject with its verb's clitic ("we've moved", "we're based") is the subject.
        if word in lex.group_speaker or word.split("'", 1)[0] in lex.group_speaker:
            owned = words[i + 1] if i + 1 < len(words) else ""
            return base(owned) not in lex.others
    return False


def _shifts(found: list[Token], runs: list[str], lex: Lexicon) -> bool:
    """Whether a change word other than a ``novelty_words`` one ("new") stands in the fact."""
    if any(lex.change.at(found, i) is not None and lex.novelty.at(found, i) is None for i in range(len(found))):
        return True
    novel = lex.inside.get("novelty_words", frozenset())
    return any(stem in run for stem in lex.inside.get("replacement_words", ()) if stem not in novel for run in runs)


def _holds_taste(based: list[Token], lex: Lexicon) -> bool:
    """Whether the speaker holds a taste the fact names, wherever it stands: "Padel has
    replaced tennis as the user's favourite sport", "Thai food is what the user craves now"
    are the user's tastes though they open with the thing."""
    return any(t.word == SELF and lex.preferences.at(based, i + 1) is not None for i, t in enumerate(based))


def _phrased(found: list[Token], lex: Lexicon) -> list[str]:
    """The attributes ``found`` names with a multi-word row ("split up": relationship)."""
    out = []
    for i in range(len(found)):
        hit = lex.attribute_phrases.at(found, i)
        if hit is not None:
            out.append(hit[1])
    return out


def _shapes(text: str, words: list[str], lex: Lexicon) -> frozenset[str]:
    """A short "X is V" fact's version key, and the key with each word left open."""
    if (
        len(words) > COPULA_MAX_TOKENS
        or not lex.copulas & {w for w in words}
        and not any(w.endswith(("'s", "’s")) for w in words[2:])
    ):
        return frozenset()
    key = version_key(text)
    if key is None:
        return frozenset()
    tokens = key.split(" ")
    open_one = {
        " ".join([*tokens[:i], "*", *tokens[i + 1 :]])
        for i, token in enumerate(tokens)
        if token[0].isalpha() and token not in STOP_WORDS and base(token) not in lex.speaker
    }
    # "the user's new manager is #" is a version of "the user's manager is #": a novelty word
    # ("new", "nuevo", "neuer") before the attribute says the value changed, not what it is.
    plain = " ".join(t for t in tokens if t not in lex.novelty_words)
    return frozenset({key, plain, *open_one})


def states_attribute(text: str) -> bool:
    """Whether ``text`` names an attribute a person holds one value of at a time (where they
    live, their phone number, ...): a fact a later one may replace, which an extractor keeps
    as a memory of its own so the replacement takes nothing else with it."""
    return bool(read(text).attributes)
