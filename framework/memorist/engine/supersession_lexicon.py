"""The word lists the supersession rule reads, loaded from the language layer's lexicons.

:mod:`.supersession_rule` is the mechanism; this module gathers its data: each
language's ``exclusive_attributes`` (with their multi-word ``attribute_phrases``:
"broke up", "tied the knot"), ``preference_words``, ``replacement_words``,
``additive_words`` and the short frame words. Content words are read from every
language at once; frame words only from the statement's own language and the default
(see :func:`reading_lexicon`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from ..language import DEFAULT, Phrases, fold, languages, lexicon
from ..language.calendar import calendar_words
from .supersession_kin import kin, partners, relatives
from .supersession_rows import Frame, Gapped, frame, gapped, passives, spaceless, with_objects

#: The reporting frames that count only where they open a statement ("Noted, ...").
REPORTING_OPENERS = "reporting_openers"
#: The words opening an assistant's recap of what it was told ("So ...", "Donc ..."): openers too.
RECAP_OPENERS = "recap_openers"
#: The reporting frames that count within a statement's opening words.
REPORTING = "reporting_frames"
#: A speaker's announcement of what they tell next ("I wanted to let you know that ...").
TELLING = "telling_frames"
#: Announcements that count only where a sentence opens ("FYI", "Quick update:").
TELLING_OPENERS = "telling_openers"
#: The speaker asking the listener to keep what follows ("save ...", "note down ...", "zapisz ...").
RECORD_REQUESTS = "record_requests"


@dataclass(frozen=True)
class Lexicon:
    """The supersession rule's word lists, read from the language layer's lexicon."""

    attributes: dict[str, str]  # word -> attribute
    additive: Phrases
    change: Phrases
    change_words: frozenset[str]
    change_openers: frozenset[str]
    copulas: frozenset[str]
    speaker: frozenset[str]
    others: frozenset[str]
    #: Longest first: "user's" is "user", not "user'".
    possessive_endings: tuple[str, ...]
    articles: frozenset[str]
    role: tuple[Frame, ...]
    age: tuple[Frame, ...]
    #: Elided words' openings, longest first: French "j'habite" is "habite".
    elisions: tuple[str, ...] = ()
    #: Months and weekdays: a number before one is a date.
    calendar: frozenset[str] = frozenset()
    ordinals: frozenset[str] = frozenset()
    relative_dates: Phrases = Phrases({})
    #: Multi-word attribute rows, labelled with their attribute: "broke up", "tied the knot".
    attribute_phrases: Phrases = Phrases({})
    #: Words that state a taste ("favourite", "prefers", "is into"): the preference slot.
    preferences: Phrases = Phrases({})
    #: Words by which a date opens a state rather than placing an event: "from next week".
    state_openers: Phrases = Phrases({})
    #: Words by which a fact says a habit began ("started", "angefangen"): a change only when
    #: the two facts are close in meaning, since a begun habit is as often one more.
    onsets: Phrases = Phrases({})
    #: Words of things a person has a count of -> what they count ("kids": "children").
    counted: dict[str, str] = field(default_factory=dict)
    #: Count words -> their number ("two": 2) and ordinals -> theirs ("third": 3).
    numbers: dict[str, int] = field(default_factory=dict)
    ordinals_counted: dict[str, int] = field(default_factory=dict)
    #: Rows in a script written without spaces (Japanese, Chinese, Thai): a tokenizer returns
    #: a whole run there, so these are found inside a run rather than as a word of it.
    #: Attribute stems as (stem, attribute); the other lists as {list name: stems}.
    inside_attributes: tuple[tuple[str, str], ...] = ()
    inside: dict[str, frozenset[str]] = field(default_factory=dict)
    #: A group the speaker belongs to ("we", "our") and the attributes it shares with them
    #: (where they live): "we relocated to Nashville" is where the speaker lives.
    group_speaker: frozenset[str] = frozenset()
    group_attributes: frozenset[str] = frozenset()
    #: Words by which a speaker hands what follows to their listener ("Congratulations on
    #: the new job"): a clause opening with one is about the listener.
    addressee_openers: Phrases = Phrases({})
    #: Words of a value rather than a topic ("a lot of", "two", "weekly", "km"): what changes
    #: between versions, never what two facts are about.
    values: frozenset[str] = frozenset()
    #: A unit's words -> its one name ("kilos": "kg"), every language's.
    units: dict[str, str] = field(default_factory=dict)
    #: Words right before a quantity that say it moved ("down to 76 kg", "涨到3500元"), folded.
    quantity_changes: tuple[str, ...] = ()
    #: Words by which a fact says it holds of late ("lately"): a taste's change, nothing else's.
    recency: Phrases = Phrases({})
    #: Words naming a partner ("husband", "novia"): a possessed one may be a subject of its own.
    partners: frozenset[str] = frozenset()
    #: Change words that tell a new thing, not a changed state ("new"): no taste's change alone.
    novelty: Phrases = Phrases({})
    #: The single words of ``novelty_words`` ("new", "nuevo"): left out of an "X is V" shape.
    novelty_words: frozenset[str] = frozenset()
    #: Words that qualify one value of a slot a person may hold several of at once ("work",
    #: "personal", "home", "mobile") -> their group: two values told with different qualifiers
    #: of a group ("work email" / "personal email") are two values, not two versions.
    qualifiers: dict[str, str] = field(default_factory=dict)
    #: The attributes such qualifiers split (phone, email, address).
    qualified_attributes: frozenset[str] = frozenset()
    #: Words joining a clause to the one before ("and", "so", "y", "und"): no subject of it.
    clause_joiners: frozenset[str] = frozenset()
    #: Words joining one event to the next ("and then", "und dann"): a clause's start where
    #: dictated speech has no punctuation.
    sequence_joiners: Phrases = Phrases({})
    #: Case and topic particles glued to a noun (Korean "여동생이", "남동생도"), longest first:
    #: the word without one is the noun a list names (:func:`.supersession_values.base`).
    noun_particles: tuple[str, ...] = ()
    #: Additive words only where they close a clause ("a new number too,"; not "too heavy").
    closing_additive: frozenset[str] = frozenset()
    #: Words after a noun that make it the owner of the next ("बहन की शादी": the sister's
    #: wedding), as English's "'s" does: the owned thing, not the owner, is what a fact is about.
    possessive_particles: frozenset[str] = frozenset()
    #: Words after a thing that make the next person its owner ("el alquiler de mi hermana",
    #: "the rent of the user's sister"): the statement's own language's, as frame words are.
    genitive_prepositions: frozenset[str] = frozenset()
    #: Endings a language's genitive puts on a noun with no apostrophe ("min vens nummer", my
    #: friend's number; "mammas adress"): the statement's own language's, as frame words are.
    genitive_suffixes: tuple[str, ...] = ()
    #: The speaker's possessive in the genitive case ("meiner", "моей"): after a thing, it makes
    #: the relative after it the thing's owner with no preposition ("die Miete meiner Schwester").
    genitive_possessives: frozenset[str] = frozenset()
    #: Definite articles ("the", "el", "der"): an additive word after one refers back to a
    #: thing already told ("the other one got spammed"), not to one more. The statement's own
    #: language's: Portuguese "a" is English's indefinite article ("a second number").
    definite_articles: frozenset[str] = frozenset()
    #: Words right after a quantity (and its counter) that say it moved there: Japanese
    #: "1杯に減らしました", Korean "1잔으로 줄였어요", where the verb follows the number. Folded.
    quantity_changes_after: tuple[str, ...] = ()
    #: A change told around its object ("move … to": "moved dinner to Sunday"), as (the words
    #: before the gap, the words after it); the words in the gap name what changed.
    change_frames: tuple[Gapped, ...] = ()
    #: "No longer" told around its verb ("ne … plus", "non … più", "não … mais").
    negation_frames: tuple[Gapped, ...] = ()
    #: A listener's frame around a fact it reports ("will remember that", "je retiens que"):
    #: the fact is the clause after it (``reporting_frames``) or, in a language that puts
    #: the verb last, before it (``reporting_frames_after``: "と覚えておきます").
    reporting: Phrases = Phrases({})
    reporting_after: tuple[str, ...] = ()
    #: A speaker's frame announcing the fact it tells ("wanted to let you know that", "хочу
    #: сообщить, что", "FYI"), labelled with its row (``telling_frames``, ``telling_openers``);
    #: in a language that puts the verb last, the frame after the fact (``telling_frames_after``:
    #: "とお知らせします"), folded; the spaceless ``telling_frames``, folded, longest first, found
    #: inside a run past a subject ("我想告诉你我搬到上海了").
    telling: Phrases = Phrases({})
    telling_after: tuple[str, ...] = ()
    telling_inside: tuple[str, ...] = ()
    #: The listener's words ("you", "your"; "tu", "ton"; "du", "dein"): in what the assistant
    #: says, its listener, the user. Every language's.
    listener: frozenset[str] = frozenset()
    #: Change words that say when, not that a value ended ("now", "jetzt"): the restated rule
    #: does not read them as a change of the value beside them.
    now_words: Phrases = Phrases({})
    #: Words that join two values both held ("and", "as well as", "y", "und").
    coordinators: Phrases = Phrases({})
    #: Words that tie two values as a replacement ("instead of", "from ... to", "statt").
    replacement_markers: Phrases = Phrases({})
    #: A change told in the passive or with the changed thing as subject ("got moved",
    #: "wurde … verschoben", "flyttas"): the words before it name what changed. Rows written
    #: with a gap keep the participle last; a contiguous row has an empty tail.
    passive_changes: tuple[Gapped, ...] = ()
    #: Each relative word told another way ("syrran", "mamma") -> the word its language's
    #: ``relative_forms`` heads it with ("syster", "madre"): one person either way.
    kin: dict[str, str] = field(default_factory=dict)
    #: Words naming a stretch of time ("week", "semana"): "another week" adds no thing.
    periods: frozenset[str] = frozenset()
    #: Words telling a value as a goal ("goal", "Ziel", "目標"): a target is not a value held.
    goals: Phrases = Phrases({})
    #: Words telling a fact as wished or weighed ("might", "someday", "kepikiran"): not so now.
    hypothetical: Phrases = Phrases({})
    #: Words opening a statement as a condition ("if", "wenn", "如果"): what follows is supposed.
    conditions: Phrases = Phrases({})
    #: Those of them written inside a run, in a script without spaces ("如果", "もし").
    condition_runs: tuple[str, ...] = ()
    #: Words placing a fact in a past stretch of life ("as a kid", "çocukken"): a past stint.
    past_stints: Phrases = Phrases({})
    #: Words ending a state at the date after them ("until", "hasta", "直到") or before them
    #: ("kadar", "まで"): a state told with its end is a stint.
    until: frozenset[str] = frozenset()
    until_after: frozenset[str] = frozenset()
    #: Words telling an offer made or turned down ("offered me", "j'ai dit non"): no new state.
    offers: Phrases = Phrases({})
    #: Words of a value a person holds several of at once ("allergic", "Allergie", "аллергия"),
    #: and the spaceless ones, found inside a run ("アレルギー", "过敏").
    several: Phrases = Phrases({})
    several_inside: tuple[str, ...] = ()
    #: Words telling that a state goes on ("still", "todavía", "まだ"): what holds, restated.
    continuations: Phrases = Phrases({})
    #: ``calendar`` and every language's month and weekday names (CLDR's, written out): the
    #: date a state opener opens ("ab Montag", "vanaf 1 maart"). ``calendar`` alone keeps the
    #: lexicons' rows, by which a fact is placed at a point in time.
    dates: frozenset[str] = frozenset()

    def inside_kinds(self, runs: list[str]) -> set[str]:
        """The lists (``replacement_words``, ...) with a row inside one of ``runs``, the runs of
        a script written without spaces: "今は紅茶の方が好きです" holds 今は (a change) and 好き
        (a taste)."""
        if not runs:
            return set()
        return {kind for kind, stems in self.inside.items() if any(stem in run for stem in stems for run in runs)}

    @classmethod
    def load(cls, codes: tuple[str, ...] = (DEFAULT,)) -> Lexicon:
        """The lists of the languages ``codes``, merged (a word two languages name keeps the
        attribute of the first)."""
        lexes = [lexicon(code) for code in codes]
        attributes: dict[str, str] = {}
        for lex in lexes:
            for name in lex.get("exclusive_attributes") or {}:
                for word in lex.words("exclusive_attributes", name):
                    attributes.setdefault(word, name)
        change = [p for lex in lexes for p in lex.phrases("replacement_words")]

        def union(name: str) -> frozenset[str]:
            return frozenset().union(*(lex.words(name) for lex in lexes))

        def merged(name: str) -> Phrases:
            return Phrases({p: name for lex in lexes for p in lex.phrases(name)})

        return cls(
            attributes,
            merged("additive_words"),
            # A plan called off ("doch nicht", "al final no"), the language's "instead" ("místo
            # toho", "in plaats daarvan"), a change's noun ("changement de programme") and the
            # language's "hardly any more" ("knappt längre", "kaum noch") say a
            # change as a replacement row does, but their words stay out of the change words:
            # "till", "в", "toho", "programme" are topic or frame.
            Phrases(
                {p: "replacement_words" for lex in lexes for p in with_objects(lex, "replacement_words")}
                | {p: "replacement_words" for lex in lexes for p in lex.phrases("call_off_words")}
                | {p: "replacement_words" for lex in lexes for p in lex.phrases("instead_words")}
                | {p: "replacement_words" for lex in lexes for p in lex.phrases("change_nouns")}
                | {p: "replacement_words" for lex in lexes for p in lex.phrases("hardly_words")}
            ),
            frozenset(w for p in change for w in p.split()),
            frozenset(p.split()[0] for p in change),
            union("copulas"),
            union("speaker_words"),
            relatives(lexes),
            tuple(sorted(union("possessive_endings"), key=len, reverse=True)),
            union("articles"),
            tuple(f for code in codes if (f := frame(code, "role_frame")) is not None),
            tuple(f for code in codes if (f := frame(code, "age_frame")) is not None),
            tuple(sorted(union("elisions"), key=len, reverse=True)),
            union("months") | union("weekdays"),
            union("ordinal_suffixes"),
            Phrases({fold(p): "relative_dates" for lex in lexes for p in lex.mapping("relative_dates")}),
            Phrases(
                {
                    p: name
                    for lex in reversed(lexes)
                    for name in lex.get("attribute_phrases") or {}
                    for p in lex.phrases("attribute_phrases", name)
                }
            ),
            merged("preference_words"),
            merged("state_openers"),
            merged("onset_words"),
            {
                w: name
                for lex in lexes
                for name in lex.get("counted_things") or {}
                for w in lex.words("counted_things", name)
            },
            {
                k: int(v)
                for lex in lexes
                for rows in ("number_words", "count_words")
                for k, v in lex.mapping(rows).items()
                if " " not in k
            },
            {k: int(v) for lex in lexes for k, v in lex.mapping("ordinal_words").items()},
            tuple((word, name) for word, name in attributes.items() if spaceless(word)),
            {kind: frozenset(p for lex in lexes for p in lex.phrases(kind) if spaceless(p)) for kind in INSIDE_LISTS},
            union("group_speaker_words"),
            union("group_attributes"),
            merged("addressee_openers"),
            frozenset().union(*(lex.words("value_words", "self") for lex in lexes)),
            {
                fold(w): name
                for lex in lexes
                for name in lex.get("unit_words") or {}
                for w in lex.words("unit_words", name)
            },
            tuple(fold(" ".join(p.split())) for lex in lexes for p in lex.phrases("quantity_changes")),
            merged("recency_words"),
            partners(lexes),
            merged("novelty_words"),
            novelty_words=frozenset(w for lex in lexes for w in lex.words("novelty_words")),
            qualifiers={
                fold(w): name
                for lex in lexes
                for name in lex.get("slot_qualifiers") or {}
                if name != "attributes"
                for w in lex.words("slot_qualifiers", name)
            },
            qualified_attributes=frozenset().union(*(lex.words("slot_qualifiers", "attributes") for lex in lexes)),
            clause_joiners=union("clause_joiners"),
            sequence_joiners=merged("sequence_joiners"),
            noun_particles=tuple(sorted(union("noun_particles"), key=len, reverse=True)),
            closing_additive=union("closing_additive_words"),
            possessive_particles=union("possessive_particles"),
            periods=union("period_words"),
            goals=merged("goal_words"),
            hypothetical=merged("hypothetical_words"),
            conditions=merged("condition_openers"),
            condition_runs=tuple(fold(p) for lex in lexes for p in lex.phrases("condition_openers") if spaceless(p)),
            past_stints=merged("past_stint_words"),
            until=union("until_words"),
            until_after=union("until_after_words"),
            offers=merged("offer_words"),
            several=merged("several_values"),
            several_inside=tuple(p for lex in lexes for p in lex.phrases("several_values") if spaceless(p)),
            continuations=merged("continuation_words"),
            genitive_prepositions=union("genitive_prepositions"),
            genitive_suffixes=tuple(sorted(union("genitive_suffixes"), key=len, reverse=True)),
            genitive_possessives=union("genitive_possessives"),
            definite_articles=union("definite_articles"),
            quantity_changes_after=tuple(
                fold(" ".join(p.split())) for lex in lexes for p in lex.phrases("quantity_changes_after")
            ),
            change_frames=gapped(lexes, "change_frames"),
            negation_frames=gapped(lexes, "negation_frames"),
            reporting=Phrases(
                {p: name for name in (REPORTING, REPORTING_OPENERS) for lex in lexes for p in lex.phrases(name)}
                # A recap's opener ("So ...", "Donc ...") wraps the fact that follows it as a
                # reporting opener does, where a sentence opens.
                | {p: RECAP_OPENERS for lex in lexes for p in lex.phrases(RECAP_OPENERS)}
            ),
            reporting_after=tuple(p for lex in lexes for p in lex.phrases("reporting_frames_after")),
            telling=Phrases(
                {
                    p: name
                    for name in (TELLING, TELLING_OPENERS, RECORD_REQUESTS)
                    for lex in lexes
                    for p in lex.phrases(name)
                }
            ),
            telling_after=tuple(
                sorted({p for lex in lexes for p in lex.phrases("telling_frames_after")}, key=len, reverse=True)
            ),
            telling_inside=tuple(
                sorted(
                    {p for lex in lexes for p in lex.phrases(TELLING) if spaceless(p)},
                    key=len,
                    reverse=True,
                )
            ),
            listener=union("listener_words"),
            now_words=merged("now_words"),
            coordinators=merged("coordinators"),
            replacement_markers=merged("replacement_markers"),
            passive_changes=passives(lexes),
            kin=kin(lexes),
            dates=frozenset().union(
                union("months"), union("weekdays"), *(calendar_words(code, ("wide",)) for code in codes)
            ),
        )


#: The lists whose spaceless rows :class:`Lexicon` keeps for matching inside a run.
INSIDE_LISTS = (
    "replacement_words",
    "additive_words",
    "preference_words",
    "onset_words",
    "novelty_words",
    "goal_words",
    "hypothetical_words",
    "past_stint_words",
    "offer_words",
    "continuation_words",
)


@lru_cache(maxsize=1)
def rule_lexicon() -> Lexicon:
    """Every language's lists that has them (the default language's first)."""
    codes = [DEFAULT, *(c for c in languages() if c != DEFAULT)]
    return Lexicon.load(tuple(c for c in codes if lexicon(c).get("exclusive_attributes")))


def _default_first_person(code: str) -> frozenset[str]:
    """The default language's first-person words that language ``code`` does not list as its own."""
    own = lexicon(code).words("speaker_words") | lexicon(code).words("first_person")
    return lexicon(DEFAULT).words("first_person") - own


