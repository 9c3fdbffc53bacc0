"""The Python agent frameworks' recipes (docs/integrations/*.md) as written, on a real server.

Each framework's model is the OpenAI stand-in (tests/fake_openai.py): the tests check what the
framework stored through Memorist and that the stored memory reached the model's prompt.
"""

from __future__ import annotations

import json

import pytest

from ..fake_openai import FakeOpenAI
from . import recipes
from .conftest import Served, forget, installed, stored

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def llm_env(memorist: Served, llm: FakeOpenAI) -> dict[str, str]:
    return {"MEM0_API_KEY": memorist.key, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": llm.base_url}


def prompt_text(request: dict) -> str:
    return json.dumps(request.get("messages", request), ensure_ascii=False)


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
