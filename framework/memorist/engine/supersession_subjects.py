"""Who a fact is about, as the supersession rule reads it: the subject of its first clause,
the speaker or a relative a later clause names, a name opening the statement behind the
extractor's label, and a partner named through the speaker's possessive.

:mod:`.supersession_reading` reads the rest of a fact; this module is its subject reading,
over :mod:`.supersession_speakers` (who speaks) and :mod:`.supersession_owners` (whose thing).
"""

from __future__ import annotations

from ..language import DEFAULT, Boundary, Token, languages, lexicon, split, tokens
from ..language.common_words import opens_with_common_word
from .keywords import STOP_WORDS
from .supersession_lexicon import Lexicon
from .supersession_owners import capitalized_opening, possessive_owners, run_relative
from .supersession_rows import spaceless
from .supersession_speakers import ASSISTANT, SELF, SPEAKER_LABEL, THIRD
from .supersession_values import base, is_copula

#: Marks that end a sentence: the word after one opens the next, capitalized whatever it is.
_SENTENCE_ENDS = ".!?"


def common_openings(text: str, found: list[Token]) -> frozenset[int]:
    """The positions in ``found`` (the tokens of ``text``) of the words that open a sentence
    (the text's, the statement's past the extractor's label, one after a full stop) and that
    the language of the rest of that sentence lists as a common word: "Då" in "The assistant:
    Då har ni 3 katter nu." is an adverb, "Mia" in "The user: Mia turned 5" a name."""
    label = SPEAKER_LABEL.match(text)
    starts = {0, label.end()} if label else {0}
    out = set()
    for i, t in enumerate(found):
        before = text[: t.start].rstrip()
        if t.start not in starts and not (before and before[-1] in _SENTENCE_ENDS):
            continue
        if t.surface[:1].isupper() and opens_with_common_word(t.surface, _sentence_rest(text, t.end)):
            out.add(i)
    return frozenset(out)


def _sentence_rest(text: str, at: int) -> str:
    """The words of ``text``'s sentence past position ``at``."""
    rest = text[at:]
    ends = [rest.find(mark) for mark in _SENTENCE_ENDS if mark in rest]
    return rest[: min(ends)] if ends else rest


def _labelled_name(text: str, lex: Lexicon) -> frozenset[str]:
    """A name opening the statement after the extractor's label ("The user: Eli turned 8
    today"): the statement is about that person as much as about the speaker who told it."""
    opening = capitalized_opening(text)
    if opening is None:
        return frozenset()
    start, first = opening
    word = first.word
    # The word's language is the rest of the sentence's: "Mia" is Italian for "my", and the
    # statement "Mia turned 5" reads as Italian with it, as English without it.
    if (
        word in STOP_WORDS
        or base(word) in lex.attributes
        or word in lex.change_words
        or word in lex.clause_joiners
        or not word.isalpha()
        # "The assistant: Då har ni 3 katter nu.": an adverb opening the sentence, no name.
        or opens_with_common_word(word, _sentence_rest(text, start + first.end))
    ):
        return frozenset()
    return frozenset({word})


#: Where a fact's clauses part: "David passed away in January; the user is a widow." is about
#: David and about the user; a colon opens what a preamble announces ("Some background:
#: they are based in Denver" is about the speaker).
_CLAUSE_BREAK = Boundary.LINE | Boundary.SENTENCE | Boundary.CLAUSE | Boundary.COLON | Boundary.PHRASE


def _clause_subjects(text: str, words: list[str], lex: Lexicon, names: frozenset[str] = frozenset()) -> frozenset[str]:
    """Who a fact is about, and the speaker or a relative a later clause is about (a later
    clause's first word is no subject otherwise: ", it's 555-9876 now")."""
    out = set(_subjects(words, lex, names))
    label = SPEAKER_LABEL.match(text)
    replied = _replied_by_user(text)
    # 'The user replied: З жовтня вона вже не в школі, тепер вона ...': about her, clause by clause.
    another = replied and _reply_about_another(text, lex)
    # The reply frame's own "The user replied:" names who spoke, not who the reply is about.
    said = _without_reply_frame(text) if replied else text
    clauses = split(said[label.end() :] if label else said, _CLAUSE_BREAK)
    for clause in clauses[1:] if len(clauses) > 1 else ():
        found = [t.word for t in tokens(clause)]
        if len(found) >= 2:
            later = {s for s in _later_subjects(found, lex) if s == SELF or s in lex.others}
            if (another or out and out <= lex.others | lex.partners) and not _names_speaker(found, lex):
                # "kakakku udah pindah ke Bali, kerja di hotel": a later clause that names no one
                # ("kerja", works) goes on about the first clause's relative, not the speaker.
                later -= {SELF}
            out |= later
    if another:
        out |= {THIRD}
    if replied and not another:
        # 'The assistant asked "…" The user replied: 삼성 그만두고 …': the reply is the user's,
        # though the memory opens with the assistant's question.
        out |= {SELF}
    if label is not None and _assistant(label.group(0)):
        owned = _listeners_own(text[label.end() :], lex, names)
        if owned:
            # "The assistant: your manager is now Grace Lin", "The assistant: The user's manager
            # is now ...": a person of the listener's is the subject, as "The user: My manager
            # is ..." makes the manager the user's statement's subject.
            out = set(owned)
        elif _addresses(clauses, lex):
            # "The assistant: Noté, tu habites maintenant à Grenoble": the assistant's listener's fact.
            out |= {SELF}
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


