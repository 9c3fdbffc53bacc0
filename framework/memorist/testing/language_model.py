"""The contract every ``LanguageModel`` must meet, as a pytest suite a plugin's tests subclass.

Why: the engine relies on more than ``extract`` returning a list. It stores each fact with
the message it cites (so a citation must name a message of the request), reports every
message that gave no memory with its reason (nothing is dropped silently), reads the scope's
recent memories and the open question only when :meth:`~memorist.plugin.contracts.LanguageModel.context_wanted`
asks (so that answer must be a :class:`~memorist.records.ContextWanted` and cost nothing),
searches the forms ``query_forms`` offers, takes from ``replaced_memories`` one list of
candidate ids per new fact or None (the rule decides), and calls ``complete_json`` only on a
model that says it is ``generative``. A subclass provides one fixture, ``language_model`` (a built
provider), and gets every check below::

    from memorist.testing.language_model import LanguageModelContract

    class TestMyModel(LanguageModelContract):
        @pytest.fixture
        def language_model(self, tmp_path):
            return MyModel(MyModel.Options(), ProviderContext(data_dir=tmp_path))

The conversations are small and natural, in several languages; a model behind an API can be
pointed at a local server speaking its protocol (the project's own tests do that for OpenAI).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pydantic
import pytest

from ..errors import CapabilityError
from ..plugin.contracts import LanguageModel
from ..records import CandidateMemory, ContextWanted, Extraction, ExtractionRequest, FactWithCandidates, Message

WHEN = datetime(2024, 5, 14, 9, 30, tzinfo=UTC)

#: Conversations a model must handle: several speakers, languages and scripts, a system prompt.
CONVERSATIONS: list[list[Message]] = [
    [
        Message(role="user", content="Hi! Yesterday I adopted a dog named Rex.", name="Alice"),
        Message(role="assistant", content="Congratulations! What breed is he?"),
        Message(role="user", content="A beagle. I also moved to Madrid last month."),
    ],
    [
        Message(role="system", content="You are a helpful travel assistant."),
        Message(role="user", content="Ich heiße Jürgen und wohne in München."),
        Message(role="user", content="Mi hermana es médica en Sevilla."),
    ],
    [
        Message(role="user", content="私の名前はアダです。リスボンに住んでいます。"),
        Message(role="tool", content='{"weather": "sunny", "city": "Lisbon"}'),
        Message(role="user", content="Actually, make that $4000 for the trip budget."),
    ],
]
QUERIES = ["What do I do for work?", "Où est-ce que j'habite ?", "Wo wohne ich?", "私の犬の名前は？", "dog"]


class Verdict(pydantic.BaseModel):
    """The schema ``complete_json`` is asked to fill (``test_complete_json_answers_or_refuses``)."""

    ok: bool


def request_of(messages: list[Message], **extra: Any) -> ExtractionRequest:
    return ExtractionRequest(messages=messages, observed_at=WHEN, **extra)


class LanguageModelContract:
    """Subclass it in a test module and provide the ``language_model`` fixture."""

    @pytest.fixture
    def language_model(self) -> LanguageModel[Any]:
        raise NotImplementedError("provide a `language_model` fixture returning a built LanguageModel")

    def test_is_a_language_model_with_a_name(self, language_model: LanguageModel[Any]) -> None:
        assert isinstance(language_model, LanguageModel)
        name = type(language_model).name
        assert isinstance(name, str) and name and name in language_model.describe()

    def test_options_refuse_unknown_keys(self, language_model: LanguageModel[Any]) -> None:
        with pytest.raises(pydantic.ValidationError):
            type(language_model).Options.model_validate({"no_such_option_anywhere": 1})

    @pytest.mark.parametrize("conversation", range(len(CONVERSATIONS)))
    def test_facts_cite_messages_of_the_request(self, language_model: LanguageModel[Any], conversation: int) -> None:
        messages = CONVERSATIONS[conversation]
        extraction = language_model.extract_detailed(request_of(messages))
        assert isinstance(extraction, Extraction)
        for fact in extraction.facts:
            assert fact.text.strip() == fact.text and fact.text
            assert fact.source_message is None or 0 <= fact.source_message < len(messages), fact
        for skip in extraction.skipped:
            assert 0 <= skip.message < len(messages) and skip.reason, skip

    @pytest.mark.parametrize("conversation", range(len(CONVERSATIONS)))
    def test_every_message_is_accounted_for(self, language_model: LanguageModel[Any], conversation: int) -> None:
        """A message no fact cites is reported as skipped, with a reason: nothing is dropped silently
        (unless some fact cites no message, when any message may be its source)."""
        messages = CONVERSATIONS[conversation]
        extraction = language_model.extract_detailed(request_of(messages))
        cited = {fact.source_message for fact in extraction.facts}
        if None in cited:
            return
        reported = cited | {skip.message for skip in extraction.skipped}
        assert reported == set(range(len(messages))), (extraction.facts, extraction.skipped)

    def test_context_messages_and_empty_ones_give_no_memory(self, language_model: LanguageModel[Any]) -> None:
        messages = [
            Message(role="system", content="Answer briefly."),
            Message(role="user", content="   "),
            Message(role="tool", content="{}"),
        ]
        extraction = language_model.extract_detailed(request_of(messages))
        assert extraction.facts == []
        reasons = {skip.message: skip.reason for skip in extraction.skipped}
        assert reasons == {0: "system_message", 1: "empty", 2: "tool_message"}

    def test_extract_gives_the_facts_of_extract_detailed(self, language_model: LanguageModel[Any]) -> None:
        request = request_of(CONVERSATIONS[0])
        assert [f.text for f in language_model.extract(request)] == [
            f.text for f in language_model.extract_detailed(request).facts
        ]

    def test_the_request_is_left_as_it_came(self, language_model: LanguageModel[Any]) -> None:
        request = request_of(CONVERSATIONS[0])
        before = request.model_copy(deep=True)
        language_model.context_wanted(request)
        language_model.extract_detailed(request)
        assert request == before

    @pytest.mark.parametrize("conversation", range(len(CONVERSATIONS)))
    def test_context_wanted_says_what_to_read(self, language_model: LanguageModel[Any], conversation: int) -> None:
        for request in (request_of(CONVERSATIONS[conversation]), request_of([])):
            wanted = language_model.context_wanted(request)
            assert isinstance(wanted, ContextWanted)
            assert isinstance(wanted.recent, int) and wanted.recent >= 0
            assert isinstance(wanted.question, bool)

    def test_context_it_asked_for_is_accepted(self, language_model: LanguageModel[Any]) -> None:
        """What the engine fills in when asked (recent memories, the open question) is input the
        model takes, not a reason to fail."""
        from ..records import RecentMemory

        request = request_of(
            [Message(role="user", content="27")],
            recent=[RecentMemory(text="The user's budget is $3000.", attributed_to="user", observed_at=WHEN)],
            asked=Message(role="assistant", content="How old are you?"),
        )
        extraction = language_model.extract_detailed(request)
        assert all(f.source_message in (None, 0) for f in extraction.facts)

    def test_query_forms_are_other_texts_to_search(self, language_model: LanguageModel[Any]) -> None:
        for query in QUERIES:
            forms = language_model.query_forms(query, ["alice"])
            assert isinstance(forms, list) and all(isinstance(f, str) and f.strip() for f in forms), (query, forms)

    def test_complete_json_answers_or_refuses(self, language_model: LanguageModel[Any]) -> None:
        from ..records import ChatMessage

        messages = [ChatMessage(role="user", content='Reply with the JSON object {"ok": true}.')]
        if not language_model.generative:
            with pytest.raises(CapabilityError):
                language_model.complete_json(messages, Verdict)
            return
        assert isinstance(language_model.complete_json(messages, Verdict), Verdict)

    def test_replaced_memories_judges_each_fact_or_leaves_it_to_the_rule(
        self, language_model: LanguageModel[Any]
    ) -> None:
        lisbon = CandidateMemory(id="lisbon", text="Alice lives in Lisbon.", observed_at=WHEN, attributed_to="user")
        dog = CandidateMemory(id="dog", text="Alice has a dog.", observed_at=WHEN, attributed_to="user")
        later = WHEN.replace(month=6)
        facts = [
            FactWithCandidates(text="Alice moved to Porto.", observed_at=later, candidates=(lisbon, dog)),
            FactWithCandidates(text="Alice ist jetzt Vegetarierin.", observed_at=later),
            FactWithCandidates(text="Alice also has a cat.", observed_at=later, candidates=(dog,)),
        ]
        answer = language_model.replaced_memories(facts)
        if answer is None:  # no judgment: the rule decides
            return
        assert len(answer) == len(facts), answer
        for fact, ids in zip(facts, answer, strict=True):
            assert set(ids) <= {c.id for c in fact.candidates}, (fact.text, ids)
