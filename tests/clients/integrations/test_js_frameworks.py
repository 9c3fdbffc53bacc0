"""The JavaScript frameworks' recipes (docs/integrations/vercel-ai.md, mastra.md) as written, on a real server.

The Vercel AI provider also calls a model: the OpenAI stand-in (tests/fake_openai.py) answers it,
and the test checks that the memory the recipe stored reached the model's prompt.
"""

from __future__ import annotations

import pytest

from tests.clients.integrations.conftest import Served, forget, installed, stored
from tests.fake_openai import FakeOpenAI

from . import recipes

pytestmark = pytest.mark.integration


@pytest.mark.recipe("vercel-ai")
def test_vercel_ai_provider_puts_the_users_memory_in_the_prompt(memorist: Served, llm: FakeOpenAI) -> None:
    installed("vercel-ai")
    forget(memorist, "alice")
    llm.script_chat("How about a mushroom risotto?")
    env = {"MEM0_API_KEY": memorist.key, "OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": llm.base_url}
    out = recipes.run("vercel-ai", "vercel-ai", memorist.url, env)
    assert "mushroom risotto" in out
    assert any("vegetarian" in m for m in stored(memorist, "alice"))
    prompt = llm.chat_requests[-1]["messages"]
    system = " ".join(str(m["content"]) for m in prompt if m["role"] == "system")
    assert "vegetarian" in system, prompt  # the memory, searched with the prompt, went to the model
    assert prompt[-1]["role"] == "user" and "dinner" in str(prompt[-1]["content"])


@pytest.mark.recipe("mastra")
def test_mastra_integration_stores_and_recalls(memorist: Served) -> None:
    installed("mastra")
    forget(memorist, "alice")
    out = recipes.run("mastra", "mastra", memorist.url, {"MEM0_API_KEY": memorist.key})
    # Two context strings: what createMemory stored (read from the v1.0 bare array: the
    # `memory.map is not a function` of issue 38 when the envelope came back), what search found.
    _, created, found = out.split("The MEMORIES of the USER are:")
    assert "vegetarian" in created and "vegetarian" in found, out
    assert any("vegetarian" in m for m in stored(memorist, "alice"))
