"""The offline heuristic extractor: messages to memories without a hosted model.

ADD-only, as a named list of passes (:data:`JUDGE_PASSES`, :data:`SENTENCE_PASSES`,
:data:`CHUNK_PASSES`): each message is segmented into sentences; greetings, thanks,
filler and bare questions are dropped, each with its reason (an add reports them as
``skipped``); exclusions are applied; what remains is grouped into memories of at most
``max_chars`` characters: one per fact the message states (``atomic``: a sentence about
the speaker starts a memory, one that leans on it stays with it, so a memory keeps the
context of its sentences), rewritten in the third person with relative dates resolved.
Every word list is the language layer's lexicon (``memorist.language``): rules written
for English apply to English, and a fact in any other language or script is kept as said.

What it cannot do (a language model can): follow free-form custom
instructions or inclusion prompts, translate, infer facts that are only
implied, or resolve "you" between named people (see ``addressee`` for the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import ClassVar

from memorist.plugin_api import (
    ContextWanted,
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    LanguageModel,
    Message,
    ProviderContext,
    ProviderOptions,
    SkippedInput,
    account_for_messages,
    join_sentences,
    language_of,
    sentences,
    user_voice_forms,
)
from pydantic import Field

from .addressee import Addressee, addressed, addressee
from .atomic import clauses, fact_groups
from .categories import categorize, excluded, exclusion_patterns
from .corrections import may_correct, restate
from .dates import resolve_relative_dates
from .rewrite import framed, own_words, speaker_label, standalone
from .segment import (
    as_statement,
    classified_sentences,
    is_fragment,
    is_question,
    is_short_answer,
    skip_reason,
    without_acknowledgement,
    without_closer,
    without_opener,
)

#: The longest question a reply's memory opens with (see :func:`answered`).
MAX_QUESTION_CHARS = 160
#: How many of the scope's latest memories a correction is resolved against, and how old
#: (observed before the correction) they may be.
RECENT_FOR_CORRECTIONS = 20
RECENT_WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class Turn:
    """Where a sentence stands, as the passes read it."""

    role: str
    #: The sentence's place in its message (0: the message's first).
    position: int
    #: The message replies to a question the other party just asked ("How old are you?" "27").
    answers: bool
    excludes: list[frozenset[str]]
    observed_at: datetime
    #: Who the message's "you" is, when it is written out (see ``addressee``).
    listener: Addressee | None


#: The passes of a sentence, in order; a phrasing the extractor learns is a row of the
#: lexicon, and a new kind of step is a row here. Each pass is named, so the golden corpus
#: (tests/golden) shows what it does. Before them, ``segment`` splits a message into
#: sentences, reads a request to remember as the statement it asks for, and names the reason
#: a sentence is not worth remembering (greeting, thanks, filler, question).
#:
#: Judging passes: the reason so far (None: kept) in, the reason out.
JUDGE_PASSES: list[tuple[str, Callable[[str, str | None, Turn], str | None]]] = [
    # A short reply ("27", "No.") is the answer to the question just asked.
    (
        "short answer",
        lambda s, r, t: None if r == "filler" and t.position == 0 and t.answers and is_short_answer(s) else r,
    ),
    ("exclusions", lambda s, r, t: "excluded" if r is None and excluded(s, t.excludes) else r),
]
#: Rewording passes: how a kept sentence was said, left out of what it says.
SENTENCE_PASSES: list[tuple[str, Callable[[str, Turn], str]]] = [
    ("opener", lambda s, t: as_statement(without_opener(s)) if t.position == 0 else s),  # "Oh, and remember that I..."
    ("acknowledgement", lambda s, t: without_acknowledgement(s) if t.position == 0 and t.role == "assistant" else s),
    ("closer", lambda s, t: without_closer(s)),
]
#: Memory passes: each memory-sized chunk of a message before it is put in the third person.
CHUNK_PASSES: list[tuple[str, Callable[[str, Turn], str]]] = [
    ("relative dates", lambda c, t: resolve_relative_dates(c, t.observed_at)),
    ("addressee", lambda c, t: addressed(c, t.listener) if t.listener is not None else c),
]


class HeuristicExtractorOptions(ProviderOptions):
    #: Longest memory; longer messages are split at sentence boundaries.
    max_chars: int = Field(480, ge=80, le=10_000)
    #: Extract from system messages too (they are usually instructions, not facts).
    include_system: bool = False
    #: One memory per fact a message states (see ``atomic``); off: one memory per message.
    one_fact_per_memory: bool = True
    #: Offer each fact in the user's own words (``ExtractedFact.words``: "I'm vegetarian."
    #: for "The user is vegetarian."), which the memory's vector is made from, and search
    #: queries about the user in the first person to match (see ``rewrite.own_words``).
    own_words: bool = True


class HeuristicExtractor(LanguageModel[HeuristicExtractorOptions]):
    """Rule-based extraction; the embedded default's language-model slot."""

    name: ClassVar[str] = "heuristic"

    Options = HeuristicExtractorOptions

    def __init__(self, options: HeuristicExtractorOptions, context: ProviderContext) -> None:
        super().__init__(options, context)

    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        return self.extract_detailed(request).facts

    def query_forms(self, query: str, user_ids: Sequence[str] = ()) -> list[str]:
        """The query about "the user", as this extractor writes memories (see ``rewrite``)."""
        return user_voice_forms(query, user_ids, language_of(query), own_words=self.options.own_words)

    def context_wanted(self, request: ExtractionRequest) -> ContextWanted:
        """The scope's latest memories only for an add that holds a correction ("make that
        $4000": an earlier add's fact may be what it corrects), and the question the previous
        add ended on only for an add that opens with a user's reply that means little without
        one ("27", "No.", "Vegetarian, and no nuts please.")."""
        corrects = any(may_correct(m.content) for m in request.messages)
        return ContextWanted(recent=RECENT_FOR_CORRECTIONS if corrects else 0, question=_opens_with_a_reply(request))

    def extract_detailed(self, request: ExtractionRequest) -> Extraction:
        """Facts, and every sentence or message not kept with the reason (see ``segment``)."""
        patterns = exclusion_patterns(request.excludes)
        facts: list[ExtractedFact] = []
        skipped: list[SkippedInput] = []
        #: Each speaker's sentences so far, oldest first: what a correction may restate (see
        #: ``corrections``). ``stored`` marks those that are memories already (standalone text).
        said: dict[str, list[str]] = {}
        stored: dict[str, list[bool]] = {}
        for memory in request.recent:
            if memory.observed_at is not None and request.observed_at - memory.observed_at > RECENT_WINDOW:
                continue  # a correction refers to what was just said, not to last week's value
            speaker = speaker_label(memory.speaker, memory.attributed_to or "user")
            said.setdefault(speaker, []).append(memory.text)
            stored.setdefault(speaker, []).append(True)
        #: A message's last sentence skipped as a question: what the reply after it answers.
        questions: dict[int, str] = {}
        #: The last message's last sentence when it is a question: the conversation's next
        #: add may answer it (``Extraction.open_question``).
        ending_question: str | None = None
        for index, message in enumerate(request.messages):
            if message.role == "tool" or (message.role == "system" and not self.options.include_system):
                continue  # reported by account_for_messages
            speaker = speaker_label(message.name, message.role)
            earlier = said.setdefault(speaker, [])
            from_memories = stored.setdefault(speaker, [])
            kept: list[str] = []
            #: One language for the message's facts: a short sentence alone tells it poorly.
            language = language_of(message.content)
            restated: list[str] = []
            standalone_facts: list[str] = []
            question = answered(request.messages, index, questions, request.asked)
            # "How old are you?" "27": the user's reply is the fact. (An assistant's "Sure!"
            # to "Can you help me plan meals?" says nothing about the user.)
            answers = question is not None and message.role == "user"
            listener = addressee(request.messages, index)
            classified = classified_sentences(message.content)
            if index == len(request.messages) - 1 and classified and classified[-1][1] == "question":
                ending_question = classified[-1][0]
            replied = _replied(request.messages, index)
            for position, (sentence, reason) in enumerate(classified):
                turn = Turn(message.role, position, answers, patterns, request.observed_at, listener)
                for _, judge in JUDGE_PASSES:
                    reason = judge(sentence, reason, turn)
                if reason is None and replied and position == len(classified) - 1 and is_question(sentence):
                    # "What should I put on my CV?" then the assistant's advice: the reply's
                    # memory opens with the question and keeps what it states (see ``answered``).
                    reason = "question"
                if reason is not None:
                    skipped.append(SkippedInput(message=index, reason=reason, text=sentence))
                    if reason == "question":
                        questions[index] = sentence
                    continue
                for _, reword in SENTENCE_PASSES:
                    sentence = reword(sentence, turn)
                # "I don't eat meat, and my budget is $3000.": each clause a fact (see atomic),
                # before corrections, so "make that $4000" restates the budget alone.
                for part in clauses(sentence, language) if self.options.one_fact_per_memory else [sentence]:
                    correction = restate(part, earlier)
                    from_memory = correction is not None and from_memories[correction.source]
                    if correction is None:
                        kept.append(part)
                    else:  # a memory of its own, worded as the fact it corrects (see corrections)
                        (standalone_facts if from_memory else restated).append(correction.sentence)
                        kept.extend([correction.rest] if correction.rest else [])
                    earlier.append(correction.sentence if correction else part)
                    from_memories.append(from_memory)
            others = (listener.label,) if listener is not None else ()
            chunks = list(standalone_facts)
            #: Each chunk's words as the user said them, where they stand alone (see own_words).
            spoken: list[str | None] = [None] * len(chunks)
            turn = Turn(message.role, 0, answers, patterns, request.observed_at, listener)
            groups = fact_groups(kept, language) if self.options.one_fact_per_memory else [kept]
            for chunk in [*restated, *(c for group in groups for c in self._chunks(group))]:
                for _, rework in CHUNK_PASSES:
                    chunk = rework(chunk, turn)
                # The first memory of a reply opens with the question it answers.
                reply_to = None if chunks else question
                chunks.append(standalone(chunk, speaker, others=others, reply_to=reply_to))
                spoken.append(own_words(chunk, message, reply_to) if self.options.own_words else None)
            if question and standalone_facts:  # worded from a memory: it names its speaker already
                chunks[0] = f"{question} {chunks[0]}"
            for text, words in zip(chunks, spoken, strict=True):
                facts.append(
                    ExtractedFact(
                        text=text,
                        words=words if words != text else None,
                        categories=categorize(text, request.categories or None),
                        source_message=index,
                        attributed_to=message.role if message.role != "system" else "user",
                        speaker=message.name,
                    )
                )
        return Extraction(
            facts=facts,
            skipped=account_for_messages(request, facts, skipped),
            open_question=open_question(request.messages, ending_question),
        )

    def _chunks(self, sentences: list[str]) -> list[str]:
        chunks: list[str] = []
        current = ""
        for sentence in sentences:
            if current and len(current) + 1 + len(sentence) > self.options.max_chars:
                chunks.append(current)
                current = sentence
            else:
                current = join_sentences(current, sentence)
        if current:
            chunks.append(current)
        return chunks


