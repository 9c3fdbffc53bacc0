"""mem0's own open-source snippets run on ``memorist.Memory`` with only the import changed.

The snippets below are copied from mem0's documentation (``docs/open-source/python-quickstart.mdx``,
``docs/open-source/features/async-memory.mdx``) and from the README of mem0ai 2.2.1 (the version in
the ``dev`` extras). Only ``from mem0 import ...`` became ``from memorist import ...``, and the
documentation's literal memory id (``892db2ae-...``, which names a memory of the author's store)
became the id the snippet's own ``add`` returned. The default embedded stack runs them: the real
embedder, LanceDB and SQLite in a temporary directory, the offline heuristic extractor.
"""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

DOC_ID = "892db2ae-06d9-49e5-8b3e-585ef9b85b8e"


def run_snippet(source: str, namespace: dict[str, Any]) -> dict[str, Any]:
    """Execute a documentation snippet with the mem0 import swapped for memorist's."""
    code = textwrap.dedent(source).replace("from mem0 import", "from memorist import")
    code = code.replace("from mem0.memory import", "from memorist import")
    exec(compile(code, "<mem0 snippet>", "exec"), namespace)
    return namespace


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``Memory()`` uses ``./memorist-data``: run each snippet in a fresh directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_python_quickstart(in_tmp: Path) -> None:
    ns = run_snippet(
        """
        import os
        from mem0 import Memory

        os.environ["OPENAI_API_KEY"] = "your-api-key"

        m = Memory()
        """,
        {},
    )
    assert (in_tmp / "memorist-data").is_dir()
    run_snippet(
        """
        messages = [
            {"role": "user", "content": "I'm planning to watch a movie tonight. Any recommendations?"},
            {"role": "assistant", "content": "How about a thriller movies? They can be quite engaging."},
            {"role": "user", "content": "I'm not a big fan of thriller movies but I love sci-fi movies."},
            {"role": "assistant", "content": "Got it! I'll avoid thriller recommendations and suggest sci-fi movies in the future."}
        ]

        # Store inferred memories (default behavior)
        result = m.add(messages, user_id="alice", metadata={"category": "movie_recommendations"})
        """,  # noqa: E501
        ns,
    )
    result = ns["result"]
    assert result["results"], result
    for item in result["results"]:
        assert item["event"] == "ADD" and item["id"] and item["memory"]
        assert item["metadata"] == {"category": "movie_recommendations"}
    texts = " ".join(item["memory"] for item in result["results"]).lower()
    assert "sci-fi" in texts and "thriller" in texts

    run_snippet(
        """
        # Get all memories
        all_memories = m.get_all(user_id="alice")
        """,
        ns,
    )
    listed = ns["all_memories"]["results"]
    assert {item["id"] for item in listed} == {item["id"] for item in result["results"]}
    for item in listed:
        assert item["user_id"] == "alice" and item["hash"] and item["created_at"]

    memory_id = result["results"][0]["id"]
    swap = {DOC_ID: memory_id}

    def with_id(source: str) -> str:
        for old, new in swap.items():
            source = source.replace(old, new)
        return source

    run_snippet(with_id('specific_memory = m.get("892db2ae-06d9-49e5-8b3e-585ef9b85b8e")'), ns)
    assert ns["specific_memory"]["id"] == memory_id
    assert ns["specific_memory"]["memory"] == result["results"][0]["memory"]
    assert ns["specific_memory"]["metadata"] == {"category": "movie_recommendations"}

    run_snippet('related_memories = m.search(query="What do you know about me?", user_id="alice")', ns)
    related = ns["related_memories"]["results"]
    assert related and all(0.0 <= item["score"] <= 1.0 and item["user_id"] == "alice" for item in related)
    assert [item["score"] for item in related] == sorted((item["score"] for item in related), reverse=True)

    run_snippet(
        with_id(
            'result = m.update(memory_id="892db2ae-06d9-49e5-8b3e-585ef9b85b8e", '
            'data="I love India, it is my favorite country.")'
        ),
        ns,
    )
    assert ns["result"] == {"message": "Memory updated successfully!"}
    assert ns["m"].get(memory_id)["memory"] == "I love India, it is my favorite country."

    run_snippet(with_id('history = m.history(memory_id="892db2ae-06d9-49e5-8b3e-585ef9b85b8e")'), ns)
    history = ns["history"]
    assert [row["event"] for row in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == result["results"][0]["memory"]
    assert history[1]["new_memory"] == "I love India, it is my favorite country."
    assert all(row["memory_id"] == memory_id for row in history)

    run_snippet(
        with_id(
            """
            # Delete a memory by id
            m.delete(memory_id="892db2ae-06d9-49e5-8b3e-585ef9b85b8e")
            # Delete all memories for a user
            m.delete_all(user_id="alice")
            """
        ),
        ns,
    )
    assert ns["m"].get(memory_id) is None
    assert ns["m"].get_all(user_id="alice") == {"results": []}
    assert [row["event"] for row in ns["m"].history(memory_id)] == ["ADD", "UPDATE", "DELETE"]

    ns["m"].add("I collect vinyl records.", user_id="bob")
    run_snippet("m.reset() # Reset all memories", ns)
    assert ns["m"].get_all(user_id="bob") == {"results": []}


def test_readme_search_with_filters_and_top_k(in_tmp: Path) -> None:
    """mem0 2.x style from its README's chat loop: identifiers in ``filters``, ``top_k``."""
    from memorist import Memory

    memory = Memory()
    memory.add(
        [
            {"role": "user", "content": "Hi, I'm Alex. I love basketball and gaming."},
            {"role": "assistant", "content": "Hey Alex! I'll remember your interests."},
        ],
        user_id="alex",
    )
    ns = run_snippet(
        """
        relevant_memories = memory.search(query=message, filters={"user_id": user_id}, top_k=3)
        memories_str = "\\n".join(f"- {entry['memory']}" for entry in relevant_memories["results"])
        """,
        {"memory": memory, "message": "What sports does Alex like?", "user_id": "alex"},
    )
    assert 1 <= len(ns["relevant_memories"]["results"]) <= 3
    assert "basketball" in ns["memories_str"]
    assert memory.get_all(filters={"user_id": "alex"})["results"]
    assert memory.search("basketball", filters={"user_id": "nobody"}) == {"results": []}


def test_async_memory_documented_usage(in_tmp: Path) -> None:
    async def main() -> dict[str, Any]:
        ns = run_snippet(
            """
            import asyncio
            from mem0.memory import AsyncMemory

            # Initialize with default configuration
            memory = AsyncMemory()
            """,
            {},
        )
        memory = ns["memory"]
        added = await memory.add(
            messages=[
                {"role": "user", "content": "I'm travelling to SF"},
                {"role": "assistant", "content": "That's great to hear!"},
            ],
            user_id="alice",
        )
        found = await memory.search(query="Where am I travelling?", user_id="alice")
        listed = await memory.get_all(user_id="alice")
        memory_id = added["results"][0]["id"]
        one = await memory.get(memory_id=memory_id)
        await memory.update(memory_id=memory_id, data="I'm travelling to Seattle")
        history = await memory.history(memory_id=memory_id)
        await memory.delete(memory_id=memory_id)
        await memory.delete_all(user_id="alice")
        after = await memory.get_all(user_id="alice")
        return dict(added=added, found=found, listed=listed, one=one, history=history, after=after)

    out = asyncio.run(main())
    assert any("SF" in item["memory"] for item in out["added"]["results"])
    assert out["found"]["results"][0]["memory"] == out["added"]["results"][0]["memory"]
    assert out["listed"]["results"] and out["one"]["id"] == out["added"]["results"][0]["id"]
    assert [row["event"] for row in out["history"]] == ["ADD", "UPDATE"]
    assert out["history"][1]["new_memory"] == "I'm travelling to Seattle"
    assert out["after"] == {"results": []}


def test_errors_are_value_errors_like_mem0s(in_tmp: Path) -> None:
    from memorist import Memory

    m = Memory()
    with pytest.raises(ValueError, match="user_id, agent_id, run_id"):
        m.delete_all()
    with pytest.raises(ValueError, match="not found"):
        m.delete("no-such-memory")
    with pytest.raises(ValueError, match="query"):
        m.search("", user_id="alice")
    with pytest.raises(ValueError, match="one of user_id"):
        m.add("I like tea.")
    with pytest.raises(ValueError, match="update needs"):
        m.update("anything")
    assert m.get("no-such-memory") is None


def test_delete_all_wildcard_in_process(in_tmp: Path) -> None:
    """``delete_all(user_id="*")`` as mem0 documents it: every memory that has a user id; ``*`` is never an id."""
    from memorist import Memory

    m = Memory()
    m.add("Ana drinks green tea.", user_id="ana", infer=False)
    m.add("Bo drinks black coffee.", user_id="bo", infer=False)
    m.add("The helper answers briefly.", agent_id="helper", infer=False)
    assert m.delete_all(user_id="*")["deleted"] == 2
    left = m.get_all(filters={"agent_id": "helper"})["results"]
    assert [r["memory"] for r in left] == ["The helper answers briefly."]
    assert m.get_all(filters={"user_id": "ana"})["results"] == []
    with pytest.raises(ValueError, match="wildcard"):
        m.add("under a star", user_id="*", infer=False)


def test_from_config_takes_mem0_spelling(in_tmp: Path) -> None:
    from memorist import Engine, Memory

    config = {
        "vector_store": {"provider": "lancedb", "config": {"table": "mem0_style"}},
        "llm": {"provider": "heuristic", "config": {"max_chars": 200}},
        "history_db_path": str(in_tmp / "history.db"),
        "version": "v1.1",
        "custom_fact_extraction_prompt": "Keep food facts only.",
    }
    m = Memory.from_config(config)
    assert isinstance(m.engine, Engine)
    assert m.engine.settings.vector_store.options == {"table": "mem0_style"}
    assert m.engine.settings.language_model.options == {"max_chars": 200}
    assert (in_tmp / "history.db").is_file()
    assert m.add("I love ramen.", user_id="u")["results"][0]["memory"]

    with pytest.raises(ValueError, match="qdrant"):
        Memory.from_config({"vector_store": {"provider": "qdrant", "config": {"host": "localhost", "port": 6333}}})
