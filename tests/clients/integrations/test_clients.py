"""The mem0 clients' recipes (docs/integrations/mem0ai-python.md, mem0ai-js.md) as written, on a real server.

Each runs the page's code in the published package's own environment against Memorist on a loopback
socket; the test then checks, on the server, that what the recipe printed is what was stored for
the recipe's user in the key's project.
"""

from __future__ import annotations

import pytest

from tests.clients.integrations.conftest import Served, forget, installed, stored

from . import recipes

pytestmark = pytest.mark.integration

FACT = "I am vegetarian and I live in Lisbon."


@pytest.mark.parametrize(
    ("page", "integration"),
    [pytest.param(name, name, marks=pytest.mark.recipe(name)) for name in ("mem0ai-python", "mem0ai-js")],
)
def test_client_recipe_adds_and_finds_a_memory(memorist: Served, page: str, integration: str) -> None:
    installed(integration)
    forget(memorist, "alice")  # the recipes share their user; each starts from none
    out = recipes.run(page, integration, memorist.url, {"MEM0_API_KEY": memorist.key})
    after = stored(memorist, "alice")
    assert after, f"the recipe stored nothing: {out}"
    printed = [line for line in out.splitlines() if line.strip()]
    assert any("Lisbon" in line or "vegetarian" in line for line in printed), out
    assert all(line in after for line in printed if "memories" not in line), (printed, after)
