"""Chat-completion language model for any OpenAI-compatible endpoint.

One class serves OpenAI, Azure's OpenAI-compatible ``/openai/v1`` URLs,
Ollama's ``/v1``, vLLM, LM Studio and llama.cpp's server: they differ only in
``base_url``, the key, and whether they accept ``response_format`` (hence
``json_mode``). Replies are never trusted to be bare JSON: fences, prose and
``<think>`` blocks are stripped, then the pydantic schema decides; a reply it
rejects is retried with the reason, within the same attempt budget as HTTP
failures (see :mod:`memorist_openai.client`).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pydantic
from memorist.plugin_api import (
    ChatMessage,
    ContextWanted,
    ExtractedFact,
    Extraction,
    ExtractionRequest,
    FactWithCandidates,
    LanguageModel,
    Message,
    ModelT,
    ProviderContext,
    ProviderError,
    SkippedInput,
    account_for_messages,
    language_of,
    user_voice_forms,
)
from pydantic import Field

from .client import ClientOptions, InvalidReply, RetryPolicy, build_client, call_with_retries
from .prompts import DEFAULT_CATEGORIES, ExtractionReply, SupersessionReply, extraction_messages, supersession_messages

log = logging.getLogger(__name__)

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5)?[ \t]*\n?(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
#: How much of a bad reply is echoed back in the corrective follow-up.
_ECHO_LIMIT = 4000


def extract_json_object(text: str | None) -> dict[str, Any]:
    """The outermost JSON object in a model reply.

    Accepts a bare object, one inside a Markdown fence, or one surrounded by
    prose; reasoning models' ``<think>`` sections are dropped first because
    they may contain braces. Raises ``ValueError`` saying what was wrong.
    """
    if text is None or not text.strip():
        raise ValueError("the reply was empty")
    text = _THINK.sub("", text).strip()
    candidates = [text]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    raise ValueError("the reply is JSON but not an object")


def _validation_summary(exc: pydantic.ValidationError, limit: int = 6) -> str:
    errors = exc.errors()
    parts = [f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}" for err in errors[:limit]]
    if len(errors) > limit:
        parts.append(f"... {len(errors) - limit} more")
    return "; ".join(parts)


def _category_key(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().casefold())


class OpenAILanguageModelOptions(ClientOptions):
    model: str = "gpt-4.1-mini"
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    #: Send ``response_format={"type": "json_object"}``; turn off for
    #: servers that reject it (the reply is parsed leniently either way).
    json_mode: bool = True
    #: Optional cap on reply tokens (``max_tokens``); None leaves the server default.
    max_tokens: int | None = Field(default=None, gt=0)
    #: Let the model judge which stored memories an add's new facts replace: one more chat
    #: call per add that has a candidate (a stored memory near a new fact). Off: the engine's
    #: word-and-cosine rule decides, as with the offline model.
    judge_supersession: bool = True


class OpenAILanguageModel(LanguageModel[OpenAILanguageModelOptions]):
    """Extraction and JSON answers through ``/chat/completions``."""

    name: ClassVar[str] = "openai"

    Options = OpenAILanguageModelOptions

    def __init__(self, options: OpenAILanguageModelOptions, context: ProviderContext) -> None:
        super().__init__(options, context)
        #: Judge calls that failed after the retries (the rule decided those adds instead).
        self.judge_failures = 0
        self._failures_lock = threading.Lock()
        # Built now so a missing key is a startup error, not a failed first add.
        self._client = build_client(
            options, context.extras.get("outbound_guard"), context.extras.get("provider_key_origins")
        )
        self.retry_policy = RetryPolicy(options)

    def describe(self) -> str:
        return f"openai:{self.options.model}"

    def close(self) -> None:
        self._client.close()

    # -- free-form JSON -------------------------------------------------

    def complete_json(self, messages: Sequence[ChatMessage], schema: type[ModelT]) -> ModelT:
        """A reply validated against ``schema``; the schema is shown to the model."""
        return self._complete(_with_schema_note(messages, schema), schema)

    def _complete(self, messages: Sequence[ChatMessage], schema: type[ModelT]) -> ModelT:
        # Plain dicts (typed Any): the client's TypedDict unions add nothing here.
        base: list[Any] = [{"role": m.role, "content": m.content} for m in messages]
        correction: list[Any] = []
        params: dict[str, Any] = {
            "model": self.options.model,
            "temperature": self.options.temperature,
        }
        if self.options.json_mode:
            params["response_format"] = {"type": "json_object"}
        if self.options.max_tokens is not None:
            params["max_tokens"] = self.options.max_tokens

        def request() -> Any:
            return self._client.chat.completions.create(messages=base + correction, **params)

        def accept(response: Any) -> ModelT:
            choice = response.choices[0] if response.choices else None
            content = choice.message.content if choice is not None else None
            try:
                return schema.model_validate(extract_json_object(content))
            except ValueError as exc:  # pydantic.ValidationError is a ValueError
                if isinstance(exc, pydantic.ValidationError):
                    problem = f"it does not match the schema: {_validation_summary(exc)}"
                else:
                    problem = str(exc)
                refusal = getattr(choice.message, "refusal", None) if choice is not None else None
                if refusal:
                    problem += f" (refusal: {refusal})"
                if choice is not None and choice.finish_reason == "length":
                    problem += " (the reply was cut off at the token limit; answer more briefly)"
            # Only the latest exchange is kept: the conversation must not grow per attempt.
            correction[:] = [
                {"role": "assistant", "content": (content or "")[:_ECHO_LIMIT]},
                {
                    "role": "user",
                    "content": f"Your previous reply was invalid: {problem}. Reply again with "
                    "only one JSON object that follows the requested format, nothing else.",
                },
            ]
            raise InvalidReply(problem)

        return call_with_retries(self.retry_policy, f"{self.describe()} chat completion", request, accept)

    # -- supersession ---------------------------------------------------

    def replaced_memories(self, facts: Sequence[FactWithCandidates]) -> list[list[str]] | None:
        """Which candidates each fact replaces, from one chat call for all of them.

        No call when ``judge_supersession`` is off (None: the rule decides) or no fact has a
        candidate (nothing is replaced). A label the model answers that is not one of that
        fact's candidates is dropped, as is a verdict for a fact that was not asked about; a
        fact without a verdict replaces nothing. A call that fails after the client's retries
        (an HTTP error, a timeout, a reply that never validates) is logged and counted in
        :attr:`judge_failures`, and answers None: the add goes on, and the rule decides."""
        if not self.options.judge_supersession:
            return None
        asked = [index for index, fact in enumerate(facts) if fact.candidates]
        answer: list[list[str]] = [[] for _ in facts]
        if not asked:
            return answer
        messages, labels = supersession_messages([facts[i] for i in asked])
        try:
            reply = self.complete_json(messages, SupersessionReply)
        except ProviderError as exc:
            with self._failures_lock:
                self.judge_failures += 1
            log.warning("%s could not judge supersession, the rule decides: %s", self.describe(), exc)
            return None
        for verdict in reply.verdicts:
            if not 0 <= verdict.fact < len(asked):
                continue
            own = labels[verdict.fact]
            ids = answer[asked[verdict.fact]]
            ids.extend(own[label] for label in dict.fromkeys(verdict.replaces) if label in own)
        return [list(dict.fromkeys(ids)) for ids in answer]

    # -- extraction -----------------------------------------------------

    def query_forms(self, query: str, user_ids: Sequence[str] = ()) -> list[str]:
        """The query about "the user": the extraction prompt has the model write memories
        about "the user" in the third person, as the heuristic does."""
        return user_voice_forms(query, user_ids, language_of(query))

    def extract(self, request: ExtractionRequest) -> list[ExtractedFact]:
        """ADD-only facts from both speakers, mapped onto the kernel's ``ExtractedFact``."""
        return self.extract_detailed(request).facts

    def context_wanted(self, request: ExtractionRequest) -> ContextWanted:
        """The question the previous add ended on, for any add that opens with the user's
        message: a point read beside a model call, and the model judges what it answers.
        No recent memories: the prompt does not resolve corrections against them."""
        return ContextWanted(question=bool(request.messages) and request.messages[0].role == "user")

    def extract_detailed(self, request: ExtractionRequest) -> Extraction:
        """Facts, and the skips the model reports (with its reasons) plus every message
        it neither cited nor reported (``no_fact``, or the system/tool/empty kinds); and the
        assistant's question the last message ends on, left open for the next add."""
        if not any(m.content.strip() for m in request.messages if m.role in ("user", "assistant")):
            return Extraction(skipped=account_for_messages(request, [], []))
        categories = request.categories or DEFAULT_CATEGORIES
        reply = self._complete(extraction_messages(request, categories), ExtractionReply)
        facts = self._to_facts(reply, request, categories)
        reported = [
            SkippedInput(message=s.message, reason=s.reason, text=s.text)
            for s in reply.skipped
            if 0 <= s.message < len(request.messages)
        ]
        return Extraction(
            facts=facts,
            skipped=account_for_messages(request, facts, reported),
            open_question=ending_question(request.messages),
        )

    @staticmethod
    def _to_facts(
        reply: ExtractionReply, request: ExtractionRequest, categories: Mapping[str, str]
    ) -> list[ExtractedFact]:
        """Trust the conversation over the model for who said what.

        ``attributed_to`` and ``speaker`` come from the cited message when the
        index is valid (a model may misattribute an assistant's restatement);
        categories outside the allowed list are dropped rather than invented.
        """
        allowed = {_category_key(name): name for name in categories}
        facts = []
        for memory in reply.memories:
            index = memory.source_message
            if index is not None and not 0 <= index < len(request.messages):
                index = None
            source = request.messages[index] if index is not None else None
            attributed_to = memory.attributed_to
            if source is not None and source.role in ("user", "assistant"):
                attributed_to = source.role
            tags: list[str] = []
            for raw in memory.categories:
                name = allowed.get(_category_key(raw))
                if name is not None and name not in tags:
                    tags.append(name)
            facts.append(
                ExtractedFact(
                    text=memory.text,
                    categories=tags,
                    source_message=index,
                    attributed_to=attributed_to,
                    speaker=source.name if source is not None else None,
                )
            )
        return facts


