"""``memorist import`` against hostile files (issue 39, item 14).

- A line with an unpaired surrogate escape is a bad line found before anything is
  stored (it used to crash with a traceback after 200 of 250 adds were stored).
- A deeply nested line is a bad line, also with ``--skip-invalid`` (it used to
  raise ``RecursionError``).
- A large file is streamed: the importing process's peak memory does not grow
  with the file (a real process, its peak RSS read by its parent).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from memorist import Engine
from memorist.cli import cli
from memorist.testing.server import code_path

HASHING = {"MEMORIST_PLUGIN_MODULES": "memorist.testing.hashing", "MEMORIST_EMBEDDER__PROVIDER": "hashing"}


@pytest.fixture(autouse=True)
def hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in HASHING.items():
        monkeypatch.setenv(key, value)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["import", *args], catch_exceptions=False)


def count(data: Path, user: str) -> int:
    engine = Engine.from_config({"data_dir": str(data)})
    try:
        return len(engine.list(user_id=user, page_size=1000).records)
    finally:
        engine.close()


def lines(user: str, n: int) -> list[str]:
    return [
        json.dumps({"text": f"Fact {i}: the heron nests by pond {i}.", "user_id": user, "infer": False})
        for i in range(n)
    ]


def test_a_lone_surrogate_stops_the_import_before_anything_is_stored(tmp_path: Path) -> None:
    rows = lines("sur", 250)
    rows[200] = '{"text": "broken \\ud800 here", "user_id": "sur", "infer": false}'
    path = tmp_path / "sur.jsonl"
    path.write_text("\n".join(rows) + "\n")
    data = tmp_path / "data"
    result = run("--data-dir", str(data), str(path))
    assert result.exit_code == 2, result.output
    assert f"{path}:201: " in result.stderr and "surrogate" in result.stderr and "nothing was imported" in result.stderr
    assert count(data, "sur") == 0
    skipping = run("--data-dir", str(data), "--skip-invalid", str(path))
    assert skipping.exit_code == 0, skipping.output
    assert "249 memories stored" in skipping.stdout and "1 invalid lines left out" in skipping.stdout
    assert count(data, "sur") == 249


def test_deep_nesting_is_a_bad_line_even_with_skip_invalid(tmp_path: Path) -> None:
    deep = '{"text": "x", "user_id": "deep", "metadata": {"a": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    nested = '{"text": "y", "user_id": "deep", "metadata": {"a": ' + "[" * 100 + "]" * 100 + "}}"
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([*lines("deep", 3), deep, nested]) + "\n")
    data = tmp_path / "data"
    stopped = run("--data-dir", str(data), str(path))
    assert stopped.exit_code == 2 and f"{path}:4: JSON nested deeper than 64 levels" in stopped.stderr
    assert count(data, "deep") == 0
    skipping = run("--data-dir", str(data), "--skip-invalid", str(path))
    assert skipping.exit_code == 0, skipping.output
    assert f"skipped invalid: {path}:5: JSON nested deeper" in skipping.stderr
    assert count(data, "deep") == 3


def test_a_one_line_locomo_document_and_stdin_still_import(tmp_path: Path) -> None:
    sample = {
        "sample_id": "s1",
        "conversation": {"session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I row."}]},
    }
    path = tmp_path / "one.json"
    path.write_text(json.dumps(sample))
    data = tmp_path / "data"
    assert run("--data-dir", str(data), "--no-infer", str(path)).exit_code == 0
    assert count(data, "s1") == 1
    piped = CliRunner().invoke(
        cli, ["import", "--data-dir", str(data), "-"], input="\n".join(lines("stdin", 4)), catch_exceptions=False
    )
    assert piped.exit_code == 0 and "4 memories stored" in piped.stdout, piped.output


def peak_rss_mb(args: list[str], env: dict[str, str]) -> float:
    """Peak resident memory of ``memorist import ARGS`` in its own process, in MB."""
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'memorist.cli', 'import', *sys.argv[1:]], capture_output=True)\n"
        "assert done.returncode == 0, done.stderr.decode()[-2000:]\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return float(out.stdout.strip())


@pytest.mark.process  # child processes: the peak memory of whole imports of 4 MB and 30 MB
def test_a_large_file_is_streamed_in_bounded_memory(tmp_path: Path) -> None:
    """Two imports that store the same memories (each keeps its first 20,000 characters): one
    from a 4 MB file, one from a ~30 MB file whose lines are longer. Streamed, the larger file
    costs no more memory; the old reader held its text, its lines and every add at once.
    The longer lines (306,000 characters) are past the default ``limits.max_add_chars``: the
    operator raises it for this import, as the import runs under the operator's limits."""
    env = {**os.environ, **HASHING, "PYTHONPATH": code_path(), "MEMORIST_LIMITS__MAX_ADD_CHARS": "400000"}
    sentence = "The heron waits by the reeds for the morning fish. "
    files = {}
    for name, repeat in (("stored", 400), ("long", 6000)):
        path = files[name] = tmp_path / f"{name}.jsonl"
        with path.open("w") as handle:
            for i in range(100):
                handle.write(json.dumps({"text": f"{i} {sentence * repeat}", "user_id": name, "infer": False}) + "\n")
    args = ["-q", "--batch-size", "5"]
    base = peak_rss_mb(["--data-dir", str(tmp_path / "a"), *args, str(files["stored"])], env)
    peak = peak_rss_mb(["--data-dir", str(tmp_path / "b"), *args, str(files["long"])], env)
    size_mb = files["long"].stat().st_size / 1e6
    assert peak - base < size_mb / 3, f"peak {peak:.0f} MB vs {base:.0f} MB for a {size_mb:.0f} MB file"
    assert count(tmp_path / "b", "long") == 100