def resolved(subjects: frozenset[str], older: frozenset[str]) -> frozenset[str]:
    """``subjects`` with a reply's third person read as the person an older fact is about, when
    it is about one person and not the speaker ("Моя дружина Оксана працює ..." then "вона вже
    не в школі": she is the wife), as a listener resolves "she" to the person last spoken of."""
    if THIRD not in subjects:
        return subjects
    people = older - {SELF, ASSISTANT}
    return (subjects - {THIRD}) | (people if people and SELF not in older else frozenset())


def _speaker_at(found: list[str], lex: Lexicon) -> int | None:
    """Where a clause's first word naming the speaker stands within its opening, if any."""
    return next(
        (i for i, w in enumerate(found[:OPENING_PHRASE_WINDOW]) if base(w) in lex.speaker or base(w) == SELF), None
    )


def _names_speaker(found: list[str], lex: Lexicon) -> bool:
    """Whether a clause names the speaker by a word within its opening ("..., I work at ...")."""
    return _speaker_at(found, lex) is not None


def _later_subjects(found: list[str], lex: Lexicon) -> frozenset[str]:
    """Who a later clause or sentence is about, read from its first word naming the speaker
    past an opening phrase ("As of March the user's rent is ...", "Ab Juli beträgt meine Miete
    ..."), so that a possessive chain there names its relative ("As of March the user's
    sister's rent ...": the sister's rent, not the user's)."""
    if found[0] in _DEFAULT_THIRD_PERSON and len(found) > 1 and found[1] not in _JOINERS:
        # "She wants the user as maid of honour": a clause a third person opens is that
        # person's; the speaker the extractor names after its verb is an object. (The
        # extractor's own language: the speaker is "the user" only in its rewrites.)
        return frozenset()
    at = _speaker_at(found, lex)
    said = found[at:] if at and len(found) - at >= 2 else found
    owners = possessive_owners(said, lex)
    return owners if owners else _subjects(said, lex)


#: The words between a reply's speaker and its text in the extractor's reply frame (" replied: "):
#: a memory that opens with the question it answers names who replied with them.
_REPLY_WORDS = str(lexicon(DEFAULT).get("reply_frame") or "").partition("{speaker}")[2].partition("{text}")[0]


def _without_reply_frame(text: str) -> str:
    """``text`` with the extractor's "The user replied: " taken out: it names who spoke."""
    at = text.casefold().find(f"{SELF}{_REPLY_WORDS}".casefold())
    if at < 0:
        return text
    start = at - 4 if text[max(0, at - 4) : at].casefold() == "the " else at
    return f"{text[:start]} {text[at + len(SELF) + len(_REPLY_WORDS) :]}"


def _replied_by_user(text: str) -> bool:
    """Whether ``text`` holds the user's reply in the extractor's frame ('… The user replied: …')."""
    if not _REPLY_WORDS.strip() or _REPLY_WORDS not in text:
        return False
    before = text.split(_REPLY_WORDS, 1)[0].split()
    return bool(before) and before[-1].casefold() == SELF


#: Every language's third-person pronouns ("she", "вона", "ella"): who a reply is about when
#: it opens with one.
_THIRD_PERSON = frozenset(w for code in languages() for w in lexicon(code).words("third_person"))
#: The extractor's language's third-person pronouns ("he", "she").
_DEFAULT_THIRD_PERSON = lexicon(DEFAULT).words("third_person")
#: How far into a reply's first clause a third-person pronoun makes it another's.
REPLY_SUBJECT_WINDOW = 4


