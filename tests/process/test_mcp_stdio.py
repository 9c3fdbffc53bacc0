"""``memorist mcp`` as a desktop client runs it: a spawned process spoken to over stdio.

The official client SDK launches the command, performs the ``initialize``
handshake, lists tools, adds and searches; a second process started for
another user on the same data directory sees nothing of the first.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from tests.conftest import ROOT  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def params(data_dir: Path, *args: str) -> StdioServerParameters:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")},
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "framework"), str(ROOT / "plugins")]),
        "MEMORIST_PLUGIN_MODULES": "tests.plugins.hashing",
        "MEMORIST_EMBEDDER__PROVIDER": "hashing",
        "HF_HUB_OFFLINE": "1",
    }
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "memorist.cli", "mcp", "--data-dir", str(data_dir), *args],
        env=env,
        cwd=str(ROOT),
    )


def run(server: StdioServerParameters, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        async with Client(server, mode="legacy", read_timeout_seconds=120) as client:
            return await body(client)

    return asyncio.run(main())


def test_stdio_initialize_list_add_search_and_scope(tmp_path: Path) -> None:
    data = tmp_path / "data"

    async def alice(client: Client) -> str:
        assert client.server_info is not None and client.server_info.name == "memorist"
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"add_memory", "search_memories", "list_entities"} <= names
        added = await client.call_tool("add_memory", {"text": "I am allergic to peanuts."})
        assert not added.is_error, added.content
        assert added.structured_content["scope"] == {"user_id": "alice"}
        found = await client.call_tool("search_memories", {"query": "peanuts allergic"})
        results = found.structured_content["results"]
        assert len(results) == 1 and "peanuts" in results[0]["memory"]
        refused = await client.call_tool("search_memories", {"query": "peanuts", "user_id": "bob"})
        assert refused.is_error and "confined to user_id='alice'" in refused.content[0].text  # type: ignore[union-attr]
        bad = await client.call_tool("search_memories", {"query": "peanuts", "top_k": "many"})
        assert bad.is_error and "top_k" in bad.content[0].text  # type: ignore[union-attr]
        return str(results[0]["id"])

    memory_id = run(params(data, "--user-id", "alice"), alice)

    async def bob(client: Client) -> None:
        found = await client.call_tool("search_memories", {"query": "peanuts allergic"})
        assert found.structured_content["results"] == []
        got = await client.call_tool("get_memory", {"memory_id": memory_id})
        assert got.is_error and "not found" in got.content[0].text  # type: ignore[union-attr]
        listed = await client.call_tool("list_memories", {})
        assert listed.structured_content["total"] == 0

    run(params(data, "--user-id", "bob"), bob)

    async def reader(client: Client) -> None:
        found = await client.call_tool("search_memories", {"query": "peanuts allergic"})
        assert len(found.structured_content["results"]) == 1
        refused = await client.call_tool("delete_memory", {"memory_id": memory_id})
        assert refused.is_error and "read-only" in refused.content[0].text  # type: ignore[union-attr]

    run(params(data, "--user-id", "alice", "--read-only"), reader)


def test_bad_config_is_one_line_not_a_handshake(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("language_model:\n  provider: nosuch\n")
    server = params(tmp_path / "data", "--config", str(bad))
    proc = subprocess.run(
        [server.command, *server.args],
        env=server.env,
        cwd=server.cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""  # nothing on the protocol channel
    assert "error: language_model" in proc.stderr and "nosuch" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_sdk_is_a_one_line_hint(tmp_path: Path) -> None:
    server = params(tmp_path / "data")
    code = "import sys; sys.modules['mcp'] = None; from memorist.cli import main; main(['mcp'])"
    proc = subprocess.run(
        [server.command, "-c", code],
        env=server.env,
        cwd=server.cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: the MCP server needs the 'mcp' package: pip install 'memorist[mcp]'"


def test_default_data_dir_is_per_user_not_the_working_directory(tmp_path: Path) -> None:
    server = params(tmp_path / "unused", "--user-id", "alice")
    server = server.model_copy(
        update={
            "args": [a for a in server.args if a not in ("--data-dir", str(tmp_path / "unused"))],
            "env": {**(server.env or {}), "XDG_DATA_HOME": str(tmp_path / "xdg")},
            "cwd": str(tmp_path),
        }
    )

    async def body(client: Client) -> None:
        added = await client.call_tool("add_memory", {"text": "I play the cello.", "infer": False})
        assert not added.is_error, added.content

    run(server, body)
    assert any((tmp_path / "xdg" / "memorist").iterdir())
    assert not (tmp_path / "memorist-data").exists()
