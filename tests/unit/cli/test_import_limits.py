"""``memorist import`` admits every line under the operator's limits (issue 40, item 3).

The import is the operator's bulk tool: it runs with the ``limits`` settings the
kernel gives every in-process door (``memorist.kernel.core.in_process_operations``),
so a line past one add's size is a bad line naming the line and the limit (the
import stops before storing anything, or ``--skip-invalid`` leaves the line out and
keeps the rest), while the caps that bound one HTTP request (a batch's items) do not
apply to a file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from memorist import Engine
from memorist.cli import cli

HASHING = {"MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing", "MEMORIST_EMBEDDER__PROVIDER": "hashing"}


@pytest.fixture(autouse=True)
def hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in HASHING.items():
        monkeypatch.setenv(key, value)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["import", *args], catch_exceptions=False)


def stored(data: Path, user: str) -> list[str]:
    engine = Engine.from_config({"data_dir": str(data)})
    try:
        return sorted(r.text for r in engine.list(user_id=user, page_size=1000).records)
    finally:
        engine.close()


def write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_line_past_the_add_limit_is_named_with_the_limit_and_skipped_on_request(tmp_path: Path) -> None:
    """The default ``limits.max_add_chars`` (250,000): a 306,000-character line is refused by
    number, naming the limit; nothing is stored, and ``--skip-invalid`` keeps the other lines."""
    path = write(
        tmp_path / "notes.jsonl",
        [
            {"text": "Ich wohne seit März in Leipzig.", "user_id": "lena", "infer": False},
            {"text": "The heron waits by the reeds. " * 10_200, "user_id": "lena", "infer": False},
            {"text": "私は毎朝お茶を飲みます。", "user_id": "lena", "infer": False},
        ],
    )
    data = tmp_path / "data"
    stopped = run("--data-dir", str(data), str(path))
    assert stopped.exit_code == 2, stopped.output
    assert f"{path}:2: messages: 306000 characters of content in one add" in stopped.stderr
    assert "the limit is 250000 (limits.max_add_chars)" in stopped.stderr
    assert "nothing was imported" in stopped.stderr
    assert stored(data, "lena") == []
    skipping = run("--data-dir", str(data), "--skip-invalid", str(path))
    assert skipping.exit_code == 0, skipping.output
    assert "2 memories stored" in skipping.stdout and "1 invalid lines left out" in skipping.stdout
    assert f"skipped invalid: {path}:2: messages: 306000 characters" in skipping.stderr
    assert stored(data, "lena") == ["Ich wohne seit März in Leipzig.", "私は毎朝お茶を飲みます。"]


def test_the_operators_limits_are_the_ones_applied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The limits come from the settings (here the environment), not from a constant of the import:
    lowered, they refuse smaller lines, by characters and by messages."""
    monkeypatch.setenv("MEMORIST_LIMITS__MAX_ADD_CHARS", "40")
    monkeypatch.setenv("MEMORIST_LIMITS__MAX_ADD_MESSAGES", "2")
    turns = [{"role": "user", "content": "Hola."}, {"role": "assistant", "content": "¿Qué tal?"}]
    path = write(
        tmp_path / "mixed.jsonl",
        [
            {"text": "Je bois du thé.", "user_id": "zoé", "infer": False},
            {"text": "Je préfère le thé vert le matin et le café noir après.", "user_id": "zoé", "infer": False},
            {"messages": [*turns, {"role": "user", "content": "Bien."}], "user_id": "zoé", "infer": False},
            {"messages": turns, "user_id": "zoé", "infer": False},
        ],
    )
    data = tmp_path / "data"
    result = run("--data-dir", str(data), "--skip-invalid", str(path))
    assert result.exit_code == 0, result.output
    assert f"{path}:2: messages: 54 characters of content in one add; the limit is 40 (limits.max_add_chars)" in (
        result.stderr
    )
    assert f"{path}:3: messages: 3 messages in one add; the limit is 2 (limits.max_add_messages)" in result.stderr
    assert "2 invalid lines left out" in result.stdout
    assert len(stored(data, "zoé")) == 3  # line 1, and line 4's two turns


def test_a_requests_batch_caps_do_not_bound_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``limits.max_batch_items`` bounds one HTTP batch; an import of more lines per batch still
    stores them all (each line is one add, held to one add's limits)."""
    monkeypatch.setenv("MEMORIST_LIMITS__MAX_BATCH_ITEMS", "2")
    rows = [{"text": f"Fact {i}: the heron nests by pond {i}.", "user_id": "ana", "infer": False} for i in range(7)]
    path = write(tmp_path / "many.jsonl", rows)
    data = tmp_path / "data"
    result = run("--data-dir", str(data), "--batch-size", "5", str(path))
    assert result.exit_code == 0, result.output
    assert "7 memories stored" in result.stdout
    assert len(stored(data, "ana")) == 7
