"""MCP server recipes: the config snippets of docs/integrations/memorist-mcp.md as written, and
mem0's own MCP server (docs/integrations/mem0-mcp-server.md) against Memorist.

Each snippet's command is started by the official MCP SDK client exactly as a desktop app would
(command, args, env of the snippet; only the placeholder paths become the test's), and must answer
``initialize`` and ``tools/list`` with the memory tools.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from tests.clients.integrations.conftest import Served, forget, installed, stored  # noqa: E402

from . import envs, recipes  # noqa: E402

pytestmark = pytest.mark.integration

SNIPPET = re.compile(r'^```json title="([^"]+)"\n(.*?)^```', re.S | re.M)
PLACEHOLDER_COMMAND = "/home/me/.venvs/memorist/bin/memorist"
PLACEHOLDER_DATA = "/home/me/.memorist"


def snippets() -> list[tuple[str, dict[str, Any]]]:
    text = (recipes.DOCS / "memorist-mcp.md").read_text()
    found = [(title, json.loads(body)) for title, body in SNIPPET.findall(text)]
    assert [t for t, _ in found] == ["claude_desktop_config.json", "mcp.json", ".vscode/mcp.json"]
    return found


def tools_and_one_add(params: StdioServerParameters) -> tuple[str, set[str], dict[str, Any]]:
    """``initialize``, ``tools/list``, then one ``add_memory`` (what a desktop app's first use does)."""

    async def main() -> tuple[str, set[str], dict[str, Any]]:
        async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
            assert client.server_info is not None
            names = {t.name for t in (await client.list_tools()).tools}
            added = await client.call_tool("add_memory", {"text": "I prefer tabs over spaces.", "infer": False})
            assert not added.is_error, added.content
            return client.server_info.name, names, dict(added.structured_content or {})

    return asyncio.run(main())


@pytest.mark.parametrize("title", ["claude_desktop_config.json", "mcp.json", ".vscode/mcp.json"])
def test_memorist_mcp_snippet_starts_and_lists_tools(title: str, tmp_path: Path) -> None:
    config = dict(snippets())[title]
    entry = (config.get("mcpServers") or config["servers"])["memorist"]
    assert entry.get("type", "stdio") == "stdio"
    assert entry["command"] == PLACEHOLDER_COMMAND and PLACEHOLDER_DATA in entry["args"]
    command = str(Path(sys.executable).parent / "memorist")  # this environment's installed script
    args = [str(tmp_path / "data") if a == PLACEHOLDER_DATA else a for a in entry["args"]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    params = StdioServerParameters(command=command, args=args, env={**env, **entry.get("env", {})}, cwd=str(tmp_path))
    name, names, added = tools_and_one_add(params)
    assert name == "memorist"
    assert {"add_memory", "search_memories", "list_memories", "delete_memory"} <= names
    assert list((tmp_path / "data").iterdir())  # stored in the snippet's --data-dir, not a default location
    if "--user-id" in args:
        assert added["scope"] == {"user_id": args[args.index("--user-id") + 1]}


@pytest.mark.recipe("mem0-mcp-server")
def test_mem0_mcp_server_through_the_documented_wrapper(memorist: Served) -> None:
    base = installed("mem0-mcp-server")
    text = (recipes.DOCS / "mem0-mcp-server.md").read_text()
    ((title, body),) = SNIPPET.findall(text)
    entry = json.loads(body)["mcpServers"]["mem0"]
    assert entry["command"] == "/home/me/.venvs/mem0-mcp/bin/python"
    assert entry["env"]["MEM0_HOST"] == recipes.PLACEHOLDER
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")},
        **entry["env"],
        "MEM0_API_KEY": memorist.key,
        "MEM0_HOST": memorist.url,
        "MEM0_TELEMETRY": "false",
        "NO_PROXY": "127.0.0.1,localhost",
        "HOME": str(base / "mem0-mcp-server" / ".home"),
    }
    params = StdioServerParameters(command=str(envs.python_of(base, "mem0-mcp-server")), args=entry["args"], env=env)
    forget(memorist, "alice")

    async def main() -> tuple[set[str], str]:
        async with Client(params, mode="legacy", read_timeout_seconds=120) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            added = await client.call_tool("add_memory", {"text": "I am allergic to peanuts."})
            assert not added.is_error, added.content
            for _ in range(100):  # a v3 add is extracted in the background
                if stored(memorist, "alice"):
                    break
                await asyncio.sleep(0.2)
            found = await client.call_tool("search_memories", {"query": "What food should I avoid?"})
            assert not found.is_error, found.content
            return names, found.content[0].text  # type: ignore[union-attr]

    names, found = asyncio.run(main())
    assert {"add_memory", "search_memories", "get_memories", "delete_all_memories"} <= names
    assert any("peanut" in m for m in stored(memorist, "alice"))  # MEM0_DEFAULT_USER_ID, on Memorist
    assert "peanut" in found, found