#: The rows of a language's own grammar: its words that join, open or frame a clause.
_GRAMMAR_ROWS = ("function_words", "clause_joiners", "recap_openers", "articles", "sequence_joiners")


def _grammar_words(code: str) -> frozenset[str]:
    """The words language ``code``'s grammar uses (folded) that it does not list as additive:
    another language's additive word among them says nothing there (German "also" is "so",
    not English "also")."""
    lex = lexicon(code)
    grammar = frozenset(fold(w) for row in _GRAMMAR_ROWS for w in lex.words(row))
    return grammar - {fold(w) for w in lex.phrases("additive_words")}


@lru_cache(maxsize=64)
def reading_lexicon(code: str) -> Lexicon:
    """The lists a statement in language ``code`` is read with: every language's attribute,
    change and additive words (content words), but the frame words (copulas, relatives,
    speaker words, articles, the role and age frames) of the default language and ``code``
    only. Those are short words another language uses otherwise: Spanish "son" is a copula,
    French "chat" a pet, German "kind" a child, and none of them is one in English."""
    merged = rule_lexicon()
    own = code != DEFAULT and bool(lexicon(code).get("exclusive_attributes"))
    read_with = Lexicon.load((DEFAULT, code) if own else (DEFAULT,))
    return replace(
        read_with,
        # The default language's first person ("i", "me") is no speaker in a statement told in
        # another: the extractor keeps that statement in its speaker's words, where Swedish and
        # Danish "i" is "in" ("hon bor i Göteborg" names no speaker). Its voice ("user",
        # "they") and the statement's own first person stay.
        speaker=read_with.speaker - _default_first_person(code) if own else read_with.speaker,
        attributes=merged.attributes,
        additive=merged.additive.without(_grammar_words(code)) if code != DEFAULT else merged.additive,
        change=merged.change,
        change_words=merged.change_words,
        change_openers=merged.change_openers,
        elisions=merged.elisions,
        calendar=merged.calendar,
        dates=merged.dates,
        periods=merged.periods,
        ordinals=merged.ordinals,
        relative_dates=merged.relative_dates,
        attribute_phrases=merged.attribute_phrases,
        preferences=merged.preferences,
        state_openers=merged.state_openers,
        onsets=merged.onsets,
        counted=merged.counted,
        numbers=merged.numbers,
        ordinals_counted=merged.ordinals_counted,
        inside_attributes=merged.inside_attributes,
        inside=merged.inside,
        addressee_openers=merged.addressee_openers,
        units=merged.units,
        quantity_changes=merged.quantity_changes,
        recency=merged.recency,
        # A partner's word rarely means anything else in another language, and a short
        # statement's language is often unsure ("Mi novio come carne.").
        partners=merged.partners,
        novelty=merged.novelty,
        novelty_words=merged.novelty_words,
        qualifiers=merged.qualifiers,
        qualified_attributes=merged.qualified_attributes,
        clause_joiners=merged.clause_joiners,
        sequence_joiners=merged.sequence_joiners,
        closing_additive=merged.closing_additive,
        quantity_changes_after=merged.quantity_changes_after,
        change_frames=merged.change_frames,
        negation_frames=merged.negation_frames,
        reporting=merged.reporting,
        reporting_after=merged.reporting_after,
        # A speaker's announcement frame is long and specific to its language ("wollte Ihnen
        # mitteilen, dass"), and a short statement's language is often unsure.
        telling=merged.telling,
        telling_after=merged.telling_after,
        # Content words: an allergy word is one in any language.
        several=merged.several,
        several_inside=merged.several_inside,
        telling_inside=merged.telling_inside,
        # Read only at the opening of what the assistant says, where another language's use of
        # the word ("du" is French's "of the") rarely stands, and a short statement's language
        # is unsure ("Super, tu travailles donc maintenant chez Peugeot" reads as English).
        listener=merged.listener,
        # A passive change's rows are long and specific to their language ("wurde …
        # verschoben", "got moved"): read in every language, as the change words are.
        passive_changes=merged.passive_changes,
        # An age told with its own words ("fiz 36 anos", "Tenho 35 anos") is read in any
        # language: a short statement's language is often unsure, and the frame (a number
        # beside a birthday verb or an age unit) means nothing else in another language.
        age=merged.age,
    )