def answered(
    messages: list[Message], index: int, questions: dict[int, str], asked: Message | None = None
) -> str | None:
    """What a reply answers, as its memory opens with it: 'The user asked "Can you recommend a
    novel about trees?"', 'The assistant asked "Do you have a budget in mind?"'. A question is
    no memory of its own, but without it "I recommend The Overstory" holds no "novel" or "trees"
    for a later "Which book did you recommend?" to find, and "Around 20 lakh rupees." says
    nothing of a budget. Only the other party's message just before (user and assistant), and
    a question short enough not to outweigh the answer. For the first message, that is
    ``asked``: the question the conversation's previous add ended on, if it was read."""
    parties = ("user", "assistant")
    if messages[index].role not in parties:
        return None
    if index == 0:
        before, question = asked, asked.content if asked is not None else None
    else:
        before, question = messages[index - 1], questions.get(index - 1)
    if before is None or before.role not in parties or before.role == messages[index].role:
        return None
    if question is None or len(question) > MAX_QUESTION_CHARS:
        return None
    return framed(question, speaker_label(before.name, before.role), "question_frame")


def _replied(messages: list[Message], index: int) -> bool:
    """Whether the other party (user and assistant) replies to ``messages[index]`` right after
    it with something kept: a question there that states something ("What should I put on my
    CV?", "Any tips for my first week?") is then the reply's question, not a memory of its own."""
    parties = ("user", "assistant")
    if index + 1 >= len(messages):
        return False
    message, reply = messages[index], messages[index + 1]
    if message.role not in parties or reply.role not in parties or reply.role == message.role:
        return False
    last = sentences(message.content)[-1:] or [""]
    if len(as_statement(last[0])) > MAX_QUESTION_CHARS:
        return False
    return any(reason is None for _, reason in classified_sentences(reply.content))


def _opens_with_a_reply(request: ExtractionRequest) -> bool:
    """Whether the add opens with a user's reply that means little without the question
    before it: a short answer ("27", "No.") or a fragment ("Vegetarian, and no nuts please.")."""
    if not request.messages or request.messages[0].role != "user":
        return False
    said = sentences(request.messages[0].content)
    first = as_statement(said[0]) if said else ""
    reason = skip_reason(first) if first else "empty"
    return (reason == "filler" and is_short_answer(first)) or (reason is None and is_fragment(first))


def open_question(messages: list[Message], question: str | None) -> Message | None:
    """The question the last message ends on, which the conversation's next add may answer:
    an assistant's (a user's short reply is what :meth:`HeuristicExtractor.context_wanted`
    reads it for; between named people, as in LoCoMo, nothing is kept)."""
    if not messages or messages[-1].role != "assistant":
        return None
    if question is None or len(question) > MAX_QUESTION_CHARS:
        return None
    return Message(role=messages[-1].role, content=question, name=messages[-1].name)
