"""A store remembers which embedder's vectors it holds: another model of the same dimension
is refused (it would make every search compare unrelated vectors), the same model under
another name (its int8 copy) is not, and an empty store takes any embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist import Engine
from memorist.db.schema import kv
from memorist.engine import vector_space
from memorist.engine.vector_space import VectorSpaceMismatchError
from memorist.plugin.manager import load_plugins
from memorist.testing.inprocess import AppServer
from memorist.testing.server import ADMIN
from sqlalchemy import select

from tests.conftest import fast_settings
from tests.plugins import hashing

MINILM = {"provider": "sentence-transformers"}
HASHING_384 = {"provider": "hashing", "options": {"dimension": 384}}


def memory(data: Path, embedder: dict[str, Any]) -> Engine:
    return Engine.from_config(fast_settings(data, embedder=embedder), plugins=load_plugins({}, extra=[hashing]))


def recorded_label(engine: Engine) -> str:
    db = engine.db
    with db.connect() as conn:
        value = conn.execute(select(kv.c.value).where(kv.c.key == vector_space.KEY)).scalar()
    assert isinstance(value, dict)
    return str(value["label"])


def test_another_model_of_the_same_dimension_is_refused_and_the_store_is_untouched(tmp_path: Path) -> None:
    first = memory(tmp_path, MINILM)
    first.add("My name is Ada and I live in Lisbon.", user_id="ada")
    first.close()

    with pytest.raises(VectorSpaceMismatchError) as refused:
        memory(tmp_path, HASHING_384)
    message = str(refused.value)
    assert "sentence-transformers:all-MiniLM-L6-v2" in message and "'hashing'" in message
    assert refused.value.status == 409

    again = memory(tmp_path, MINILM)  # the refusal changed nothing
    assert recorded_label(again).startswith("sentence-transformers:all-MiniLM-L6-v2")
    hits = again.search("Where does Ada live?", user_id="ada")
    assert hits and "Lisbon" in hits[0].record.text
    again.close()


def test_the_int8_copy_of_the_model_is_the_same_space(tmp_path: Path) -> None:
    first = memory(tmp_path, MINILM)
    first.add("I adopted a beagle called Pixel last spring.", user_id="bo")
    first.close()
    quantized = memory(tmp_path, {**MINILM, "options": {"quantize": "int8"}})
    hits = quantized.search("What kind of dog do I have?", user_id="bo")
    assert hits and "beagle" in hits[0].record.text
    # The store's record still names the model that made its vectors.
    assert recorded_label(quantized) == "sentence-transformers:all-MiniLM-L6-v2 (onnx)"
    quantized.close()


def test_an_empty_store_takes_another_embedder(tmp_path: Path) -> None:
    memory(tmp_path, HASHING_384).close()  # recorded, but no memory was ever added
    switched = memory(tmp_path, MINILM)
    assert recorded_label(switched).startswith("sentence-transformers:")
    switched.add("I work as a nurse in Porto.", user_id="cy")
    switched.close()
    with pytest.raises(VectorSpaceMismatchError):
        memory(tmp_path, HASHING_384)


def test_two_processes_recording_at_once_check_against_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = memory(tmp_path, HASHING_384)
    first.add("I play the cello on Sundays.", user_id="di")
    first.close()
    # The second process read no record, then lost the race to insert one: it must compare
    # with the record the first wrote, not give up.
    reads = iter([None])
    real_read = vector_space._read
    monkeypatch.setattr(vector_space, "_read", lambda db, key=vector_space.KEY: next(reads, None) or real_read(db, key))
    with pytest.raises(VectorSpaceMismatchError):
        memory(tmp_path, MINILM)


@pytest.fixture
def served_minilm(tmp_path: Path) -> Iterator[AppServer]:
    with AppServer(tmp_path / "data", {"MEMORIST_EMBEDDER__PROVIDER": MINILM["provider"]}) as server:
        yield server


def test_configure_refuses_a_model_switch_over_memories_until_reset(served_minilm: AppServer) -> None:
    server = served_minilm
    add = {"messages": [{"role": "user", "content": "I am allergic to peanuts."}], "user_id": "ed", "infer": False}
    assert server.post("/memories", headers=ADMIN, json=add).status_code in (200, 201)

    switch = server.post("/configure", headers=ADMIN, json={"embedder": HASHING_384})
    assert switch.status_code == 409, switch.text
    detail = switch.json()["detail"]
    assert "sentence-transformers:all-MiniLM-L6-v2" in detail and "another space" in detail and "POST /reset" in detail
    # The running engine and its memories are as they were.
    assert server.get("/configure", headers=ADMIN).json()["embedder"]["provider"] == MINILM["provider"]
    found = server.post("/search", headers=ADMIN, json={"query": "What am I allergic to?", "user_id": "ed"}).json()
    assert [hit["memory"] for hit in found["results"]] == ["I am allergic to peanuts."]

    assert server.post("/reset", headers=ADMIN).status_code == 200
    switched = server.post("/configure", headers=ADMIN, json={"embedder": HASHING_384})
    assert switched.status_code == 200, switched.text
    assert server.post("/memories", headers=ADMIN, json=add).status_code in (200, 201)
    found = server.post("/search", headers=ADMIN, json={"query": "peanuts", "user_id": "ed"}).json()
    assert [hit["memory"] for hit in found["results"]] == ["I am allergic to peanuts."]


def test_memorist_worker_on_a_store_of_another_model_stops_with_the_reason(tmp_path: Path) -> None:
    from click.testing import CliRunner
    from memorist.cli import cli

    filled = memory(tmp_path, MINILM)
    filled.add("I teach chemistry at a high school.", user_id="gus")
    filled.close()
    env = {
        "MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing",
        "MEMORIST_EMBEDDER__PROVIDER": "hashing",
        "MEMORIST_EMBEDDER__OPTIONS__DIMENSION": "384",
    }
    result = CliRunner().invoke(cli, ["worker", "--data-dir", str(tmp_path)], env=env)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.output.startswith("error: embedder: the store holds vectors made by 'sentence-transformers:")


def test_configure_refuses_a_store_switch_that_would_hide_the_memories(tmp_path: Path) -> None:
    add = {"messages": [{"role": "user", "content": "I am allergic to peanuts."}], "user_id": "ed", "infer": False}
    other_table = {"vector_store": {"provider": "lancedb", "options": {"table": "other"}}}
    with AppServer(tmp_path / "data") as server:
        assert server.post("/memories", headers=ADMIN, json=add).status_code in (200, 201)
        switch = server.post("/configure", headers=ADMIN, json=other_table)
        assert switch.status_code == 409, switch.text
        assert "the memories are in the current store" in switch.json()["detail"]
        listed = server.get("/memories", headers=ADMIN, params={"user_id": "ed"}).json()
        assert [m["memory"] for m in listed["results"]] == ["I am allergic to peanuts."]

        # A store that already holds memories (filled by another process) may be switched to.
        filled = Engine.from_config(
            fast_settings(tmp_path / "data", **other_table), plugins=load_plugins({}, extra=[hashing])
        )
        filled.add("I keep bees on the roof.", user_id="ed", infer=False)
        filled.close()
        assert server.post("/configure", headers=ADMIN, json=other_table).status_code == 200
        listed = server.get("/memories", headers=ADMIN, params={"user_id": "ed"}).json()
        assert [m["memory"] for m in listed["results"]] == ["I keep bees on the roof."]


def test_a_node_of_a_postgresql_fleet_with_another_model_does_not_start(tmp_path: Path, pg_fresh_url: str) -> None:
    """The record lives in the shared database (a JSON value on PostgreSQL): a second node
    configured with another model of the same dimension is refused, one with the same model starts."""

    def node(name: str, embedder: dict[str, Any]) -> Engine:
        settings = fast_settings(
            tmp_path / name, embedder=embedder, database={"url": pg_fresh_url}, vector_store={"provider": "pgvector"}
        )
        return Engine.from_config(settings, plugins=load_plugins({}, extra=[hashing]))

    first = node("a", MINILM)
    try:
        first.add("I keep bees on the roof.", user_id="fay")
        with pytest.raises(VectorSpaceMismatchError):
            node("b", HASHING_384)
        same = node("c", MINILM)
        assert "bees" in same.search("What insects do I keep?", user_id="fay")[0].record.text
        same.close()
    finally:
        first.close()
