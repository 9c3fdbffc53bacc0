"""Whose thing a fact names, as the supersession rule reads it: the relative a possessive chain
names past the speaker ("the user's sister's visit"), the owner a genitive after the thing names
("El alquiler de mi hermana"), and the relative a run of a script written without spaces opens
with ("我妈的手机号", "妹が大阪に"). A relative's thing is the relative's fact, not the speaker's.
"""

from __future__ import annotations

from functools import lru_cache

from ..language import Token, languages, lexicon, tokens
from ..language.morphology import name_stem
from .keywords import STOP_WORDS
from .supersession_lexicon import Lexicon
from .supersession_rows import spaceless
from .supersession_speakers import SELF, SPEAKER_LABEL, voiced
from .supersession_values import base

#: How many words may name a thing before the genitive naming its owner ("el alquiler", "la
#: casa nueva de mi hermana").
GENITIVE_THING_WINDOW = 2


def genitive_owner(words: list[str], lex: Lexicon, labelled: bool, code: str = "") -> str | None:
    """The relative a genitive after the fact's opening thing names as its owner: "El alquiler
    de mi hermana sube ...", "the rent of the user's sister", "Die Miete meiner Schwester ...",
    "Аренда моей сестры ...": the sister's rent, not the speaker's, though the fact opens with
    an attribute word as "My rent ..." would. ``words``: the fact's words; ``labelled``: whether
    they open with the extractor's label ("The user: ...") before the speaker's own words, else
    the thing opens the fact ("The rent of the user's sister ..."), never its subject ("The user
    moved out of their parents' place").

    A genitive preposition (the language's ``genitive_prepositions``: "de", "of", "van") joins
    any thing to its owner. Without one (a language telling the owner by its case), the
    speaker's possessive in the genitive (``genitive_possessives``: "meiner", "моей") and a
    relative right after the thing do: a verb before another case ("Odwiedzam moją siostrę", I
    visit my sister; "Ich helfe meiner Schwester" opens with the speaker) leaves the fact the
    speaker's. In a language that ends its words by case (``code``'s ``case_endings``), a
    relative in another case than its listed one right after a thing the lexicon names is its
    owner too ("Номер дружини": the wife's number)."""
    if words and words[0] in lex.articles:
        words = words[1:]
    if labelled:
        words = words[1:] if words and words[0] == SELF else []
    # "el de mi jefe es ...", "la de mi hermana": an article before the genitive stands for the
    # thing told before ("my e-mail is ...; my boss's is ..."), the owner's as a named one is.
    elided = len(words) > 1 and words[0] in lex.articles and words[1] in lex.genitive_prepositions
    if words and words[0] in lex.articles:
        words = words[1:]
    for end in range(0 if elided else 1, GENITIVE_THING_WINDOW + 1):
        thing = words[:end]
        if len(thing) < end or not all(
            base(w).isalpha()
            and base(w) not in lex.speaker | lex.others | lex.partners
            and w not in lex.genitive_prepositions
            for w in thing
        ):
            return None
        at = end
        if at < len(words) and words[at] in lex.genitive_prepositions:
            at += 1
            if at < len(words) and words[at] in lex.articles:
                at += 1
            if at < len(words) and (base(words[at]) in lex.speaker or base(words[at]) == SELF):
                at += 1
        elif at < len(words) and words[at] in lex.genitive_possessives:
            at += 1
        elif at < len(words) and code and all(base(w) in lex.attributes for w in thing):
            # "Номер дружини", "numer żony", "telefon mámy": a relative in another case right
            # after a thing the lexicon names, the language's case ending telling the genitive.
            oblique = _oblique_relative(words[at], lex, code)
            if oblique is not None:
                return oblique
            continue
        else:
            continue
        # A partner too: "el trabajo de mi novio" is his job, not the speaker's.
        if at < len(words) and (base(words[at]) in lex.others | lex.partners or words[at] in lex.kin):
            return lex.kin.get(base(words[at]), base(words[at]))
        if at < len(words) and code:
            # "numer do kumpla": a relative in the case the preposition governs.
            oblique = _oblique_relative(words[at], lex, code)
            if oblique is not None:
                return oblique
    return None


