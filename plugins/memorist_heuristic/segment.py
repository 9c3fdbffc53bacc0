"""Sentence segmentation and the filters that drop what is not worth remembering.

Greetings, filler ("haha", "that's cool"), thanks and bare questions carry no
fact; keeping them would crowd search results with noise. A question that
also states something about the speaker ("Did I tell you I adopted a dog?")
is kept, because the statement is the fact. Short statements are facts too:
"I like tea." has one content word, but a first-person subject makes it a
statement about the speaker, so it is kept. Every dropped sentence gets a
reason (:func:`skip_reason`) so an add can say what it did not keep.

Every word list is the sentence's language's lexicon (``memorist.language``): English
greetings are skipped in English, Spanish ones in Spanish, and a sentence in a language
without lists keeps whatever it says. A script written without spaces counts one
content word per two characters, so "私は東京で働いています。" is a statement.
"""

from __future__ import annotations

import re

from memorist.plugin_api import (
    QUESTION_MARKS,
    SPACELESS,
    Token,
    language_of,
    lexicon,
    phrases,
    script_of,
    sentences,
    tokens,
)

#: Punctuation closing a greeting, an opener or an acknowledgement ("Hi, ", "Got it! ").
_PUNCTUATION_AFTER = re.compile(r"\s*[,!.:;—–~-]+\s*")
_CLOSER_BEFORE = re.compile(r"[\s,;—–-]+$")
_CLOSER_AFTER = re.compile(r"[\s.!?…]*$")