#: The last sentence of a message when it is a question (up to 160 characters, as the
#: heuristic extractor keeps).
_LAST_QUESTION = re.compile(r"([^.!?\n]{1,159}\?)[\s\"')\]]*$")


def ending_question(messages: Sequence[Message]) -> Message | None:
    """The question an assistant's last message ends on ("Great! How many people are you
    cooking for?"), which the conversation's next add may answer."""
    if not messages or messages[-1].role != "assistant":
        return None
    found = _LAST_QUESTION.search(messages[-1].content.strip())
    if found is None:
        return None
    return Message(role="assistant", content=found.group(1).strip(), name=messages[-1].name)


def _with_schema_note(messages: Sequence[ChatMessage], schema: type[pydantic.BaseModel]) -> list[ChatMessage]:
    """Messages plus the JSON Schema the reply must follow.

    Folded into the first system message rather than added as a second one:
    several local chat templates reject a system message that is not first.
    JSON mode on OpenAI also requires the word "JSON" somewhere in the prompt.
    """
    schema_json = json.dumps(schema.model_json_schema(), separators=(",", ":"))
    note = (
        "Reply with only one JSON object (no prose, no code fences) that validates "
        f"against this JSON Schema:\n{schema_json}"
    )
    result = list(messages)
    if result and result[0].role == "system":
        result[0] = ChatMessage(role="system", content=f"{result[0].content}\n\n{note}")
    else:
        result.insert(0, ChatMessage(role="system", content=note))
    return result