def possessive_owners(words: list[str], lex: Lexicon) -> frozenset[str]:
    """The relative a possessive chain opening the fact names past the speaker ("the user's
    sister's visit": sister)."""
    rest = words[1:] if words and words[0] in lex.articles else words
    if len(rest) >= 4 and rest[0] == SELF and rest[1] in lex.speaker:
        rest = rest[1:]  # "The user: मेरी बहन की शादी ...": the speaker's own possessive after the label
    if len(rest) < 3 or base(rest[0]) not in lex.speaker or rest[0] == SELF:
        # "The user: no, it's the Leeds office now": the label's bare "user" owns nothing.
        return frozenset()
    owned = rest[1]
    if base(owned) not in lex.others and (stem := _genitive_stem(owned, lex)) is not None:
        return frozenset({stem})  # "min vens nummer": the friend's number
    if base(owned) not in lex.others:
        # "the user's flatmate's number", "the user's company's address": whoever or whatever
        # the chain names past the speaker owns the thing, listed as a relative or not.
        told = any(owned.endswith(ending) and len(owned) > len(ending) for ending in lex.possessive_endings)
        named = told and base(owned).isalpha() and base(owned) not in lex.attributes
        return frozenset({base(owned)}) if named else frozenset()
    # "the user's sister's visit", "मेरी बहन की शादी": the relative owns what follows.
    if owned != base(owned) or rest[2] in lex.possessive_particles:
        return frozenset({base(owned)})
    # "the user's son Leo's number", "the user's mate tom's number": the relative named in
    # the possessive owns it, known by the name a later fact calls them ("Leo lost his phone").
    named = any(rest[2].endswith(e) and len(rest[2]) > len(e) for e in lex.possessive_endings)
    return frozenset({base(rest[2])}) if named and base(rest[2]).isalpha() else frozenset()


def _genitive_stem(word: str, lex: Lexicon) -> str | None:
    """The relative ``word`` names in its language's genitive with no apostrophe ("vens" for
    "ven", "mammas" for "mamma"), if any."""
    for suffix in lex.genitive_suffixes:
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and stem in lex.others | lex.partners:
            return lex.kin.get(stem, stem)
    return None


def _oblique_relative(word: str, lex: Lexicon, code: str) -> str | None:
    """The relative or partner ``word`` names in a case other than the listed one ("дружини"
    for "дружина", "żony" for "żona"), if any; a listed form itself tells no case."""
    if word in lex.others | lex.partners or not word.isalpha():
        return None
    stem = name_stem(word, code)
    if stem == word:
        return None
    found = _relative_stems(lex.others, lex.partners, code).get(stem)
    return None if found is None else lex.kin.get(found, found)


@lru_cache(maxsize=64)
def _relative_stems(others: frozenset[str], partners: frozenset[str], code: str) -> dict[str, str]:
    """Each relative's and partner's case-ending stem in language ``code``, to the listed word
    (the first in sorted order where two share a stem): read once per lexicon, not per word."""
    stems: dict[str, str] = {}
    for word in sorted(others | partners):
        stems.setdefault(name_stem(word, code), word)
    return stems


def _run_rows() -> tuple[tuple[tuple[str, ...], tuple[str, ...], frozenset[str]], ...]:
    """Per language written without spaces that lists its relatives and the particles that mark
    a subject: its speaker's possessives and its relatives, each longest first, and those
    particles."""
    rows = []
    for code in languages():
        lex = lexicon(code)
        relatives = lex.words("relatives") | lex.words("partner_words")
        if not relatives or not all(spaceless(r) for r in relatives) or not lex.words("subject_particles"):
            continue
        rows.append(
            (
                tuple(sorted(lex.words("run_possessives"), key=len, reverse=True)),
                tuple(sorted(relatives, key=len, reverse=True)),
                lex.words("subject_particles"),
            )
        )
    return tuple(rows)


_RUN_ROWS = _run_rows()


def _longest_first(words: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted(words, key=len, reverse=True))


def _owner_rows() -> tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], frozenset[str]], ...]:
    """Per language written without spaces: its speaker's possessives, its relatives and the
    particles after an owner (Chinese "的", Japanese "の"), each longest first, and the
    particles that mark a subject (none in Chinese)."""
    rows = []
    for code in languages():
        lex = lexicon(code)
        relatives, particles = lex.words("relatives") | lex.words("partner_words"), lex.words("possessive_particles")
        if relatives and particles and all(spaceless(r) for r in relatives):
            rows.append(
                (
                    _longest_first(lex.words("run_possessives")),
                    _longest_first(relatives),
                    _longest_first(particles),
                    lex.words("subject_particles"),
                )
            )
    return tuple(rows)


_OWNER_ROWS = _owner_rows()