def _reply_about_another(text: str, lex: Lexicon) -> bool:
    """Whether the user's reply in the extractor's frame opens its first clause with a third
    person and names no speaker before it: 'The assistant asked "А куди вона перейшла?" The
    user replied: З жовтня вона вже не в школі ...' is the wife's job (she), not the user's."""
    reply = text.split(_REPLY_WORDS, 1)[1]
    # The first clause past an answer word ("no, she moved ...", "いや、弟は ...").
    first = next((tokens(c) for c in split(reply, _CLAUSE_BREAK) if len(tokens(c)) >= 2), [])
    for token in first[:REPLY_SUBJECT_WINDOW]:
        if base(token.word) in lex.speaker:
            return False
        if token.word in _THIRD_PERSON or any(token.word.startswith(w) for w in _THIRD_PERSON if spaceless(w)):
            return True
    return False


#: The speaker's possessive in the extractor's voice ("the user's"): a listener's possessive in
#: the assistant's statement ("your", "tu", "dein") is read as it.
_SELF_POSSESSIVE = f"{SELF}'s"


def _listeners_own(body: str, lex: Lexicon, names: frozenset[str]) -> frozenset[str]:
    """The person of the listener's (a relative, a manager) the assistant's statement opens
    with: "your manager is now ..." or, rewritten by the extractor, "The user's manager is now
    ...". Empty when the statement is about the listener or anything else."""
    words = [t.word for t in tokens(body)]
    rest = words[1:] if words and words[0] in lex.articles else words
    if not rest:
        return frozenset()
    if rest[0] in lex.listener:
        words = [_SELF_POSSESSIVE, *rest[1:]]
    owned = _subjects(words, lex, names)
    people = lex.others | lex.partners | names
    return owned if owned and not owned & {SELF, ASSISTANT} and owned <= people else frozenset()


#: How far into a clause of the assistant's a listener's word makes the user its subject.
LISTENER_WINDOW = 3


def _assistant(label: str) -> bool:
    named = label.strip(": \t").split()
    return bool(named) and named[-1].casefold() == ASSISTANT


def _addresses(clauses: list[str], lex: Lexicon) -> bool:
    """Whether a clause opens with the listener ("tu habites", "du arbeitest", "your gym")."""
    return any(t.word in lex.listener for clause in clauses for t in tokens(clause)[:LISTENER_WINDOW])


#: The default language's relatives: it names the speaker's possessive apart ("my sister").
_DEFAULT_OTHERS = frozenset(lexicon(DEFAULT).words("relatives"))
#: The default language's partner words: English says "my" apart ("Wife and I moved ...").
_DEFAULT_PARTNERS = frozenset(lexicon(DEFAULT).words("partner_words"))
#: The default language's family words: one typed bare before a fact of it is its subject.
_DEFAULT_FAMILY = frozenset(lexicon(DEFAULT).words("family_words"))
#: How far into a fact the speaker named stands as its subject ("Anna and the user ...") ...
SUBJECT_WINDOW = 5
#: ... and past an opening phrase led by a function word ("With the new baby the user ...").
OPENING_PHRASE_WINDOW = 8


def _word(token: str) -> bool:
    """Whether ``token`` is a word, hyphenated ones included ("mother-in-law", "belle-mère"),
    not a number or a sign."""
    return token.replace("-", "").isalpha()


