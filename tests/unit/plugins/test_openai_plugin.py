"""The OpenAI-compatible plugin, driven through the official client against a fake server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist.errors import ConfigurationError, ProviderError
from memorist.plugin.contracts import ProviderContext
from memorist.plugin.registry import ProviderRegistry
from memorist.records import CandidateMemory, ChatMessage, ExtractionRequest, FactWithCandidates, Message
from memorist_openai import OpenAIEmbedder, OpenAILanguageModel
from memorist_openai.client import parse_retry_after
from memorist_openai.language_model import extract_json_object
from pydantic import BaseModel

from tests.fake_openai import FakeOpenAI, Reply, fake_openai_server


class Answer(BaseModel):
    city: str
    year: int


ASK = [ChatMessage(role="user", content="Where and when? Answer in JSON.")]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with fake_openai_server() as fake:
        yield fake


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TEST_OPENAI_KEY"):
        monkeypatch.delenv(name, raising=False)


def _context(tmp_path: Path) -> ProviderContext:
    return ProviderContext(data_dir=tmp_path)


def make_llm(server: FakeOpenAI, tmp_path: Path, **options: Any) -> OpenAILanguageModel:
    opts = {"base_url": server.base_url, "backoff_seconds": 0.001, "timeout": 5.0, **options}
    llm = OpenAILanguageModel(OpenAILanguageModel.Options(**opts), _context(tmp_path))
    llm.retry_policy.delays = []  # type: ignore[attr-defined]
    llm.retry_policy.sleep = llm.retry_policy.delays.append  # type: ignore[attr-defined]
    return llm


def make_embedder(server: FakeOpenAI, tmp_path: Path, **options: Any) -> OpenAIEmbedder:
    opts = {"base_url": server.base_url, "backoff_seconds": 0.001, "timeout": 5.0, **options}
    return OpenAIEmbedder(OpenAIEmbedder.Options(**opts), _context(tmp_path))


def _text_of(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"])


# -- complete_json: parsing ---------------------------------------------------


def test_valid_json(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat('{"city": "Lisbon", "year": 2024}')
    llm = make_llm(server, tmp_path)
    assert llm.complete_json(ASK, Answer) == Answer(city="Lisbon", year=2024)
    (body,) = server.chat_requests
    assert body["model"] == "gpt-4.1-mini"
    assert body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}
    # the schema is shown to the model, folded into a single leading system message
    assert body["messages"][0]["role"] == "system"
    assert '"city"' in body["messages"][0]["content"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert llm.generative


def test_fenced_json(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat('Sure! Here it is:\n```json\n{"city": "Oslo", "year": 1999}\n```\nAnything else?')
    assert make_llm(server, tmp_path).complete_json(ASK, Answer) == Answer(city="Oslo", year=1999)
    assert len(server.chat_requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        'The answer is {"city": "Rome", "year": 2001} as requested {see above}.',
        '<think>maybe {"city": "Paris"}?</think>{"city": "Rome", "year": 2001}',
        '```\n{"city": "Rome", "year": 2001}\n```',
        '  {"city": "Rome", "year": 2001}  ',
    ],
)
def test_json_in_surrounding_text(reply: str) -> None:
    assert extract_json_object(reply) == {"city": "Rome", "year": 2001}


@pytest.mark.parametrize("reply", ["", "   ", "no json here", "[1, 2]", '{"city": '])
def test_json_extraction_rejects(reply: str) -> None:
    with pytest.raises(ValueError):
        extract_json_object(reply)


def test_json_mode_off_sends_no_response_format(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat('{"city": "Lima", "year": 2020}')
    llm = make_llm(server, tmp_path, json_mode=False, temperature=0.3, model="llama3.1", max_tokens=50)
    llm.complete_json(ASK, Answer)
    (body,) = server.chat_requests
    assert "response_format" not in body
    assert body["temperature"] == 0.3 and body["model"] == "llama3.1" and body["max_tokens"] == 50
    assert llm.describe() == "openai:llama3.1"


# -- complete_json: invalid replies are retried with the reason ---------------


def test_malformed_then_valid(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat('{"city": "Lisbon", "year": ', '{"city": "Lisbon", "year": 2024}')
    llm = make_llm(server, tmp_path)
    assert llm.complete_json(ASK, Answer).year == 2024
    first, second = server.chat_requests
    assert len(second["messages"]) == len(first["messages"]) + 2
    assert second["messages"][-2] == {"role": "assistant", "content": '{"city": "Lisbon", "year": '}
    assert second["messages"][-1]["role"] == "user"
    assert "not valid JSON" in second["messages"][-1]["content"]
    assert llm.retry_policy.delays == []  # type: ignore[attr-defined]  # no backoff for content


def test_schema_invalid_then_valid(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat('{"city": "Lisbon"}', '{"city": "Lisbon", "year": "soon"}', '{"city": "Lisbon", "year": 7}')
    llm = make_llm(server, tmp_path)
    assert llm.complete_json(ASK, Answer).year == 7
    first, second, third = server.chat_requests
    assert "year" in second["messages"][-1]["content"] and "schema" in second["messages"][-1]["content"]
    # the corrective exchange is replaced, not accumulated
    assert len(third["messages"]) == len(second["messages"])
    assert third["messages"][-2]["content"] == '{"city": "Lisbon", "year": "soon"}'


def test_persistent_malformed_raises(server: FakeOpenAI, tmp_path: Path) -> None:
    server.default_chat = "I cannot do that."
    llm = make_llm(server, tmp_path, max_retries=2)
    with pytest.raises(ProviderError, match="3 attempts.*not valid JSON"):
        llm.complete_json(ASK, Answer)
    assert len(server.chat_requests) == 3


def test_truncated_reply_is_explained(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat(Reply(content='{"city": "Li', finish_reason="length"), '{"city": "Lima", "year": 1}')
    make_llm(server, tmp_path).complete_json(ASK, Answer)
    assert "token limit" in server.chat_requests[1]["messages"][-1]["content"]


# -- complete_json: transport failures -----------------------------------------


def test_429_then_success_honours_retry_after(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat(Reply(status=429, headers={"Retry-After": "0"}), '{"city": "Kyiv", "year": 2}')
    llm = make_llm(server, tmp_path, backoff_seconds=5.0)
    assert llm.complete_json(ASK, Answer).city == "Kyiv"
    assert len(server.chat_requests) == 2
    assert llm.retry_policy.delays == [0.0]  # type: ignore[attr-defined]  # Retry-After, not backoff


def test_retry_after_is_capped(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat(
        Reply(status=429, headers={"Retry-After": "3600"}),
        Reply(status=429, headers={"retry-after-ms": "20"}),
        '{"city": "Kyiv", "year": 2}',
    )
    llm = make_llm(server, tmp_path, max_backoff_seconds=0.5)
    llm.complete_json(ASK, Answer)
    assert llm.retry_policy.delays == [0.5, 0.02]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # in the past
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_500_then_success(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat(Reply(status=500), Reply(status=503), '{"city": "Baku", "year": 3}')
    llm = make_llm(server, tmp_path, backoff_seconds=0.01)
    assert llm.complete_json(ASK, Answer).city == "Baku"
    assert len(server.chat_requests) == 3
    assert llm.retry_policy.delays == [0.01, 0.02]  # type: ignore[attr-defined]  # exponential


def test_persistent_500_raises_after_all_attempts(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat(*[Reply(status=500, error_message="boom") for _ in range(10)])
    llm = make_llm(server, tmp_path, max_retries=3, backoff_seconds=0.01, max_backoff_seconds=0.03)
    with pytest.raises(ProviderError, match=r"after 4 attempts.*HTTP 500: boom"):
        llm.complete_json(ASK, Answer)
    assert len(server.chat_requests) == 4
    assert llm.retry_policy.delays == [0.01, 0.02, 0.03]  # type: ignore[attr-defined]  # capped, none after last


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_fail_at_once(server: FakeOpenAI, tmp_path: Path, status: int) -> None:
    server.script_chat(Reply(status=status, error_message="nope"), '{"city": "X", "year": 1}')
    llm = make_llm(server, tmp_path)
    with pytest.raises(ProviderError, match=f"HTTP {status}: nope.*not retried"):
        llm.complete_json(ASK, Answer)
    assert len(server.chat_requests) == 1


def test_connection_refused_is_retried_then_fails(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    llm = OpenAILanguageModel(
        OpenAILanguageModel.Options(
            base_url=f"http://127.0.0.1:{port}/v1", max_retries=2, backoff_seconds=0.001, timeout=2
        ),
        _context(tmp_path),
    )
    delays: list[float] = []
    llm.retry_policy.sleep = delays.append
    with pytest.raises(ProviderError, match="after 3 attempts.*[Cc]onnection"):
        llm.complete_json(ASK, Answer)
    assert delays == [0.001, 0.002]


def test_timeout_is_retried(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat(Reply(content='{"city": "Slow", "year": 1}', delay=1.0), '{"city": "Fast", "year": 2}')
    llm = make_llm(server, tmp_path, timeout=0.2)
    assert llm.complete_json(ASK, Answer).city == "Fast"


# -- extraction ------------------------------------------------------------------


def _request(**overrides: Any) -> ExtractionRequest:
    base: dict[str, Any] = {
        "messages": [
            Message(role="user", content="Hi! Yesterday I adopted a dog named Rex.", name="Alice"),
            Message(role="assistant", content="Congrats! I'm Max, by the way; I run on a Raspberry Pi."),
            Message(role="user", content="Que bueno. Vivo en Madrid."),
        ],
        "observed_at": datetime(2024, 5, 14, 9, 30, tzinfo=UTC),
    }
    base.update(overrides)
    return ExtractionRequest(**base)


def test_extract_maps_facts(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_chat(
        json.dumps(
            {
                "memories": [
                    {
                        "text": " Alice adopted a dog named Rex on 2024-05-13. ",
                        "categories": ["family", "Hobbies"],
                        "source_message": 0,
                        "attributed_to": "user",
                    },
                    # the model misattributes; the cited message's role wins
                    {
                        "text": "The assistant, Max, runs on a Raspberry Pi.",
                        "categories": "technology",
                        "source_message": 1,
                        "attributed_to": "user",
                    },
                    # unknown category dropped, out-of-range index dropped, attribution kept
                    {
                        "text": "Alice lives in Madrid.",
                        "categories": ["geography", "personal details"],
                        "source_message": 9,
                        "attributed_to": "user",
                        "confidence": 0.9,
                    },
                ]
            }
        )
    )
    facts = make_llm(server, tmp_path).extract(_request())
    assert [f.text for f in facts] == [
        "Alice adopted a dog named Rex on 2024-05-13.",
        "The assistant, Max, runs on a Raspberry Pi.",
        "Alice lives in Madrid.",
    ]
    assert [f.categories for f in facts] == [
        ["family", "hobbies"],
        ["technology"],
        ["personal_details"],
    ]
    assert [f.source_message for f in facts] == [0, 1, None]
    assert [f.attributed_to for f in facts] == ["user", "assistant", "user"]
    assert [f.speaker for f in facts] == ["Alice", None, None]


def test_extract_prompt_carries_policy(server: FakeOpenAI, tmp_path: Path) -> None:
    request = _request(
        custom_instructions="Record pet names verbatim.",
        includes="pets and hardware",
        excludes="anything about the weather",
        categories={"pets": "animals people keep", "hardware": "computers and devices"},
        multilingual=True,
    )
    make_llm(server, tmp_path).extract(request)
    (body,) = server.chat_requests
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "ADD only" in system and "delete" in system
    assert "Record pet names verbatim." in system
    assert "pets and hardware" in system and "anything about the weather" in system
    assert "- pets: animals people keep" in system and "- hardware: computers and devices" in system
    assert "personal_details" not in system  # request categories replace the defaults
    assert "same language as the message" in system and "Do not translate" in system
    assert "2024-05-14 (Tuesday)" in user
    assert '"message": 0' in user and '"name": "Alice"' in user and "Vivo en Madrid" in user
    assert "JSON" in system and body["response_format"] == {"type": "json_object"}


def test_extract_defaults_english_and_default_categories(server: FakeOpenAI, tmp_path: Path) -> None:
    make_llm(server, tmp_path).extract(_request())
    system = server.chat_requests[0]["messages"][0]["content"]
    assert "in English" in system and "same language as the message" not in system
    for name in ("personal_details", "professional_details", "user_preferences", "misc"):
        assert f"- {name}:" in system
    assert "Application instructions" not in system and "(exclude)" not in system


def test_extract_nothing_to_do_makes_no_request(server: FakeOpenAI, tmp_path: Path) -> None:
    llm = make_llm(server, tmp_path)
    assert llm.extract(_request(messages=[Message(role="system", content="be nice"), Message(content="  ")])) == []
    assert server.chat_requests == []


def test_extract_empty_reply_object_is_an_error(server: FakeOpenAI, tmp_path: Path) -> None:
    server.default_chat = "{}"
    with pytest.raises(ProviderError, match="memories"):
        make_llm(server, tmp_path, max_retries=1).extract(_request())
    assert len(server.chat_requests) == 2


# -- API keys ------------------------------------------------------------------------


def test_api_key_from_named_env_var(server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_OPENAI_KEY", "sk-from-env")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-variable")
    make_llm(server, tmp_path, api_key_env="TEST_OPENAI_KEY").extract(_request())
    (request,) = server.requests_to("/chat/completions")
    assert request.headers["authorization"] == "Bearer sk-from-env"


def test_api_key_from_file(server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-loses")
    key_file = tmp_path / "key.txt"
    key_file.write_text("sk-from-file\n")
    make_embedder(server, tmp_path, api_key_file=str(key_file)).embed(["x"])
    (request,) = server.requests_to("/embeddings")
    assert request.headers["authorization"] == "Bearer sk-from-file"


@pytest.mark.parametrize("content", [None, ""])
def test_unreadable_or_empty_key_file(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "key.txt"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigurationError, match="api_key_file"):
        OpenAILanguageModel(OpenAILanguageModel.Options(api_key_file=str(path)), _context(tmp_path))


def test_missing_key_without_base_url(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="MY_MISSING_KEY"):
        OpenAIEmbedder(OpenAIEmbedder.Options(api_key_env="MY_MISSING_KEY"), _context(tmp_path))


def test_missing_key_with_base_url_uses_placeholder(server: FakeOpenAI, tmp_path: Path) -> None:
    make_llm(server, tmp_path).extract(_request())
    (request,) = server.requests_to("/chat/completions")
    assert request.headers["authorization"] == "Bearer not-needed"


def test_openai_base_url_env_is_used(server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-default-var")
    embedder = OpenAIEmbedder(OpenAIEmbedder.Options(), _context(tmp_path))
    embedder.embed(["hello"])
    assert server.requests_to("/embeddings")[0].headers["authorization"] == "Bearer sk-default-var"


# -- embedder ---------------------------------------------------------------------------


TEXTS = ["the cat sat", "a dog barked loudly", "", "cats and dogs", "quantum physics"]


def test_embed_batches_and_preserves_order(server: FakeOpenAI, tmp_path: Path) -> None:
    server.shuffle_embeddings = True  # server answers in reverse index order
    embedder = make_embedder(server, tmp_path, batch_size=2)
    vectors = embedder.embed(TEXTS)
    assert [len(b["input"]) for b in server.embedding_requests] == [2, 2, 1]
    assert all(b["encoding_format"] == "float" and "dimensions" not in b for b in server.embedding_requests)
    assert server.embedding_requests[1]["input"][0] == " "  # empty text is sent as a space
    one_by_one = np.vstack([embedder.embed([t]) for t in TEXTS])
    np.testing.assert_allclose(vectors, one_by_one, atol=1e-6)
    assert not np.allclose(vectors[0], vectors[1])


def test_embed_normalizes_float32(server: FakeOpenAI, tmp_path: Path) -> None:
    vectors = make_embedder(server, tmp_path).embed(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == (5, 16)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    # the server's raw vectors are not unit length, so this was the plugin's doing
    server.script_embeddings(Reply(embeddings=[[3.0, 4.0] + [0.0] * 14]))
    (vector,) = make_embedder(server, tmp_path).embed(["x"])
    np.testing.assert_allclose(vector[:2], [0.6, 0.8], atol=1e-6)


def test_dimension_detected_once_by_probe(tmp_path: Path) -> None:
    with fake_openai_server(embedding_dim=24) as server:
        embedder = make_embedder(server, tmp_path)
        assert server.embedding_requests == []  # nothing at construction
        assert embedder.dimension == 24
        assert embedder.dimension == 24
        assert len(server.embedding_requests) == 1
        assert embedder.embed([]).shape == (0, 24)
        assert len(server.embedding_requests) == 1


def test_dimension_from_options(server: FakeOpenAI, tmp_path: Path) -> None:
    embedder = make_embedder(server, tmp_path, dimensions=8)
    assert embedder.dimension == 8 and server.embedding_requests == []
    assert embedder.embed(["hello world"]).shape == (1, 8)
    assert server.embedding_requests[0]["dimensions"] == 8


def test_dimension_mismatch_is_an_error(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_embeddings(Reply(embeddings=[[1.0, 0.0, 0.0]]))
    with pytest.raises(ProviderError, match="3-dimensional.*expected 8"):
        make_embedder(server, tmp_path, dimensions=8).embed(["x"])
    assert len(server.embedding_requests) == 1


def test_embed_prefixes_by_purpose(server: FakeOpenAI, tmp_path: Path) -> None:
    embedder = make_embedder(server, tmp_path, query_prefix="search_query: ", document_prefix="search_document: ")
    embedder.embed(["a"], purpose="query")
    embedder.embed(["b"])
    assert [b["input"] for b in server.embedding_requests] == [
        ["search_query: a"],
        ["search_document: b"],
    ]


def test_embed_retries_429_and_wrong_count(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_embeddings(Reply(status=429, headers={"Retry-After": "0"}), Reply(embeddings=[[1.0, 2.0]]))
    vectors = make_embedder(server, tmp_path).embed(["one", "two"])
    assert vectors.shape == (2, 16)
    assert len(server.embedding_requests) == 3


def test_embed_persistent_503(server: FakeOpenAI, tmp_path: Path) -> None:
    server.script_embeddings(*[Reply(status=503) for _ in range(5)])
    embedder = make_embedder(server, tmp_path, max_retries=1)
    with pytest.raises(ProviderError, match="after 2 attempts.*HTTP 503"):
        embedder.embed(["x"])
    assert len(server.embedding_requests) == 2


# -- options and registration --------------------------------------------------------------


@pytest.mark.parametrize("cls", [OpenAILanguageModel, OpenAIEmbedder])
def test_options_reject_unknown_keys(cls: Any) -> None:
    with pytest.raises(ValueError, match="api_key"):
        cls.Options(api_key="sk-secret-in-config")


def test_defaults() -> None:
    llm, emb = OpenAILanguageModel.Options(), OpenAIEmbedder.Options()
    assert (llm.model, llm.max_retries, llm.temperature, llm.json_mode) == (
        "gpt-4.1-mini",
        3,
        0.0,
        True,
    )
    assert (emb.model, emb.dimensions, emb.api_key_env) == (
        "text-embedding-3-small",
        None,
        "OPENAI_API_KEY",
    )


def test_registered_through_entry_point(server: FakeOpenAI, tmp_path: Path) -> None:
    from memorist.plugin.manager import load_plugins

    registry = ProviderRegistry.from_plugins(load_plugins(environ={"MEMORIST_PLUGINS": "openai"}))
    assert registry.get("language_model", "openai") is OpenAILanguageModel
    assert registry.get("embedder", "openai") is OpenAIEmbedder
    with pytest.raises(ConfigurationError, match="embedder.options.batch_sise: unknown option"):
        registry.build("embedder", "openai", {"batch_sise": 2}, _context(tmp_path))
    built = registry.build("embedder", "openai", {"base_url": server.base_url}, _context(tmp_path))
    assert built.describe() == "openai:text-embedding-3-small"


@pytest.mark.process  # starts another Python process
def test_plugin_imports_without_openai_installed() -> None:
    code = (
        "import sys; sys.modules['openai'] = None\n"
        "import memorist_openai\n"
        "assert memorist_openai.OpenAILanguageModel.name == 'openai'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_the_previous_adds_question_goes_in_as_context_and_an_ending_question_is_left_open(
    server: FakeOpenAI, tmp_path: Path
) -> None:
    """Clients add each exchange as it happens: "27" opens the add after the assistant's
    "How old are you?". The model sees that question as context, never as message 0."""
    llm = make_llm(server, tmp_path)
    reply = Message(role="user", content="27")
    request = _request(messages=[reply, Message(role="assistant", content="Great! And where do you live?")])
    assert llm.context_wanted(request).question and llm.context_wanted(request).recent == 0
    assert not llm.context_wanted(_request(messages=[Message(role="assistant", content="Hello!")])).question
    request.asked = Message(role="assistant", content="How old are you?")
    server.script_chat(json.dumps({"memories": [{"text": "The user is 27 years old.", "source_message": 0}]}))
    extraction = llm.extract_detailed(request)
    (body,) = server.chat_requests
    user = body["messages"][1]["content"]
    assert '{"role": "assistant", "content": "How old are you?"}' in user
    assert user.index("How old are you?") < user.index('"message": 0')  # before, and not numbered
    assert [f.text for f in extraction.facts] == ["The user is 27 years old."]
    assert extraction.open_question == Message(role="assistant", content="And where do you live?")
    # no question asked: no context line; a statement or a user's question leaves nothing open
    server.script_chat(json.dumps({"memories": []}))
    plain = llm.extract_detailed(_request(messages=[Message(role="user", content="Should I get a dog?")]))
    assert "Just before this conversation" not in server.chat_requests[1]["messages"][1]["content"]
    assert plain.open_question is None


def test_the_openai_model_offers_queries_in_the_voice_its_prompt_writes(server: FakeOpenAI, tmp_path: Path) -> None:
    """Its prompt writes memories about "the user", so a first-person question is searched about
    the user too (``LanguageModel.query_forms``), without a call to the model."""
    llm = make_llm(server, tmp_path)
    assert llm.query_forms("What do I do for work?", ["max"]) == ["What does the user do for work?"]
    assert llm.query_forms("What does max like?", ["max"]) == ["What does the user like?"]
    assert llm.query_forms("What do I do for work?", []) == []
    assert server.requests == []


# -- the supersession judge ----------------------------------------------------

MONDAY = datetime(2026, 3, 2, 9, tzinfo=UTC)
FRIDAY = datetime(2026, 3, 6, 9, tzinfo=UTC)


def _fact(text: str, *candidates: tuple[str, str]) -> FactWithCandidates:
    """A new fact of Friday with its candidates (id, text) of Monday."""
    return FactWithCandidates(
        text=text,
        observed_at=FRIDAY,
        attributed_to="user",
        candidates=tuple(
            CandidateMemory(id=i, text=t, observed_at=MONDAY, attributed_to="user") for i, t in candidates
        ),
    )


def test_the_judge_asks_once_for_every_fact_and_keeps_each_facts_own_candidates(
    server: FakeOpenAI, tmp_path: Path
) -> None:
    llm = make_llm(server, tmp_path)
    facts = [
        _fact(
            "The user moved to Porto.", ("id-lisbon", "The user lives in Lisbon."), ("id-dog", "The user has a dog.")
        ),
        _fact("The user likes jazz."),  # no candidate: not in the prompt
        _fact("The user also has a cat.", ("id-dog", "The user has a dog.")),
    ]
    seen: list[list[dict[str, Any]]] = []

    def model(asked: list[dict[str, Any]]) -> str:
        seen.append(asked)
        # fact 0 replaces the Lisbon memory (m1); fact 1 names m1, which is not its own candidate,
        # and a label it was never shown; a verdict for a fact not asked about is ignored
        verdicts = [{"fact": 0, "replaces": "m1"}, {"fact": 1, "replaces": ["m1", "m7"]}, {"fact": 5, "replaces": []}]
        return json.dumps({"verdicts": verdicts})

    server.judge = model
    assert llm.replaced_memories(facts) == [["id-lisbon"], [], []]
    (body,) = server.chat_requests
    (asked,) = seen
    assert [f["text"] for f in asked] == ["The user moved to Porto.", "The user also has a cat."]
    assert [[c["label"] for c in f["candidates"]] for f in asked] == [["m1", "m2"], ["m2"]]  # one label per memory
    assert asked[0]["observed"].startswith("2026-03-06") and asked[0]["candidates"][0]["observed"].startswith(
        "2026-03-02"
    )
    assert asked[0]["stated_by"] == "user"
    system = body["messages"][0]["content"]
    for promise in ('"also"', "someone else's", "any language", "single-valued", "says it ended", '"verdicts"'):
        assert promise in system, promise
    assert "id-lisbon" not in _text_of(body)  # the model sees labels, never ids


def test_the_judge_makes_no_call_without_candidates_or_when_turned_off(server: FakeOpenAI, tmp_path: Path) -> None:
    server.judge = lambda asked: json.dumps({"verdicts": []})
    assert make_llm(server, tmp_path).replaced_memories([_fact("The user likes jazz.")]) == [[]]
    off = make_llm(server, tmp_path, judge_supersession=False)
    assert off.replaced_memories([_fact("The user moved to Porto.", ("a", "The user lives in Lisbon."))]) is None
    assert server.requests == []


def test_a_judge_that_fails_after_the_retries_answers_none_and_is_counted(server: FakeOpenAI, tmp_path: Path) -> None:
    llm = make_llm(server, tmp_path, max_retries=2)
    server.judge = lambda asked: '{"verdict": "yes"}'  # never the schema
    fact = _fact("The user moved to Porto.", ("a", "The user lives in Lisbon."))
    assert llm.replaced_memories([fact]) is None
    assert len(server.chat_requests) == 3 and llm.judge_failures == 1
    server.judge = lambda asked: Reply(status=503)
    assert llm.replaced_memories([fact]) is None
    assert llm.judge_failures == 2
