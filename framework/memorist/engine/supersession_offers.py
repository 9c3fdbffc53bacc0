"""An offer of the listener's that the speaker turns down: 'The assistant asked "Would you
like me to switch you to Vodafone?" The user replied: nah, Three is fine'. The question names
a change (a switch, a new value) that did not happen, so the memory changes nothing the
speaker holds; its words would read as one ("switch", "Vodafone").

Two rows of every lexicon hold the language: `offer_questions`, the phrases by which the
listener offers to act ("would you like me to", "soll ich", "voulez-vous que je"), and
`declining_replies`, the answers that turn an offer down ("no", "nah", "nein danke").
"""

from __future__ import annotations

from functools import lru_cache

from ..language import DEFAULT, Phrases, lexicon, tokens
from ..language import languages as all_languages
from .supersession_openings import interjection_end
from .supersession_reading import read
from .supersession_reports import USER_LABEL
from .supersession_speakers import statement_language
from .supersession_subjects import _REPLY_WORDS

#: The extractor's question frame ('{speaker} asked "{text}"') around the offer, split at the
#: text: what stands before the question and what closes it.
_QUESTION = str(lexicon(DEFAULT).get("question_frame") or "").partition("{speaker}")[2]
_ASKED, _, _CLOSE = _QUESTION.partition("{text}")
#: How many words into the question an offer may open ("Great, would you like me to ...").
OFFER_WINDOW = 4


@lru_cache(maxsize=1)
def _rows() -> tuple[Phrases, Phrases]:
    """Every language's offer questions and declining replies."""
    offers: dict[str, str] = {}
    declines: dict[str, str] = {}
    for code in all_languages():
        lex = lexicon(code)
        offers.update(dict.fromkeys(lex.phrases("offer_questions"), "offer_questions"))
        declines.update(dict.fromkeys(lex.phrases("declining_replies"), "declining_replies"))
    return Phrases(offers), Phrases(declines)


@lru_cache(maxsize=16_384)
def declined_reply(text: str) -> str | None:
    """What follows the refusal when ``text`` (a memory in the extractor's question frame)
    answers an offer of the listener's with one ("Three is fine" of 'The assistant asked
    "Shall I switch you to Vodafone?" The user replied: nah, Three is fine'; empty after a
    bare "no"), else None: the question opens with an offer within its first words and the
    reply opens, past interjections and the reply frame, with a declining reply."""
    framed = _framed(text)
    if framed is None:
        return None
    question, reply = framed
    offers, declines = _rows()
    asked = tokens(question)
    if not any(offers.at(asked, i) is not None for i in range(min(len(asked), OFFER_WINDOW))):
        return None
    if _REPLY_WORDS.strip() and _REPLY_WORDS in reply:
        reply = reply.partition(_REPLY_WORDS)[2]
    said = tokens(reply)
    if not said:
        return None
    start = interjection_end(said, 0, statement_language(reply)) if declines.at(said, 0) is None else 0
    hit = declines.at(said, start)
    if hit is None:
        return None
    return reply[said[start + hit[0] - 1].end :].strip(" ,.;:!-–—")


def declined_offer(newer: str) -> bool:
    """Whether ``newer`` turns down an offer to change something and tells no change after the
    refusal ("nah, Three is fine" keeps "The user's mobile provider is Three"). An offer that
    names no change ("Shall I still send the anniversary reminder?") turned down may itself
    tell one, so it is read as the rule reads any fact."""
    rest = declined_reply(newer)
    framed = _framed(newer)
    if rest is None or framed is None or not read(f"{USER_LABEL}{framed[0]}").change:
        return False
    told = read(f"{USER_LABEL}{rest}") if rest else None
    return told is None or not (told.change or told.moved)


def _framed(text: str) -> tuple[str, str] | None:
    """The question of ``text``'s question frame and what follows it, or None without one."""
    if not _ASKED.strip() or _ASKED not in text:
        return None
    question, closed, reply = text.partition(_ASKED)[2].partition(_CLOSE or '"')
    return (question, reply) if closed else None