def _subjects(words: list[str], lex: Lexicon, names: frozenset[str] = frozenset()) -> frozenset[str]:
    """Who a fact is about: its first word (past "the"), the speaker ("user") for the
    extractor's voice, for an attribute or change word opening a fact written without a
    subject ("Lives in Porto"), and for "the user" named early ("Anna and the user ...");
    the owned thing of a possessive that is not an attribute ("the user's sister ...")."""
    rest = words[1:] if words and words[0] in lex.articles else words
    if not rest:
        return frozenset()
    if len(rest) > 1 and (lead := run_relative(rest[1])) is not None:
        # "The user: 妹が大阪に引っ越しました": the run's relative is read as a word of its own.
        rest = [rest[0], *lead, *rest[2:]]
    if len(rest) > 2 and base(rest[0]) == SELF and rest[1] in lex.articles and base(rest[2]) in lex.others:
        # "The user: Ο γιος μου μετακόμισε ...": the statement's article before its relative.
        rest = [rest[0], *rest[2:]]
    first = base(rest[0])
    out: set[str] = set()
    other = False
    if first in lex.speaker or first in lex.attributes or first in lex.change_openers:
        out |= {SELF}
        # A possessive: "the user's <owned> ...", or the speaker's own "my" after the
        # extractor's label ("The user: Ma sœur habite à Paris.").
        # A relative word right after the label owns itself where the language writes "my" into
        # the word ("The user: Ablam Ankara'da yaşıyor.", my elder sister): the relative is the
        # subject, as "Mi hermana vive ..." makes the sister. Not the default language's words:
        # English says "my" apart, and its "Team dinner got moved" opens with a modifier.
        owner = (
            rest[0] != first
            or (
                first == SELF
                and len(rest) > 1
                and (
                    rest[1] in lex.speaker
                    # ... also with "my" after it ("Ο γιος μου μετακόμισε", "Adik saya pindah"),
                    # unless what follows names the person ("Bạn gái tôi tên là Lan": the
                    # speaker's partner, their relationship).
                    # A partner word too ("The user: жена ушла из школы"): the speaker's own.
                    or base(rest[1]) in (lex.others | lex.partners) - _DEFAULT_OTHERS - _DEFAULT_PARTNERS
                    and not (set(rest[2:4]) & lex.speaker and _names_one(rest[2:6], lex))
                    # ... and a default-language one typed without its "my" when what follows
                    # tells a fact of it ("sister moved to Bergen", "wife left the firm").
                    or _bare_relative(rest, lex)
                )
            )
        )
        owned = next(
            (
                base(w)
                for i, w in enumerate(rest[1:4], 1)
                if base(w) not in lex.attributes
                and base(w) not in lex.speaker
                and w not in lex.change_words
                and _word(w)
                # "मेरी बहन की शादी" (the sister's wedding): an owner, as "sister's" is.
                and not (i + 1 < len(rest) and rest[i + 1] in lex.possessive_particles)
            ),
            None,
        )
        # "the user's best friend Owen", "Mi hermana mayor": a relative after a word or two
        # that qualify it ("best", "older") is the one the possessive names.
        relative = _qualified_relative(rest, lex)
        owned = relative if relative is not None else owned
        if owner and owned in lex.others:
            out, other = {owned}, True
            # "the user's son Eli ...": Eli is the son, and a later "Eli turned 8" is about him.
            at = next((i for i, w in enumerate(rest[1:4], 1) if base(w) == owned), None)
            if at is not None and at + 1 < len(rest) and rest[at + 1] in names:
                out.add(rest[at + 1])
        partner = _partner(rest, lex, names) if owner else None
        if partner is not None:
            out, other = {partner}, True
            # "the user's wife Hannah ...": a later "Hannah quit" is about her too ("Ana's": Ana).
            at = next((i for i, w in enumerate(rest[1:4], 1) if base(w) == partner), None)
            if at is not None and at + 1 < len(rest) and rest[at + 1] in names:
                out.add(base(rest[at + 1]))
    else:
        out.add(first)
    # "Anna and the user ...", "Last month (...) the user joined ...": the speaker named early;
    # past an opening phrase ("With the new baby the user is lucky to get ...") a little later.
    named = SELF in (base(w) for w in rest[:SUBJECT_WINDOW])
    # Past the first words only as a subject, not as an owner: "Our dog lives with the user's parents".
    if not named and first in STOP_WORDS:
        named = SELF in rest[SUBJECT_WINDOW:OPENING_PHRASE_WINDOW]
    if named and not other and not (rest[0] != first and first == SELF):
        out |= {SELF}
    return frozenset(out)


def _names_one(words: list[str], lex: Lexicon) -> bool:
    """Whether ``words`` tell a person's name ("tên là", "is called", "اسمه")."""
    return any(lex.attributes.get(w) == NAME or w in _NAMING for w in words)


def _qualified_relative(rest: list[str], lex: Lexicon) -> str | None:
    """The relative a possessive names after words that qualify it: "the user's best friend
    Owen", "Mi hermana mayor" alike. None past an attribute word, a possessive ("the user's
    sister's wedding" is the user's to plan, the sister its owner: :func:`.supersession_owners.possessive_owners`) or a
    relative an owner's particle follows ("मेरी बहन की शादी")."""
    for i, w in enumerate(rest[1:4], 1):
        if base(w) in lex.speaker:
            continue
        if not _word(w) or base(w) in lex.attributes:
            return None
        if base(w) in lex.others:
            return None if i + 1 < len(rest) and rest[i + 1] in lex.possessive_particles else base(w)
    return None


