"""How the supersession rule reads one fact: who it is about, which attributes it names,
whether it says it changes or adds, its topic words, names, quantities and shape.

:mod:`.supersession_rule` decides from two such readings; this module turns a fact's
text into one with the lists of :mod:`.supersession_lexicon` (the frame words of the
fact's own language and the default's, every language's content words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ..language import DEFAULT, Boundary, Token, language_of, lexicon, split, tokens
from .keywords import STOP_WORDS, terms
from .supersession_lexicon import Lexicon, reading_lexicon, spaceless
from .supersession_values import (
    anchored,
    base,
    counts,
    framed,
    in_parentheses,
    is_copula,
    moved,
    quantities,
    told,
    value_kinds,
)
from .versions import version_key

#: Longest facts read for the "X is V" shape: a long memory differs in more than one value.
COPULA_MAX_TOKENS = 14
#: The subject of a fact in the extractor's own voice for the speaker: the last word of the
#: lexicon's label for the user ("the user" -> "user").
SELF = str(lexicon(DEFAULT).get("speakers", "user") or "user").split()[-1].casefold()
#: The assistant in the extractor's voice ("the assistant" -> "assistant"): whose listener is the user.
ASSISTANT = str(lexicon(DEFAULT).get("speakers", "assistant") or "assistant").split()[-1].casefold()


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


@lru_cache(maxsize=65_536)
def read(text: str) -> Reading:
    code = _language(text)
    lex = reading_lexicon(code)
    found = tokens(text)
    words = [t.word for t in found]
    # Names: capitalized words past the first; never a topic ("Emma" changes nothing of "Lisbon").
    names = {t.word for t in found[1:] if t.surface[0].isupper()}
    runs = [w for w in words if spaceless(w)]
    inside = _inside(runs, lex)
    attributes = frozenset(
        [lex.attributes[base(w)] for w in words if base(w) in lex.attributes]
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
        and w not in lex.change_words
        and w not in names
        and base(w) not in frame
        and w not in lex.values
    ]
    topic = frozenset(terms(" ".join(kept)))
    based = [replace(t, word=base(t.word)) for t in found]  # "j'adore": "adore", "user's": "user"
    # The extractor's resolution of a relative date ("Last month (December 2025) the user ...")
    # is no word of the sentence: its subject is still within the opening words.
    said = [t.word for t in found if not in_parentheses(text, t)]
    subjects = _clause_subjects(text, said, lex, frozenset(names))
    held = counts(words, lex)
    said_values = told(text, lex)
    change = lex.change.anywhere(found) or "replacement_words" in inside
    if SELF not in subjects and (attributes & lex.group_attributes or held) and _group_opens(said, lex, len(found)):
        subjects |= {SELF}
    return Reading(
        subjects | {SELF} if _holds_taste(based, lex) else subjects,
        attributes,
        topic,
        lex.additive.anywhere(found) or "additive_words" in inside,
        change,
        _shapes(text, words, lex),
        quantities(said_values),
        anchored([t for t in found if not in_parentheses(text, t)], lex),
        lex.preferences.anywhere(based) or "preference_words" in inside,
        frozenset(
            n for n in names if base(n) not in lex.speaker and base(n) not in lex.attributes and n not in lex.others
        ),
        len(found),
        lex.onsets.anywhere(found) or "onset_words" in inside,
        held,
        _owners(words, lex),
        moved(text, said_values, lex),
        lex.recency.anywhere(found),
        change and _shifts(found, runs, lex),
    )


#: How far into a fact its group subject ("we") may stand: past an opening date ("Last
#: weekend we relocated ..."), not deep in a clause about something else.
GROUP_WINDOW = 5
#: Longest fact whose "we" is read as the speaker: a long memory blends several statements,
#: and its "we" may be any of them.
GROUP_MAX_TOKENS = 20


def _group_opens(words: list[str], lex: Lexicon, size: int) -> bool:
    """Whether a short fact's subject, within its opening words, is a group the speaker
    belongs to ("we", "our home"), not a relative's or pet's ("our dog lives ...")."""
    if size > GROUP_MAX_TOKENS:
        return False
    for i, word in enumerate(words[:GROUP_WINDOW]):
        if word in lex.group_speaker:
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


def _inside(runs: list[str], lex: Lexicon) -> set[str]:
    """The lists (``replacement_words``, ...) with a row inside one of ``runs``, the runs of a
    script written without spaces: "今は紅茶の方が好きです" holds 今は (a change) and 好き (a taste)."""
    if not runs:
        return set()
    return {kind for kind, stems in lex.inside.items() if any(stem in run for stem in stems for run in runs)}


def _phrased(found: list[Token], lex: Lexicon) -> list[str]:
    """The attributes ``found`` names with a multi-word row ("split up": relationship)."""
    out = []
    for i in range(len(found)):
        hit = lex.attribute_phrases.at(found, i)
        if hit is not None:
            out.append(hit[1])
    return out


#: The extractor's label of who said a statement ("The user: Vivo en Sevilla.", "Caroline:
#: ..."): a name of a few words, not a preamble. The statement after it is the fact's first
#: clause, and its language is the statement's, not the label's.
_SPEAKER_LABEL = re.compile(r"^\s*[^\s:]+(?:\s+[^\s:]+){0,2}:\s*")


def _language(text: str) -> str:
    """The language ``text``'s statement is in (past the extractor's label). Its function
    words are no topic (the default's stop words :func:`terms` already drops)."""
    return language_of(_SPEAKER_LABEL.sub("", text, count=1))


#: Where a fact's clauses part: "David passed away in January; the user is a widow." is about
#: David and about the user; a colon opens what a preamble announces ("Some background:
#: they are based in Denver" is about the speaker).
_CLAUSE_BREAK = Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE


def _clause_subjects(text: str, words: list[str], lex: Lexicon, names: frozenset[str] = frozenset()) -> frozenset[str]:
    """Who a fact is about, and the speaker or a relative a later clause is about (a later
    clause's first word is no subject otherwise: ", it's 555-9876 now")."""
    out = _subjects(words, lex, names)
    label = _SPEAKER_LABEL.match(text)
    clauses = split(text[label.end() :] if label else text, _CLAUSE_BREAK)
    for clause in clauses[1:] if len(clauses) > 1 else ():
        found = [t.word for t in tokens(clause)]
        if len(found) >= 2:
            out |= {s for s in _subjects(found, lex) if s == SELF or s in lex.others}
    handed = [lex.addressee_openers.at(tokens(clause), 0) is not None for clause in clauses]
    if label is not None and any(handed):
        # "The assistant: Congratulations on the new job as a bank teller!": the listener's job,
        # and the assistant's listener is the user. The user's "Congrats on the new job!" is
        # the assistant's or someone else's, and a named speaker's listener is not known from
        # one turn: when it opens the fact, the fact is not the speaker's own.
        named = label.group(0).strip(": \t").split()
        speaker = named[-1].casefold() if named else ""
        if speaker == ASSISTANT:
            out |= {SELF}
        elif handed[0]:
            out -= {speaker, SELF}
    return frozenset(out)


#: How far into a fact the speaker named stands as its subject ("Anna and the user ...") ...
SUBJECT_WINDOW = 5
#: ... and past an opening phrase led by a function word ("With the new baby the user ...").
OPENING_PHRASE_WINDOW = 8


def _subjects(words: list[str], lex: Lexicon, names: frozenset[str] = frozenset()) -> frozenset[str]:
    """Who a fact is about: its first word (past "the"), the speaker ("user") for the
    extractor's voice, for an attribute or change word opening a fact written without a
    subject ("Lives in Porto"), and for "the user" named early ("Anna and the user ...");
    the owned thing of a possessive that is not an attribute ("the user's sister ...")."""
    rest = words[1:] if words and words[0] in lex.articles else words
    if not rest:
        return frozenset()
    first = base(rest[0])
    out: set[str] = set()
    other = False
    if first in lex.speaker or first in lex.attributes or first in lex.change_openers:
        out.add(SELF)
        # A possessive: "the user's <owned> ...", or the speaker's own "my" after the
        # extractor's label ("The user: Ma sœur habite à Paris.").
        owner = rest[0] != first or (first == SELF and len(rest) > 1 and rest[1] in lex.speaker)
        owned = next(
            (
                base(w)
                for w in rest[1:4]
                if base(w) not in lex.attributes and base(w) not in lex.speaker and w.isalpha()
            ),
            None,
        )
        if owner and owned in lex.others:
            out, other = {owned}, True
        partner = _partner(rest, lex, names) if owner else None
        if partner is not None:
            out, other = {partner}, True
    else:
        out.add(first)
    # "Anna and the user ...", "Last month (...) the user joined ...": the speaker named early;
    # past an opening phrase ("With the new baby the user is lucky to get ...") a little later.
    named = SELF in (base(w) for w in rest[:SUBJECT_WINDOW])
    # Past the first words only as a subject, not as an owner: "Our dog lives with the user's parents".
    if not named and first in STOP_WORDS:
        named = SELF in rest[SUBJECT_WINDOW:OPENING_PHRASE_WINDOW]
    if named and not other and not (rest[0] != first and first == SELF):
        out.add(SELF)
    return frozenset(out)


#: Words joining two people ("the user's husband and the user"): a couple's fact is the speaker's too.
_JOINERS = lexicon(DEFAULT).words("people_joiners")
#: The attribute whose words tell a name ("called", "se llama"): a partner's name is the
#: speaker's relationship, not a fact of the partner's own.
NAME = "name"


def _partner(rest: list[str], lex: Lexicon, names: frozenset[str]) -> str | None:
    """The partner a possessive names as the subject of what follows ("the user's husband eats
    meat", "the user's wife moved to Paris": theirs), not as the speaker's relationship: the
    partner's name or value ("the user's partner's name is Sam", "the user's husband is David",
    "the user's boyfriend Jake lives with them") nor the couple ("the user's husband and the
    user are going to Portugal")."""
    after = [i for i in (1, 2) if i < len(rest) and rest[i] not in lex.speaker]
    if not after or after[0] + 1 >= len(rest):
        return None
    word, following = rest[after[0]], rest[after[0] + 1 : after[0] + 3]
    if word not in lex.partners or not following[0].isalpha() or following[0] in _JOINERS:
        return None
    if following[0] in names or any(is_copula(w, lex.copulas) or lex.attributes.get(w) == NAME for w in following):
        return None
    return word


def _owners(words: list[str], lex: Lexicon) -> frozenset[str]:
    """The relative a possessive chain opening the fact names past the speaker ("the user's
    sister's visit": sister)."""
    rest = words[1:] if words and words[0] in lex.articles else words
    if len(rest) < 3 or base(rest[0]) not in lex.speaker or rest[0] == base(rest[0]):
        return frozenset()
    owned = rest[1]
    return frozenset({base(owned)}) if owned != base(owned) and base(owned) in lex.others else frozenset()


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
    return frozenset({key, *open_one})


def states_attribute(text: str) -> bool:
    """Whether ``text`` names an attribute a person holds one value of at a time (where they
    live, their phone number, ...): a fact a later one may replace, which an extractor keeps
    as a memory of its own so the replacement takes nothing else with it."""
    return bool(read(text).attributes)
