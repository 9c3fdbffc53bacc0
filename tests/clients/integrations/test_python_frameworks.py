"""The Python agent frameworks' recipes (docs/integrations/*.md) as written, on a real server.

Each framework's model is the OpenAI stand-in (tests/fake_openai.py): the tests check what the
framework stored through Memorist and that the stored memory reached the model's prompt.
"""

from __future__ import annotations

import json

import pytest

from tests.clients.integrations.conftest import Served, forget, installed, stored
from tests.fake_openai import FakeOpenAI, Reply

from . import recipes

pytestmark = pytest.mark.integration


def llm_env(memorist: Served, llm: FakeOpenAI) -> dict[str, str]:
    return {"MEM0_API_KEY": memorist.key, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": llm.base_url}


def prompt_text(request: dict) -> str:
    return json.dumps(request.get("messages", request), ensure_ascii=False)


@pytest.mark.recipe("agent-framework")
def test_agent_framework_context_provider(memorist: Served, llm: FakeOpenAI) -> None:
    installed("agent-framework")
    forget(memorist, "alice")
    seen = len(llm.chat_requests)
    llm.script_chat("Noted: vegetarian, Lisbon.", "How about a mushroom risotto?")
    out = recipes.run("agent-framework", "agent-framework", memorist.url, llm_env(memorist, llm))
    assert "mushroom risotto" in out, out
    assert any("vegetarian" in m for m in stored(memorist, "alice"))  # after_run stored the turn
    requests = llm.chat_requests[seen:]
    assert len(requests) == 2, requests
    assert "vegetarian" not in prompt_text(requests[0]).split("I am vegetarian")[0]  # nothing known yet
    assert "Memories" in prompt_text(requests[1]) and "vegetarian" in prompt_text(requests[1])


def tool_call(name: str, arguments: dict) -> Reply:
    """A chat completion whose answer is one call of the tool ``name`` (what a model would send)."""
    return Reply(
        body={
            "id": f"chatcmpl-tool-{name}",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": f"call_{name}",
                                "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


def tool_results(requests: list[dict]) -> list[str]:
    return [str(m["content"]) for r in requests for m in r["messages"] if m["role"] == "tool"]


@pytest.mark.recipe("openai-agents")
def test_openai_agents_sdk_memory_tools(memorist: Served, llm: FakeOpenAI) -> None:
    installed("openai-agents")
    forget(memorist, "alice")
    seen = len(llm.chat_requests)
    llm.script_chat(
        tool_call("save_memory", {"fact": "Alice is vegetarian and lives in Lisbon."}),
        "Noted.",
        tool_call("search_memory", {"query": "diet"}),
        "How about a mushroom risotto?",
    )
    env = {**llm_env(memorist, llm), "OPENAI_AGENTS_DISABLE_TRACING": "1"}
    out = recipes.run("openai-agents", "openai-agents", memorist.url, env)
    assert out.split() == ["Noted.", "How", "about", "a", "mushroom", "risotto?"], out
    assert stored(memorist, "alice") == ["Alice is vegetarian and lives in Lisbon."]
    results = tool_results(llm.chat_requests[seen:])
    assert results[0] == "saved"
    assert "Alice is vegetarian and lives in Lisbon." in results[-1]  # search_memory read it from Memorist


@pytest.mark.recipe("langgraph")
def test_langgraph_node_searches_before_and_adds_after(memorist: Served, llm: FakeOpenAI) -> None:
    installed("langgraph")
    forget(memorist, "alice")
    seen = len(llm.chat_requests)
    llm.script_chat("Noted: vegetarian, Lisbon.", "How about a mushroom risotto?")
    out = recipes.run("langgraph", "langgraph", memorist.url, llm_env(memorist, llm))
    assert out.splitlines() == ["Noted: vegetarian, Lisbon.", "How about a mushroom risotto?"], out
    assert any("vegetarian" in m for m in stored(memorist, "alice"))
    first, second = llm.chat_requests[seen:]
    system = [m["content"] for m in second["messages"] if m["role"] == "system"]
    assert "vegetarian" in system[0], second  # the memory the first turn stored reached the model
    assert "vegetarian" not in [m["content"] for m in first["messages"] if m["role"] == "system"][0]


@pytest.mark.recipe("llamaindex")
def test_llamaindex_memory_puts_and_recalls_in_a_new_session(memorist: Served) -> None:
    installed("llamaindex")
    forget(memorist, "alice")
    out = recipes.run("llamaindex", "llamaindex", memorist.url, {"MEM0_API_KEY": memorist.key})
    assert any("vegetarian" in m for m in stored(memorist, "alice"))  # put() added it through Memorist
    assert "vegetarian" in out, out  # get() found it for a question sharing no word with it


@pytest.mark.recipe("crewai")
def test_crewai_agent_memory_tools(memorist: Served, llm: FakeOpenAI) -> None:
    installed("crewai")
    forget(memorist, "alice")
    seen = len(llm.chat_requests)
    llm.script_chat(
        tool_call("save_memory", {"fact": "Alice is vegetarian and lives in Lisbon."}),
        "Noted.",
        tool_call("search_memory", {"query": "diet"}),
        "How about a mushroom risotto?",
    )
    env = {**llm_env(memorist, llm), "CREWAI_DISABLE_TELEMETRY": "true", "OTEL_SDK_DISABLED": "true"}
    out = recipes.run("crewai", "crewai", memorist.url, env)
    assert "mushroom risotto" in out, out
    assert stored(memorist, "alice") == ["Alice is vegetarian and lives in Lisbon."]
    results = tool_results(llm.chat_requests[seen:])
    assert "Alice is vegetarian and lives in Lisbon." in results[-1], results  # read back from Memorist
