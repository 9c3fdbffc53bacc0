"""``memorist import`` and ``Memory.add_many`` (issue 17, bulk import doors).

The command runs in process through click's runner (and once under a real
terminal, for the progress bar) on the hashing embedder; what it stored is read
back with the typed engine. The LoCoMo fixture is trimmed at test time from
``../shared/data/locomo`` (the data is never copied into the repository); a
synthetic conversation in the same format stands in where that data is absent.
"""

from __future__ import annotations

import asyncio
import importlib.util
import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner, Result
from memorist import Engine
from memorist.bulk.import_command import progress
from memorist.cli import cli
from memorist.python.memory import AsyncMemory
from memorist.python.memory import Memory as Facade
from memorist.testing.server import code_path

ROOT = Path(__file__).resolve().parents[3]
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "conv-26.json"
HASHING = {"MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing", "MEMORIST_EMBEDDER__PROVIDER": "hashing"}


@pytest.fixture(autouse=True)
def hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in HASHING.items():
        monkeypatch.setenv(key, value)


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["import", *args], input=input, catch_exceptions=False)


def engine(data: Path) -> Engine:
    return Engine.from_config({"data_dir": str(data)})


def stored(data: Path, user: str) -> list[tuple[str, Any, str | None]]:
    """(text, dia_id, observed_at) of every memory of ``user``, sorted."""
    memory = engine(data)
    try:
        records = memory.list(user_id=user, page_size=1000).records
        return sorted((r.text, r.metadata.get("dia_id"), r.observed_at and r.observed_at.isoformat()) for r in records)
    finally:
        memory.close()


def locomo_fixture(tmp: Path) -> Path:
    """Two sessions of a LoCoMo conversation, a few turns each (``--limit``-style trimming)."""
    if LOCOMO.exists():
        full = json.loads(LOCOMO.read_text())
        data = {k: full[k] for k in ("speaker_a", "speaker_b", "session_1_date_time", "session_2_date_time")}
        data["session_1"], data["session_2"] = full["session_1"][:8], full["session_2"][:6]
    else:
        data = {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat called Smoke last week."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "I started learning the violin in March."},
                {"speaker": "Ann", "dia_id": "D1:3", "text": "Look at this!", "blip_caption": "a photo of a cat"},
            ],
            "session_2_date_time": "10:37 am on 27 June, 2023",
            "session_2": [{"speaker": "Bo", "dia_id": "D2:1", "text": "I moved to Oslo for a new job at a bank."}],
        }
    path = tmp / "conv-mini.json"
    path.write_text(json.dumps(data))
    return path


def load_benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("locomo_benchmark", ROOT / "benchmarks" / "locomo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_locomo_import_stores_what_the_benchmark_stores(tmp_path: Path) -> None:
    fixture = locomo_fixture(tmp_path)
    result = run("--data-dir", str(tmp_path / "imported"), "--batch-size", "5", str(fixture))
    assert result.exit_code == 0, result.output
    assert "imported " in result.stdout and "turns/s" in result.stdout
    # The benchmark's own ingest loop, one add per turn, into another store.
    bench = load_benchmark()
    from dateutil import parser as date_parser

    memory = engine(tmp_path / "bench")
    try:
        for turn, when in bench.turns_of(json.loads(fixture.read_text())):
            memory.add(
                [{"role": "user", "content": bench.turn_text(turn), "name": turn["speaker"]}],
                user_id="conv-mini",
                metadata={"dia_id": turn["dia_id"]},
                timestamp=date_parser.parse(when, fuzzy=True) if when else None,
            )
    finally:
        memory.close()
    imported = stored(tmp_path / "imported", "conv-mini")
    assert imported and imported == stored(tmp_path / "bench", "conv-mini")
    assert all(dia and dia.startswith("D") and observed for _, dia, observed in imported)


def test_jsonl_lines_and_stdin(tmp_path: Path) -> None:
    lines = [
        {"text": "I grow tomatoes on my balcony.", "user_id": "jl", "metadata": {"src": "a"}, "infer": False},
        {"messages": [{"role": "user", "content": "My brother lives in Kyoto."}], "user_id": "jl", "infer": False},
        {"messages": "I am allergic to peanuts.", "agent_id": "helper", "timestamp": "2024-03-01T10:00:00Z"},
    ]
    path = tmp_path / "adds.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n")
    data = tmp_path / "data"
    result = run("--data-dir", str(data), str(path))
    assert result.exit_code == 0, result.output
    assert "imported 3 adds from 1 file" in result.stdout and "3 memories stored" in result.stdout
    memory = engine(data)
    try:
        texts = sorted(r.text for r in memory.list(user_id="jl").records)
        assert texts == ["I grow tomatoes on my balcony.", "My brother lives in Kyoto."]
        assert memory.list(user_id="jl", filters={"metadata.src": "a"}).total == 1
        (agent,) = memory.list(agent_id="helper").records
        assert agent.observed_at is not None and agent.observed_at.isoformat().startswith("2024-03-01T10:00")
    finally:
        memory.close()
    piped = run("--data-dir", str(tmp_path / "piped"), "-", input=json.dumps(lines[0]) + "\n")
    assert piped.exit_code == 0 and "1 memories stored" in piped.stdout, piped.output