#: Words joining two people ("the user's husband and the user"): a couple's fact is the speaker's too.
_JOINERS = lexicon(DEFAULT).words("people_joiners")
#: The attribute whose words tell a name ("called", "se llama"): a partner's name is the
#: speaker's relationship, not a fact of the partner's own.
NAME = "name"
#: Every language's words for a third person's name (``naming_words``: Arabic "اسمه", his name):
#: "خطيبي اسمه أحمد" tells the partner's name, the speaker's relationship, as "is called" does.
_NAMING = frozenset(w for code in languages() for w in lexicon(code).words("naming_words"))


def names_partner(words: list[str], lex: Lexicon) -> bool:
    """Whether the fact tells the name of the speaker's partner ("the user's husband is called
    Mark", "mein Mann heißt Jonas"): the name is the partner's, the fact the speaker's
    relationship, and no version of the speaker's own name."""
    rest = words[1:] if words and words[0] in lex.articles else words
    if len(rest) > 1 and rest[0] == SELF and rest[1] in lex.speaker:
        rest = rest[1:]  # "The user: Mein Mann heißt Jonas": the label, then the speaker's "mein"
    if len(rest) < 3 or base(rest[0]) not in lex.speaker or base(rest[1]) not in lex.partners:
        return False
    return any(lex.attributes.get(base(w)) == NAME or w in _NAMING for w in rest[2:5])


def _bare_relative(rest: list[str], lex: Lexicon) -> bool:
    """A default-language family member or partner right after the extractor's label, its
    "my" dropped as a phone-typed message drops it, followed by an attribute or change word:
    "sister moved to Bergen", "wife left the firm". A modifier before another noun ("Team
    dinner got moved"), a couple ("Sister and I ...") or another person acting on the
    speaker's own thing ("landlord raised the rent") stays the speaker's."""
    return (
        len(rest) > 2
        and rest[1] == base(rest[1])  # "mom's cell": a possessive, read as an owner
        and base(rest[1]) in _DEFAULT_FAMILY | _DEFAULT_PARTNERS
        and rest[2] not in _JOINERS
        # "mom got a new phone": the attribute or change word a few words on, past the verb.
        and any(base(w) in lex.attributes or w in lex.change_words for w in rest[2 : 2 + BARE_RELATIVE_WINDOW])
    )


#: How many words after a relative typed without "my" may tell its fact ("mom got a new phone").
BARE_RELATIVE_WINDOW = 4


#: How many words after a named partner tell what the partner does ("Hannah just started a new
#: job as"): one naming the speaker there makes it the couple's fact.
_PARTNER_CLAUSE = 6


def _partner(rest: list[str], lex: Lexicon, names: frozenset[str]) -> str | None:
    """The partner a possessive names as the subject of what follows ("the user's husband eats
    meat", "the user's wife moved to Paris": theirs), not as the speaker's relationship: the
    partner's name or value ("the user's partner's name is Sam", "the user's husband is David",
    "the user's boyfriend Jake lives with them") nor the couple ("the user's husband and the
    user are going to Portugal")."""
    after = [i for i in (1, 2) if i < len(rest) and rest[i] not in lex.speaker]
    if not after or after[0] + 1 >= len(rest):
        return None
    word, following = base(rest[after[0]]), rest[after[0] + 1 : after[0] + 3]
    # "eşim 38 bin alıyor" (my wife earns 38k): a number may open what the partner does.
    opens = base(following[0]).isalpha() or following[0][:1].isdigit()  # "Ana's", "38"
    if word not in lex.partners or not opens or following[0] in _JOINERS:
        return None
    if any(lex.attributes.get(base(w)) == NAME or w in _NAMING or base(w) in _NAMING for w in following):
        return None  # "s'appelle", "is called": the partner's name, the speaker's relationship
    if following[0] in names:
        # "the user's wife Hannah just started a new job": Hannah's job. What she does with the
        # speaker ("the user's boyfriend Jake lives with them") is the couple's, the speaker's.
        does = rest[after[0] + 2 : after[0] + 2 + _PARTNER_CLAUSE]
        if len(does) < 2 or any(base(w) in lex.speaker | lex.group_speaker for w in does):
            return None
        return word
    at = after[0] + 1
    copula = next((i for i, w in enumerate(following, at) if is_copula(w, lex.copulas)), None)
    if copula is not None and (copula + 1 >= len(rest) or rest[copula + 1] in names):
        # "the user's husband is David": who the partner is, the speaker's relationship. What
        # the partner is ("Ma femme est prof de maths") is the partner's own fact.
        return None
    return word