def run_owner(run: str) -> str | None:
    """The relative a run of a script written without spaces opens with as an owner: "我妈的手机号
    是..." (my mom's phone number), "母の誕生日は..." (my mother's birthday): the relative's thing,
    not the speaker's, as "the user's sister's visit" is the sister's."""
    if not spaceless(run):
        return None
    for possessives, relatives, particles, subject_particles in _OWNER_ROWS:
        mine = next((p for p in possessives if run.startswith(p)), "")
        body = run[len(mine) :]
        relative = next((r for r in relatives if body.startswith(r)), None)
        if relative is None:
            continue
        after = body[len(relative) :]
        if any(after.startswith(p) and len(after) > len(p) for p in particles):
            return relative
        if mine and after and not subject_particles:
            # "我姐刚搬到深圳了" (my sister just moved to Shenzhen): a language that marks no
            # subject tells what the speaker's relative opening the run did or has, the
            # relative's fact as "the user's sister's move" is, never the speaker's own.
            return relative
    return _told_owner(run)


def _told_owner(run: str) -> str | None:
    """The relative the speaker's possessive and an owner's particle name inside a run of a
    language that marks no subject ("今天是我女儿的生日，她五岁了": the daughter's birthday,
    the daughter's age), where a time or a topic opens the sentence before its owner. A run the
    speaker opens is the speaker's ("我在我妈的公司工作": the speaker works at the mother's firm)."""
    for possessives, relatives, particles, subject_particles in _OWNER_ROWS:
        if subject_particles or run.startswith(possessives):
            continue
        for mine in possessives:
            at = run.find(mine)
            while at > 0:
                body = run[at + len(mine) :]
                relative = next((r for r in relatives if body.startswith(r)), None)
                if relative is not None and any(body[len(relative) :].startswith(p) for p in particles):
                    return relative
                at = run.find(mine, at + 1)
    return None


def run_relative(run: str) -> tuple[str, str] | None:
    """A run of a script written without spaces that opens with a relative, as (the relative,
    the rest of the run): "妹が大阪に引っ越しました" -> ("妹", "大阪に引っ越しました"). Japanese marks
    the relative as the subject with a particle ("妹が", "母は", "兄も"; "母の" owns a thing,
    "妹を" is an object), and the speaker's possessive may open the run ("私の妹は"), as "Mi
    hermana vive ..." makes the sister the subject. A language whose lexicon lists no subject
    particles would take any run opening with a relative; Chinese is left out, since its
    sentence often opens with a time or a topic before the relative it is about ("今天是我女儿的
    生日，她五岁了": the daughter's age, not a fact of the speaker's beside "我女儿今年四岁"), so
    only a language that lists its subject particles is read so (:func:`run_owner` reads the
    speaker's relative opening a Chinese run)."""
    if not spaceless(run):
        return None
    for possessives, relatives, particles in _RUN_ROWS:
        body = next((run[len(p) :] for p in possessives if run.startswith(p)), run)
        for relative in relatives:
            if not body.startswith(relative):
                continue
            after = body[len(relative) :]
            if particles:
                particle = next((p for p in particles if after.startswith(p)), None)
                if particle is None:
                    break
                after = after[len(particle) :]
            if after:
                return relative, after
            break
    return None


def capitalized_opening(text: str) -> tuple[int, Token] | None:
    """The capitalized word opening a statement behind the extractor's label for the user or
    the assistant, with where the statement starts; None without one. A named speaker's turn
    ("Caroline: Long time no talk.") opens with any word, and its people are told apart by
    the turn's speaker."""
    label = SPEAKER_LABEL.match(text)
    if label is None or not voiced(label.group(0)):
        return None
    found = tokens(text[label.end() :])
    if len(found) < 2 or not found[0].surface[:1].isupper() or found[0].surface.isupper():
        return None
    return label.end(), found[0]


def labelled_owner(text: str, lex: Lexicon) -> frozenset[str]:
    """A name in the possessive opening the statement after the extractor's label ("The
    assistant: Tom's number as 07700 556 3121", "The user: Ana's flat is in Gràcia"): the
    thing is that person's, not the speaker's or the listener's."""
    opening = capitalized_opening(text)
    if opening is None:
        return frozenset()
    word = opening[1].word
    ending = next((e for e in lex.possessive_endings if word.endswith(e) and len(word) > len(e)), None)
    owner = word[: -len(ending)] if ending else word
    if ending is None or not owner.isalpha() or owner in STOP_WORDS or owner in lex.speaker:
        return frozenset()
    return frozenset({lex.kin.get(owner, owner)})