@pytest.mark.parametrize("batch_size", [10, 2])
def test_a_correction_on_a_later_line_resolves_as_in_one_add_after_another(tmp_path: Path, batch_size: int) -> None:
    """A chat imported one turn per line: "Actually, make that $4000" restates the budget two
    lines up, in the same batch (10) or the batch before (2), as the same adds one after
    another do; another user's budget between them is left alone."""
    lines = [
        {"messages": "I don't eat meat, and my budget is about $3000.", "user_id": "sam"},
        {"messages": "My budget is $50 a week.", "user_id": "lee"},
        {"messages": "Actually, make that $4000, my partner is joining.", "user_id": "sam"},
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run("--data-dir", str(tmp_path / "bulk"), "--batch-size", str(batch_size), str(path))
    assert result.exit_code == 0, result.output
    memory = engine(tmp_path / "one")
    try:
        for line in lines:
            memory.add(line["messages"], user_id=line["user_id"])
    finally:
        memory.close()
    for user in ("sam", "lee"):
        assert [t for t, _, _ in stored(tmp_path / "bulk", user)] == [t for t, _, _ in stored(tmp_path / "one", user)]
    assert [t for t, _, _ in stored(tmp_path / "bulk", "sam")] == [
        "The user doesn't eat meat.",  # one memory per fact
        "The user's budget is about $3000.",
        "The user's budget is about $4000.",
        "The user's partner is joining.",
    ]


def test_a_bad_line_stops_with_its_line_number_and_nothing_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    good = json.dumps({"text": "I play chess on Sundays.", "user_id": "bad-line", "infer": False})
    path.write_text("\n".join([good, "{not json", json.dumps({"text": "No owner."}), good.replace("chess", "go")]))
    data = tmp_path / "data"
    result = run("--data-dir", str(data), str(path))
    assert result.exit_code == 2
    assert f"error: {path}:2: not JSON" in result.stderr and "--skip-invalid" in result.stderr
    no_scope = tmp_path / "scope.jsonl"
    no_scope.write_text(good + "\n" + json.dumps({"text": "No owner.", "timestamp": "soon"}) + "\n")
    result = run("--data-dir", str(data), str(no_scope))
    assert result.exit_code == 2 and f"error: {no_scope}:2: user_id: " in result.stderr, result.stderr
    assert stored(data, "bad-line") == []
    skipping = run("--data-dir", str(data), "--skip-invalid", str(path))
    assert skipping.exit_code == 0, skipping.output
    assert "2 memories stored" in skipping.stdout and "2 invalid lines left out" in skipping.stdout
    assert f"skipped invalid: {path}:2: not JSON" in skipping.stderr
    assert f"skipped invalid: {path}:3: user_id: " in skipping.stderr
    assert [text for text, _, _ in stored(data, "bad-line")] == ["I play chess on Sundays.", "I play go on Sundays."]


def test_a_rerun_of_an_interrupted_import_stores_nothing_twice(tmp_path: Path) -> None:
    fixture = locomo_fixture(tmp_path)
    full = json.loads(fixture.read_text())
    interrupted = dict(full, session_2=[])  # the import stopped after the first session
    part = tmp_path / "part" / "conv-mini.json"
    part.parent.mkdir()
    part.write_text(json.dumps(interrupted))
    data = tmp_path / "data"
    assert run("--data-dir", str(data), str(part)).exit_code == 0
    first = stored(data, "conv-mini")
    rerun = run("--data-dir", str(data), str(fixture))
    assert rerun.exit_code == 0, rerun.output
    assert run("--data-dir", str(tmp_path / "fresh"), str(fixture)).exit_code == 0
    assert stored(data, "conv-mini") == stored(tmp_path / "fresh", "conv-mini")
    assert set(first) < set(stored(data, "conv-mini"))
    again = run("--data-dir", str(data), str(fixture))
    assert " 0 memories stored" in again.stdout and " 0 merged" not in again.stdout, again.stdout


def on_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run the command with stderr on a real (pseudo) terminal; its exit status and what it drew there."""
    primary, replica = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "memorist.cli", *args], stderr=replica, stdout=subprocess.PIPE, env=env, timeout=120
        )
    finally:
        os.close(replica)
    chunks = []
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal's other end is closed: all read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    return proc.returncode, b"".join(chunks).decode(errors="replace")


@pytest.mark.process  # starts another Python process
def test_no_progress_bar_without_a_terminal_and_one_with(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps({"text": f"Fact {i} about owls.", "user_id": "bar"}) for i in range(5)))
    piped = run("--data-dir", str(tmp_path / "a"), str(path))
    assert piped.exit_code == 0 and piped.stderr == "", piped.stderr
    env = {**os.environ, **HASHING, "PYTHONPATH": code_path(), "MEMORIST_DATA_DIR": str(tmp_path / "b")}
    status, drawn = on_terminal(["import", str(path)], env)
    assert status == 0 and "importing" in drawn and "5/5" in drawn, drawn


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_quiet_turns_the_bar_off_on_a_terminal(monkeypatch: pytest.MonkeyPatch, quiet: bool) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress(3, quiet) as advance:
        advance(3)
    assert ("importing" in terminal.getvalue()) is not quiet


def test_facade_add_many(tmp_path: Path) -> None:
    with Facade({"data_dir": str(tmp_path / "f")}) as memory:
        answers = memory.add_many(
            [
                {"messages": "I ride a red bicycle to work.", "user_id": "fa", "infer": False},
                {"messages": [{"role": "user", "content": "I speak Finnish."}], "user_id": "fb", "infer": False},
                {"messages": "I ride a red bicycle to work.", "user_id": "fa", "infer": False},
            ]
        )
        assert [len(a["results"]) for a in answers] == [1, 1, 0]
        assert answers[0]["results"][0]["memory"] == "I ride a red bicycle to work."
        assert answers[0]["results"][0]["user_id"] == "fa" and answers[0]["results"][0]["event"] == "ADD"
        assert answers[2]["merged"][0]["memory_id"] == answers[0]["results"][0]["id"]
        assert answers[1].keys() == memory.add("I speak Finnish too.", user_id="fb", infer=False).keys()
        with pytest.raises(ValueError, match=r"^items\[1\]\.user_id: "):
            memory.add_many([{"messages": "Owned.", "user_id": "fc"}, {"messages": "Nobody's."}])
        assert memory.get_all(user_id="fc")["results"] == []
        with pytest.raises(TypeError, match=r"items\[0\]: .*'colour'"):
            memory.add_many([{"messages": "x", "user_id": "fc", "colour": "red"}])


def test_async_facade_add_many(tmp_path: Path) -> None:
    async def main() -> list[dict[str, Any]]:
        async with AsyncMemory({"data_dir": str(tmp_path / "async")}) as memory:
            answers = await memory.add_many(
                iter([{"messages": "I brew my own cider.", "user_id": "as", "infer": False}] * 2)
            )
            assert (await memory.get_all(user_id="as"))["results"][0]["memory"] == "I brew my own cider."
            return answers

    first, second = asyncio.run(main())
    assert len(first["results"]) == 1 and second["merged"][0]["memory_id"] == first["results"][0]["id"]


def test_reading_locomo_samples_and_jsonl_by_content() -> None:
    from memorist.bulk.importer import BadLine, Item, read_items

    turn = {"speaker": "Ann", "dia_id": "D1:1", "text": "I keep two goats."}
    sample = {"sample_id": "conv-7", "conversation": {"session_1": [turn], "session_1_date_time": "8 May, 2023"}}
    (one,) = read_items(json.dumps([sample]), "locomo10.json")
    assert isinstance(one, Item) and one.add.ids.user_id == "conv-7" and one.where == "locomo10.json[0]:D1:1"
    assert one.add.messages == [{"role": "user", "content": "I keep two goats.", "name": "Ann"}]
    assert one.add.metadata == {"dia_id": "D1:1"} and str(one.add.timestamp).startswith("2023-05-08")
    # A one-line JSON object that is no conversation is a JSONL add, whatever the file's name.
    (line,) = read_items(json.dumps({"text": "I swim.", "user_id": "u"}), "adds.json")
    assert isinstance(line, Item) and line.where == "adds.json:1"
    bad_turn = {"session_1": [{"dia_id": "D1:1"}, turn], "session_1_date_time": "soonish"}
    found = list(read_items(json.dumps(bad_turn), "conv.json"))
    assert [str(f) for f in found if isinstance(f, BadLine)] == [
        "conv.json:D1:1: a turn needs 'text' (a string)",
        "conv.json:D1:1: session date 'soonish' is not a date",
    ]
    typo = list(read_items('{"txt": "x", "user_id": "u"}\n', "t.jsonl"))
    assert isinstance(typo[0], BadLine) and str(typo[0]).startswith("t.jsonl:1: messages: required")
    unknown = list(read_items('{"text": "x", "user": "u"}\n', "t.jsonl"))
    assert str(unknown[0]).startswith("t.jsonl:1: user: unknown field")


def test_no_infer_stores_each_turn_verbatim(tmp_path: Path) -> None:
    fixture = locomo_fixture(tmp_path)
    bench = load_benchmark()
    turns = bench.turns_of(json.loads(fixture.read_text()))
    result = run("--data-dir", str(tmp_path / "verbatim"), "--no-infer", str(fixture))
    assert result.exit_code == 0, result.output
    texts = sorted(text for text, _, _ in stored(tmp_path / "verbatim", "conv-mini"))
    assert texts == sorted({bench.turn_text(turn) for turn, _ in turns})  # a repeated turn is merged, once


def test_a_long_list_is_stored_in_chunks_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memorist.operations import batch

    monkeypatch.setattr(batch, "CHUNK", 2)
    with Facade({"data_dir": str(tmp_path / "chunks")}) as memory:
        calls: list[int] = []
        real = memory.engine.add_many
        monkeypatch.setattr(memory.engine, "add_many", lambda requests: calls.append(len(requests)) or real(requests))
        # The repeat is of the current count: a count told again after a newer one replaced it
        # ("one" after "four") is current again, stored anew rather than merged.
        texts = [f"I own {n} kayaks." for n in ("one", "two", "three", "four")] + ["I own four kayaks."]
        answers = memory.add_many([{"messages": t, "user_id": "ch", "infer": False} for t in texts])
        assert calls == [2, 2, 1]
        assert [a["results"][0]["memory"] for a in answers[:4]] == texts[:4]
        assert answers[4]["merged"][0]["memory_id"] == answers[3]["results"][0]["id"]  # across a chunk boundary