def _content(words: list[Token], function_words: frozenset[str]) -> int:
    """How many content words: a spaceless run counts one per two characters."""
    count = 0
    for word in words:
        if word.word in function_words:
            continue
        spaceless = 0 if word.word.isascii() else sum(script_of(c) in SPACELESS for c in word.word)
        count += max(1, spaceless // 2) if spaceless else 1
    return count


def content_words(sentence: str) -> list[str]:
    stop = lexicon(language_of(sentence)).words("function_words")
    return [w.surface for w in tokens(sentence) if w.word not in stop]


def _greeting_prefix(sentence: str, language: str) -> tuple[str | None, int, list[Token]]:
    """``(reason of the first phrase, words it and those after it take, the words)``: leading
    greetings, thanks and acknowledgements of ``language``."""
    words = tokens(sentence)
    matcher = phrases("thanks", "greetings", "fillers", language=language)
    first: str | None = None
    taken = 0
    while taken < len(words) and (found := matcher.at(words, taken)) is not None:
        first = first or found[1]
        taken += found[0]
    return first, taken, words


def without_closer(sentence: str) -> str:
    """``sentence`` without a closing "btw", "by the way", "fyi" (any sentence of a message:
    unlike an opening "Well,", a closing "btw" never answers anything). Case matters: "I
    finished By the Way." ends with a title."""
    words = tokens(sentence)
    closers = phrases("closers", language=language_of(sentence))
    for start in range(max(0, len(words) - 4), len(words)):
        if closers.whole(words[start:]) is None:
            continue
        surface = sentence[words[start].start : words[-1].end]
        before = _CLOSER_BEFORE.search(sentence[: words[start].start])
        if (
            (surface.islower() or surface.isupper() or surface == "Btw")
            and before
            and _CLOSER_AFTER.fullmatch(sentence[words[-1].end :])
        ):
            return sentence[: before.start()] + sentence[words[-1].end :]
        break
    return sentence


def _opener_end(rest: str, language: str) -> int | None:
    """Where what ``rest`` opens with (a greeting or hesitation and its punctuation, or a link
    to what was said before) ends, or None."""
    words = tokens(rest)
    if not words or words[0].start != 0:
        return None
    found = phrases("openers", language=language).at(words, 0)
    if found is not None and (after := _PUNCTUATION_AFTER.match(rest, words[found[0] - 1].end)):
        return after.end()
    found = phrases("links", "always_links", language=language).at(words, 0)
    if found is None or found[0] >= len(words):
        return None
    nxt = words[found[0]]
    if rest[words[found[0] - 1].end : nxt.start].strip():
        return None
    followers = phrases("link_followers", language=language)
    return nxt.start if found[1] == "always_links" or followers.at(words, found[0]) else None


def without_opener(sentence: str) -> str:
    """A message's first sentence without the greeting or hesitation it opens with ("Hi,
    I'm Max." is remembered as "I'm Max.", "Oh wait, the appointment moved to Monday." as
    "The appointment moved to Monday."): how it was said, not what it says.

    Only those, and only opening a message (the extractor's choice): acknowledgements
    ("Wow, ...", "Yeah, ...", "No, ...") answer what the other person said, and a "by the
    way" inside a turn leads into what follows. Removing every interjection changed 336 of
    LoCoMo's 2,538 memories and cost recall@50 0.905 -> 0.902; this changes 3, and no recall.
    """
    original = sentence.strip(" \t\"'*_~")
    language = language_of(original)
    rest = original
    while rest and (end := _opener_end(rest, language)) is not None:
        rest = rest[end:]
    if not rest or rest == original:
        return sentence
    return rest[0].upper() + rest[1:]


def without_acknowledgement(sentence: str) -> str:
    """An assistant's first sentence without its acknowledgement ("Got it, you are 27 years
    old." is remembered as "You are 27 years old."): the assistant's own "Got it" says nothing,
    unlike a person's "Yeah, ..." answering what the other said (see :func:`without_opener`)."""
    stripped = sentence.strip()
    words = tokens(stripped)
    found = phrases("acknowledgements", language=language_of(stripped)).at(words, 0) if words else None
    if found is None or words[0].start != 0:
        return sentence
    after = _PUNCTUATION_AFTER.match(stripped, words[found[0] - 1].end)
    rest = stripped[after.end() :] if after else ""
    return sentence if not rest else rest[0].upper() + rest[1:]


def _request_end(stripped: str, language: str) -> tuple[int, bool] | None:
    """Where the fact after a request to remember starts, and whether it asked a reminder."""
    lex = lexicon(language)
    words = tokens(stripped)
    if not words or words[0].start != 0:
        return None
    at = 0
    if found := phrases("request_lead", language=language).at(words, at):
        at += found[0]
    if found := phrases("polite", language=language).at(words, at):
        at += found[0]
    first_person = lex.words("first_person_next")
    for name in ("reminders", "memory_requests", "memory_notes"):
        if name == "memory_notes" and at:
            continue  # "can you fyi" is no phrase
        found = phrases(name, language=language).at(words, at)
        if found is None or at + found[0] >= len(words):
            continue
        end, nxt = words[at + found[0] - 1].end, words[at + found[0]]
        between = stripped[end : nxt.start]
        if name == "reminders":
            objects = lex.words("reminder_objects")
            return (nxt.start, True) if not between.strip() and nxt.word in objects else None
        if name == "memory_requests" and between.strip() == ":":
            return nxt.start, False
        if name == "memory_notes" and between.strip() and not between.strip(",:!—–- \t"):
            return nxt.start, False
        if between.strip():
            return None
        if nxt.word == "that" and at + found[0] + 1 < len(words):
            follower = words[at + found[0] + 1]
            if name == "memory_requests" or follower.word in first_person:
                return follower.start, False
        return (nxt.start, False) if nxt.word in first_person else None
    return None


def as_statement(sentence: str) -> str:
    """``sentence`` without a request to remember what it states: "Remember that I'm
    vegetarian." -> "I'm vegetarian.", "Can you note that my son is Leo?" -> "My son is
    Leo.", "Remind me to call mom" -> "I want to be reminded to call mom". Other sentences
    are returned as they are."""
    stripped = sentence.strip()
    language = language_of(stripped)
    request = _request_end(stripped, language)
    if request is None or request[0] >= len(stripped):
        return sentence
    start, reminder = request
    rest = stripped[start:]
    if reminder:
        rest = f"{lexicon(language).get('reminder_statement')} {rest}"
    if phrases("request_lead", language=language).at(tokens(stripped), 0):
        body = rest.rstrip("\"')]")
        closing = rest[len(body) :]
        if body.endswith("?"):
            rest = body.rstrip("?") + "." + closing  # what was asked is stated now
    return rest[0].upper() + rest[1:]


def skip_reason(sentence: str) -> str | None:
    """Why ``sentence`` is not worth remembering (``greeting``, ``thanks``, ``filler``,
    ``question``), or None when it states something."""
    language = language_of(sentence)
    lex = lexicon(language)
    first, taken, words = _greeting_prefix(sentence, language)
    empty = {"thanks": "thanks", "greetings": "greeting"}.get(first or "", "filler")
    rest = words[taken:]
    if not rest:  # "Guess what?", "Oh?": nothing but a question mark left
        return "question" if _is_question(sentence) else empty
    if _vocative(rest, sentence):
        return empty
    rest_text = sentence[rest[0].start :]
    if is_bare_question(rest_text):
        return "question"
    if phrases("hollow_self", language=language).whole(rest) is not None:
        return empty
    content = _content(rest, lex.words("function_words"))
    if content >= 2 or (content and (_first_person(rest, language) or _adds_to_before(rest, language))):
        return None
    return empty


def _adds_to_before(words: list[Token], language: str) -> bool:
    """Whether a fragment adds to what was said before: it opens with a joiner of addition
    (``adding_joiners``: "and", "y", "und") and holds an additive word and a content word that
    is neither additive nor filler ("and some Portuguese too" after "I speak Spanish", "y
    portugués también", "und Portugiesisch auch"). The content word is the added information,
    as the first person makes "I like tea." a statement. Replies that add nothing ("You too,
    buddy.", "Me too!", "It's also awesome!", "And another!") stay filler."""
    lex = lexicon(language)
    if len(words) < 2 or words[0].word not in lex.words("adding_joiners"):
        return False
    additive = phrases("additive_words", "closing_additive_words", language=language)
    fillers = phrases("fillers", language=language)
    stop = lex.words("function_words")
    added = [
        w
        for i, w in enumerate(words[1:], start=1)
        if w.word not in stop and additive.at(words, i) is None and fillers.whole([w]) is None
    ]
    return bool(added) and additive.anywhere(words[1:])


_VOCATIVE_END = re.compile(r"[\s!.,:;)(\-~]*")


def _vocative(rest: list[Token], sentence: str) -> bool:
    """A name alone closing a greeting or an exclamation ("Hey Mel!", "..., Caroline!"); not
    a question ("Thoughts?")."""
    word = rest[0].surface
    return (
        len(rest) == 1
        and len(word) > 1
        and word.isalpha()
        and word[0].isupper()
        and word[1:].islower()
        and _VOCATIVE_END.fullmatch(sentence, rest[0].end) is not None
    )


def _first_person(words: list[Token], language: str) -> bool:
    first_person = lexicon(language).words("first_person")
    return any(w.word in first_person for w in words)


def is_short_answer(sentence: str) -> bool:
    """Whether ``sentence``, dropped as filler on its own, answers a question asked just
    before it: "27", "Tokyo.", "No.", "Yeah, sure!" ("How old are you?" "27"). A laugh or an
    exclamation ("haha", "wow!") answers nothing."""
    language = language_of(sentence)
    _, taken, words = _greeting_prefix(sentence, language)
    if _content(words[taken:], lexicon(language).words("function_words")):
        return True
    return phrases("yes_no", language=language).anywhere(words[:taken])


#: The most words a reply without a subject of its own ("Vegetarian, and no nuts please.")
#: has for it to be read as an answer to the question before it.
FRAGMENT_WORDS = 8


def is_fragment(sentence: str) -> bool:
    """A short sentence with no first-person subject and no question: "Vegetarian, and no
    nuts please.", "Two, maybe three." It means something only as an answer."""
    words = tokens(sentence)
    return (
        len(words) <= FRAGMENT_WORDS and not _first_person(words, language_of(sentence)) and not _is_question(sentence)
    )


def is_filler(sentence: str) -> bool:
    """Greetings, thanks, acknowledgements and exclamations with no content."""
    reason = skip_reason(sentence)
    return reason is not None and reason != "question"


def _is_question(sentence: str) -> bool:
    """Whether ``sentence`` ends with a question mark (of its language: Greek writes ";")."""
    end = sentence.rstrip(" \"')")
    return end.endswith(QUESTION_MARKS) or end.endswith(tuple(lexicon(language_of(sentence)).words("question_marks")))


def is_question(sentence: str) -> bool:
    """Whether ``sentence`` asks something (it ends with its language's question mark)."""
    return _is_question(sentence)


def is_bare_question(sentence: str) -> bool:
    """A question that states nothing about the speaker (``read`` needs a past marker)."""
    return _is_question(sentence) and not _states_about_speaker(sentence)


def _states_about_speaker(sentence: str) -> bool:
    """Whether a question states something of the speaker: a subject and a past form ("did
    I tell you I adopted a dog?"), or a possessive and a noun ("have you seen my new car?").
    In a language without these lists, a first-person word is enough."""
    language = language_of(sentence)
    lex = lexicon(language)
    words = [w.word for w in tokens(sentence)]
    subjects = lex.words("self_subjects")
    if not subjects:
        return _first_person(tokens(sentence), language)
    auxiliaries, adverbs = lex.words("self_auxiliaries"), lex.words("self_adverbs")
    past, suffix = lex.words("self_statement_verbs"), str(lex.get("past_suffix") or "\0")
    not_past = lex.words("verbs", "ed_present")
    possessives = lex.words("self_possessives")
    for k, word in enumerate(words):
        if word in possessives and k + 1 < len(words):
            return True
        if word not in subjects:
            continue
        k += 1
        if k < len(words) and "'" not in word and words[k] in auxiliaries:
            k += 1
        if k < len(words) and words[k] in adverbs:
            k += 1
        if k < len(words) and _past(words[k], past, suffix, not_past):
            return True
    return False


def _past(word: str, past: frozenset[str], suffix: str, not_past: frozenset[str]) -> bool:
    return word in past or (word.endswith(suffix) and len(word) > len(suffix) and word not in not_past)


def classified_sentences(text: str) -> list[tuple[str, str | None]]:
    """Every sentence of ``text`` with the reason it is dropped (None: kept), in order."""
    return [(s, skip_reason(s)) for s in map(as_statement, sentences(text))]


def informative_sentences(text: str) -> list[str]:
    """The sentences worth remembering, in order."""
    return [s for s, reason in classified_sentences(text) if reason is None]
