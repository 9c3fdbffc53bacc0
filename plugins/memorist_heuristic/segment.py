"""Sentence segmentation and the filters that drop what is not worth remembering.

Greetings, filler ("haha", "that's cool"), thanks and bare questions carry no
fact; keeping them would crowd search results with noise. A question that
also states something about the speaker ("Did I tell you I adopted a dog?")
is kept, because the statement is the fact. Short statements are facts too:
"I like tea." has one content word, but a first-person subject makes it a
statement about the speaker, so it is kept. Every dropped sentence gets a
reason (:func:`skip_reason`) so an add can say what it did not keep.
"""

from __future__ import annotations

import re

# Checked just after the full stop, so each abbreviation includes its own dot.
_ABBREVIATIONS = (
    r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bvs\.)(?<!\betc\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\ba\.m\.)(?<!\bp\.m\.)(?<!\bJr\.)(?<!\bProf\.)"
)
_SENTENCE_END = re.compile(_ABBREVIATIONS + r"(?<=[.!?…])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_LINE_BREAK = re.compile(r"\s*\n+\s*")

_GREETING = re.compile(
    r"^(hey+|hi+|hello|yo|hiya|howdy|good (morning|afternoon|evening|night)|bye|goodbye|"
    r"see (you|ya)( later| soon)?|take care|talk (to you )?(later|soon)|cheers|"
    r"thanks?( you)?( so much| a lot)?|thx|ty|(you['’]re |you are )?(very |so |most )?welcome|anytime|"
    r"(big|good|great|exciting|some) news|guess what|you know what|fun fact|"
    r"congrats|congratulations|"
    r"good to (see|hear from) you|nice to (meet|see) you|long time no see|"
    r"wow+|whoa+|omg|oh+|ah+|aw+|ooh+|yay+|haha+|hehe+|lol|lmao|ha|hmm+|um+|uh+|"
    r"ok(ay)?|sure|yes|yeah|yep|yup|no|nope|nah|right|indeed|totally|absolutely|definitely|"
    r"cool|nice|great|awesome|amazing|wonderful|fantastic|sweet|neat|lovely|perfect|"
    r"(that'?s|that is|sounds|it sounds|how|so) (so |really |very |pretty |super )?"
    r"(cool|great|awesome|amazing|nice|wonderful|fantastic|fun|interesting|exciting|"
    r"lovely|sweet|good|beautiful|incredible|inspiring|tough|hard|rough|sad|funny)|"
    r"i see|got it|me too|same here|fair enough|good (for you|luck)|you('ve| have) got this|"
    r"glad to hear( that)?|happy to help|no problem|of course|my pleasure|i know( right)?|"
    r"you too|same to you|agreed|exactly|true|so true|sure thing|go for it|just do it|"
    r"go get (?:'em|them)|you can do it|way to go|well done|good job|nice job|keep it up|"
    r"keep going|hang in there|you rock|love (?:it|that|this)|me neither|tell me more)"
    r"(?=[\s!.,:;)(\-~]|$)[\s!.,:;)(\-~]*",
    re.IGNORECASE,
)
#: A greeting or a hesitation set off by punctuation at a sentence's start ("Hi, ", "Oh wait, ").
_OPENER = re.compile(
    r"^(?:(?:hey+|hi+|hello|hiya|howdy|good (?:morning|afternoon|evening))(?: there)?|(?:oh+ )?wait|well|anyway"
    r"|(?:oh+,?\s+)?(?:and\s+|also,?\s+)?(?:btw|by the way)|(?:ok(?:ay)? )?so|guess what|you know what"
    r"|(?:big|good|great|exciting) news|fun fact|actually|honestly|basically|um+|uh+m*|erm*|hmm+)"
    r"\s*[,!.:;—–~-]+\s*"
    # "Oh and I need...", "Also my budget...", "Um I think...": a link to what was said before,
    # or a hesitation, then the speaker. A sentence's opening "actually" always is one.
    r"|^(?:oh+,?\s+)?(?:and|also|plus|honestly|basically|um+|uh+m*)\s+"
    r"(?=(?:i|my|i['’]m|i['’]ve|i['’]ll|i['’]d|please|remember|remind|note|keep in mind|don['’]t forget)\b)"
    r"|^actually\s+(?=\w)",
    re.IGNORECASE,
)
#: A vocative name closing an exclamation ("..., Caroline!").
_VOCATIVE = re.compile(r"^[A-Z][a-z]+[\s!.,:;)(\-~]*$")
#: A statement about the speaker inside a question: "did I tell you I adopted a dog?",
#: "have you seen my new car?". "What should I read?" states nothing.
_SELF_STATEMENT = re.compile(
    r"\b(?:i|we)(?:'ve|'m| have| had| am| was| were)?\s+(?:just |finally |recently |also )?"
    r"(?:(?!(?:need|feed|bleed|breed|speed|succeed|proceed|exceed|seed|weed|heed|shed|shred|wed)\b)\w+ed|went|got|had|made|took|saw|met|bought|found|began|won|lost|ran|wrote|"
    r"built|left|gave|came|became|moved|started|finished|been)\b|\b(?:my|our)\s+\w+",
    re.I,
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-]*")
_STOP = frozenset(
    """a an the and or but so to of in on at for with by from up about into over after is are was
    were be been being am do does did have has had it its it's this that these those there here
    you your you're yours he she him her his they them their we us our i me my just really very
    too also what how why when where who which would could should can will may might must not no
    yes oh ok okay well like then than as if all any some more most much many such only own same
    hey hi hello wow cool great nice awesome thanks thank good glad yeah lol haha""".split()
)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``; line breaks always end a sentence."""
    sentences: list[str] = []
    for line in _LINE_BREAK.split(text.strip()):
        sentences.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return sentences


def content_words(sentence: str) -> list[str]:
    return [w for w in _WORD.findall(sentence) if w.lower() not in _STOP]


_THANKS = re.compile(r"^(thanks?|thank you|thx|ty|cheers)\b", re.I)
_HELLO = re.compile(
    r"^(hey+|hi+|hello|yo|hiya|howdy|good (morning|afternoon|evening|night)|bye|goodbye|see (you|ya)|"
    r"take care|talk (to you )?(later|soon)|welcome|good to (see|hear from) you|nice to (meet|see) you|"
    r"long time no see)\b",
    re.I,
)
#: First-person statements that carry no fact ("I agree.", "I'm fine.").
_HOLLOW_SELF = re.compile(
    r"^(?:i|we)(?:\s+(?:do\s+)?(?:agree|guess|think so|hope so|suppose so|understand|bet|see|know|mean|promise|"
    r"wonder|(?:love|like|hate|enjoy|miss|need|want|appreciate|get) (?:it|that|this|them|you))"
    r"|(?:\s+am|\s+are|'m|’m|'re|’re)\s+(?:fine|good|ok|okay|alright|all right|here|back|sure|sorry|glad|in|"
    r"down|game|well|great))\b[\s!.,:;)(\-~]*$",
    re.I,
)
#: A subject that makes a one-content-word sentence a statement ("I like tea.", "My cat is Tom.").
_FIRST_PERSON = re.compile(r"\b(i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|my|me|mine|we|we're|our|us)\b", re.I)


def _strip_greetings(sentence: str) -> tuple[str, str]:
    """``(greeting prefix, rest)``: leading greetings, thanks and acknowledgements removed."""
    original = sentence.strip(" \t\"'*_~")
    rest = original
    while rest:
        match = _GREETING.match(rest)
        if not match or match.end() == 0:
            break
        rest = rest[match.end() :]
    return original[: len(original) - len(rest)], rest


#: An aside closing a sentence ("I prefer window seats btw"): how it was said, like an opener.
#: Case matters: "I finished By the Way." ends with a title.
_CLOSER = re.compile(r"[\s,;—–-]+(?:btw|BTW|Btw|by the way|fyi|FYI|just so you know)(?=[\s.!?…]*$)")


def without_closer(sentence: str) -> str:
    """``sentence`` without a closing "btw", "by the way", "fyi" (any sentence of a message:
    unlike an opening "Well,", a closing "btw" never answers anything)."""
    return _CLOSER.sub("", sentence)


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
    rest = original
    while opener := _OPENER.match(rest):
        rest = rest[opener.end() :]
    if not rest or rest == original:
        return sentence
    return rest[0].upper() + rest[1:]


#: How an assistant acknowledges what it was told before restating it ("Got it, you are 27.").
_ACKNOWLEDGEMENT = re.compile(
    r"^(?:got it|noted|understood|sure( thing)?|certainly|of course|absolutely|great|perfect|ok(?:ay)?|alright|"
    r"all right|sounds good|i see|good to know|thanks for (?:sharing|letting me know|telling me)(?: that)?)"
    r"\s*[,!.:;—–~-]+\s*",
    re.IGNORECASE,
)


def without_acknowledgement(sentence: str) -> str:
    """An assistant's first sentence without its acknowledgement ("Got it, you are 27 years
    old." is remembered as "You are 27 years old."): the assistant's own "Got it" says nothing,
    unlike a person's "Yeah, ..." answering what the other said (see :func:`without_opener`)."""
    rest = _ACKNOWLEDGEMENT.sub("", sentence.strip(), count=1)
    return sentence if not rest or rest == sentence.strip() else rest[0].upper() + rest[1:]


_FIRST_PERSON_NEXT = r"(?=(?:i|my|me|i['’]m|i['’]ve|i['’]ll|i['’]d|we|our)\b)"
#: Asking the assistant to remember: "Remember that I'm vegetarian.", "Note: I prefer aisle
#: seats.", "Can you remember that my son is Leo?", "FYI my flight leaves at 6am.". The fact
#: is what follows; the request only says it is one.
_MEMORY_REQUEST = re.compile(
    r"^(?:(?:(?:can|could|will|would) you\s+)?(?:please\s+)?(?:remember|note(?: down)?|don['’]t forget|do not forget|"
    r"keep in mind|bear in mind|never forget)(?:\s*:\s*|\s+that\s+|\s+" + _FIRST_PERSON_NEXT + r")"
    r"|(?:fyi|just so you know|for your information|for the record|heads up|note to self)"
    r"(?:\s*[,:!—–-]+\s*|\s+(?:that\s+)?" + _FIRST_PERSON_NEXT + r"))",
    re.I,
)
#: Asking to be reminded: "Remind me to call mom" is remembered as "I want to be reminded to
#: call mom" (then "The user wants to be reminded to call mom").
_REMINDER = re.compile(
    r"^(?:(?:can|could|will|would) you\s+)?(?:please\s+)?(?:remind me|don['’]t let me forget)\s+"
    r"(?=to\b|that\b|about\b|of\b)",
    re.I,
)


def as_statement(sentence: str) -> str:
    """``sentence`` without a request to remember what it states: "Remember that I'm
    vegetarian." -> "I'm vegetarian.", "Can you note that my son is Leo?" -> "My son is
    Leo.", "Remind me to call mom" -> "I want to be reminded to call mom". Other sentences
    are returned as they are."""
    stripped = sentence.strip()
    request = _REMINDER.match(stripped) or _MEMORY_REQUEST.match(stripped)
    if request is None or request.end() >= len(stripped):
        return sentence
    rest = stripped[request.end() :]
    if request.re is _REMINDER:
        rest = f"I want to be reminded {rest}"
    if stripped.split()[0].lower() in ("can", "could", "will", "would"):
        rest = re.sub(r"\?+([\"')\]]*)$", r".\1", rest)  # what was asked is stated now
    return rest[0].upper() + rest[1:]


def skip_reason(sentence: str) -> str | None:
    """Why ``sentence`` is not worth remembering (``greeting``, ``thanks``, ``filler``,
    ``question``), or None when it states something."""
    prefix, rest = _strip_greetings(sentence)
    empty = "thanks" if _THANKS.match(prefix) else "greeting" if _HELLO.match(prefix) else "filler"
    if not rest or _VOCATIVE.match(rest):
        return empty
    if is_bare_question(rest):
        return "question"
    if _HOLLOW_SELF.match(rest.strip()):
        return empty
    words = content_words(rest)
    if len(words) >= 2 or (words and _FIRST_PERSON.search(rest)):
        return None
    return empty


#: A reply that answers a yes/no question ("No.", "Yeah, sure!") though it is filler alone.
_YES_NO = re.compile(
    r"\b(?:yes|yeah|yep|yup|no|nope|nah|sure|of course|definitely|absolutely|not really|correct|exactly|"
    r"ok(?:ay)?)\b",
    re.I,
)


def is_short_answer(sentence: str) -> bool:
    """Whether ``sentence``, dropped as filler on its own, answers a question asked just
    before it: "27", "Tokyo.", "No.", "Yeah, sure!" ("How old are you?" "27"). A laugh or an
    exclamation ("haha", "wow!") answers nothing."""
    prefix, rest = _strip_greetings(sentence)
    return bool(content_words(rest)) or _YES_NO.search(prefix) is not None


#: The most words a reply without a subject of its own ("Vegetarian, and no nuts please.")
#: has for it to be read as an answer to the question before it.
FRAGMENT_WORDS = 8


def is_fragment(sentence: str) -> bool:
    """A short sentence with no first-person subject and no question: "Vegetarian, and no
    nuts please.", "Two, maybe three." It means something only as an answer."""
    return (
        len(_WORD.findall(sentence)) <= FRAGMENT_WORDS
        and not _FIRST_PERSON.search(sentence)
        and not sentence.rstrip(" \"')").endswith("?")
    )


def is_filler(sentence: str) -> bool:
    """Greetings, thanks, acknowledgements and exclamations with no content."""
    reason = skip_reason(sentence)
    return reason is not None and reason != "question"


def is_bare_question(sentence: str) -> bool:
    """A question that states nothing about the speaker (``read`` needs a past marker)."""
    return sentence.rstrip(" \"')").endswith("?") and not _SELF_STATEMENT.search(sentence)


def classified_sentences(text: str) -> list[tuple[str, str | None]]:
    """Every sentence of ``text`` with the reason it is dropped (None: kept), in order."""
    return [(s, skip_reason(s)) for s in map(as_statement, split_sentences(text))]


def informative_sentences(text: str) -> list[str]:
    """The sentences worth remembering, in order."""
    return [s for s, reason in classified_sentences(text) if reason is None]
