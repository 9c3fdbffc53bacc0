"""The measurement scripts of issue 17 run at their tiniest size and print the figures they promise.

Each script runs as its own process (as a user runs it; mem0 and the network
guard change process-wide state) on a LoCoMo-shaped conversation written here,
small enough to ingest in seconds with the real MiniLM. What is checked is the
shape and sense of the figures (present, positive, recall a fraction in [0, 1],
nothing left the machine), never their values: speed is the scripts' output,
not a test's assertion.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"

TURNS = [
    ("Caroline", "I went to the LGBTQ support group yesterday and it was so powerful."),
    ("Melanie", "That sounds amazing! I painted a sunrise over the lake last week."),
    ("Caroline", "I am researching adoption agencies because I want to build a family."),
    ("Melanie", "My kids loved the camping trip to the mountains in June."),
    ("Caroline", "I moved here from Sweden four years ago with my grandmother's necklace."),
    ("Melanie", "I started running again to clear my head; pottery class is on Fridays."),
    ("Caroline", "Counseling is the career I want, helping trans people like me."),
    ("Melanie", "We adopted a dog named Oliver, he loves the beach."),
    ("Caroline", "I signed up for a charity race to raise awareness for mental health."),
    ("Melanie", "My husband and I celebrated our anniversary at an Italian restaurant downtown."),
    ("Caroline", "I read 'Becoming Nicole' last month and it gave me so much hope."),
    ("Melanie", "The kids and I made pottery bowls together on Saturday afternoon."),
]
QUESTIONS = [
    ("When did Caroline go to the LGBTQ support group?", ["D1:1"], 2),
    ("What did Melanie paint?", ["D1:2"], 4),
    ("What career does Caroline want?", ["D1:7"], 4),
    ("Where did Caroline move from?", ["D1:5"], 1),
    ("What is the name of Melanie's dog?", ["D1:8"], 4),
    ("What would Caroline likely pursue, given her interests?", ["D1:3", "D1:7"], 3),
    ("An adversarial question that is skipped", ["D1:4"], 5),
]


def write_conversation(directory: Path, name: str = "conv-tiny") -> Path:
    """One LoCoMo-format file: one session, evidence by ``dia_id``, one category-5 question (skipped)."""
    directory.mkdir(parents=True, exist_ok=True)
    conversation = {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": s, "dia_id": f"D1:{i}", "text": t} for i, (s, t) in enumerate(TURNS, start=1)],
    }
    data = {
        "sample_id": name,
        "conversation": conversation,
        "qa": [{"question": q, "evidence": e, "category": c, "answer": "-"} for q, e, c in QUESTIONS],
    }
    # benchmarks/locomo.py reads the sessions from the file's top level (the repository's copies are flattened)
    flat = {**conversation, "qa": data["qa"]}
    path = directory / f"{name}.json"
    path.write_text(json.dumps(flat))
    return path


def run(script: str, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env.update(HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )
    assert result.returncode == 0, f"{script} exited {result.returncode}:\n{result.stdout}\n{result.stderr[-4000:]}"
    return result


def fraction(value: Any) -> bool:
    return isinstance(value, float | int) and 0.0 <= value <= 1.0


def test_versus_mem0_smallest_run(tmp_path: Path) -> None:
    data = tmp_path / "locomo"
    write_conversation(data)
    out = tmp_path / "versus.json"
    result = run(
        "versus_mem0.py", "--data", str(data), "--split", "all", "--questions", "5", "--http-queries", "0",
        "--mem0-torch-threads", "1", "--workdir", str(tmp_path / "work"), "--json", str(out),
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert figures["turns"] == len(TURNS) and figures["questions"] == 5
    for system in ("mem0", "memorist"):
        f = figures[system]
        assert f["ingest_turns_per_s"] > 0 and 0 < f["search_p50_ms"] <= f["search_p95_ms"]
        assert all(fraction(f["recall"][k]) for k in ("@10", "@50")), f["recall"]
        assert f["recall"]["@10"] <= f["recall"]["@50"]
        assert 0 < f["memories"] <= len(TURNS)
    assert figures["mem0"]["llm_calls"] == 0 and figures["mem0"]["infer"] is False
    assert figures["memorist"]["config"] == "default"
    assert figures["network"]["refused"] == []
    assert set(figures["ratios"]) == {"ingest", "search_p50", "search_p95", "recall@10", "recall@50"}
    table = result.stdout
    for label in ("mem0 OSS", "Memorist, default config", "Memorist ÷ mem0", "recall@50"):
        assert label in table
    assert f"{figures['memorist']['search_p50_ms']} ms" in table


def test_versus_mem0_dev_split_is_the_five_conversations(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from versus_mem0 import DEV_SPLIT, select_files
    finally:
        sys.path.remove(str(BENCH))
    for name in (*DEV_SPLIT, "conv-99"):
        write_conversation(tmp_path, name)
    assert [p.stem for p in select_files(tmp_path, "dev", None)] == sorted(DEV_SPLIT)
    assert len(select_files(tmp_path, "all", None)) == len(DEV_SPLIT) + 1
    assert [p.stem for p in select_files(tmp_path, "dev", 2)] == sorted(DEV_SPLIT)[:2]


def test_versus_mem0_alone_runs_one_system_per_process_and_keeps_the_best_of_two(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from versus_mem0 import _without, best_of
    finally:
        sys.path.remove(str(BENCH))
    runs = [
        {"ingest_turns_per_s": 60.0, "search_p50_ms": 9.0, "search_p95_ms": 30.0, "load_average": {}, "recall": {}},
        {"ingest_turns_per_s": 70.0, "search_p50_ms": 11.0, "search_p95_ms": 20.0, "load_average": {}, "recall": {}},
    ]
    best = best_of(runs)  # each figure's best, taken apart: one slow moment does not sink a run
    assert (best["ingest_turns_per_s"], best["search_p50_ms"], best["search_p95_ms"]) == (70.0, 9.0, 20.0)
    assert len(best["runs"]) == 2
    assert _without(["--data", "d", "--json", "x.json", "--workdir=w", "--limit", "1"], ("--json", "--workdir")) == [
        "--data", "d", "--limit", "1",
    ]  # fmt: skip
    data = tmp_path / "locomo"
    write_conversation(data)
    out = tmp_path / "alone.json"
    result = run(
        "versus_mem0.py", "--data", str(data), "--split", "all", "--only", "memorist", "--questions", "3",
        "--http-queries", "0", "--workdir", str(tmp_path / "work"), "--json", str(out),
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert "mem0" not in figures and "ratios" not in figures  # mem0 was never loaded in this process
    assert figures["memorist"]["ingest_turns_per_s"] > 0 and figures["questions"] == 3
    assert "memorist alone" in result.stdout


def test_locomo_reports_the_tune_and_validate_conversations_apart(tmp_path: Path) -> None:
    data = tmp_path / "locomo"
    write_conversation(data, "conv-26")  # a tuning conversation
    write_conversation(data, "conv-42")  # a validation one
    out = tmp_path / "locomo.json"
    run("locomo.py", "--data", str(data), "--k", "1,10", "--data-dir", str(tmp_path / "d"), "--json", str(out))
    figures = json.loads(out.read_text())
    assert set(figures["splits"]) == {"tune", "validate"}
    for half in figures["splits"].values():
        assert fraction(half["recall"]["@10"]) and set(half["recall_by_category"]["@10"]) <= {
            "multi-hop", "temporal", "open-domain", "single-hop",
        }  # fmt: skip
    only = tmp_path / "tune.json"
    ranks = tmp_path / "ranks.jsonl"
    run("locomo.py", "--data", str(data), "--k", "10", "--split", "tune", "--data-dir", str(tmp_path / "d"),
        "--reuse", "--json", str(only), "--ranks", str(ranks))  # fmt: skip
    tune = json.loads(only.read_text())
    assert set(tune["splits"]) == {"tune"}
    # The diagnostic: one line per answerable question, each evidence turn's rank within the
    # largest k (None below it), agreeing with the recall the run printed.
    lines = [json.loads(line) for line in ranks.read_text().splitlines()]
    assert [line["question"] for line in lines] == [q for q, _, c in QUESTIONS if c in (1, 2, 3, 4)]
    found = []
    for line in lines:
        assert line["split"] == "tune" and line["category"] in {"multi-hop", "temporal", "open-domain", "single-hop"}
        for item in line["evidence"].values():
            assert item["rank"] is None or (0 <= item["rank"] < 10 and "semantic" in item["signals"])
        found.append(sum(item["rank"] is not None for item in line["evidence"].values()) / len(line["evidence"]))
        above = line["top10_not_evidence"]
        assert all(other["rank"] < 10 and other["dia_id"] not in line["evidence"] for other in above)
    assert round(sum(found) / len(found), 4) == tune["recall"]["@10"]


def test_implicit_cases_are_many_varied_and_split_by_id() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        from implicit import CASES, load
    finally:
        sys.path.remove(str(BENCH))
    suite = load(CASES)
    assert len(suite.cases) >= 150
    domains = {c.domain for c in suite.cases}
    assert {"diet", "health", "travel", "family", "work", "money", "schedule", "hobbies", "home"} <= domains
    assert "accessibility" in domains and len(domains) >= 10
    halves = {c.half for c in suite.cases}
    assert halves == {"tune", "held-out"} and all((c.half == "tune") == (c.id % 2 == 1) for c in suite.cases)
    assert sum(c.half == "tune" for c in suite.cases) == len(suite.cases) // 2
    assert len({c.query for c in suite.cases}) == len(suite.cases)  # no turn asked twice


def test_implicit_runs_every_surface_on_a_small_case_file(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "user: sam\n"
        'facts:\n  veg: "I\'m vegetarian."\n  fly: "I\'m terrified of flying."\n'
        'distractors:\n  - "My coworker Dan plays the cello."\n'
        "cases:\n"
        '  - {id: 1, domain: diet, query: "Can you suggest a dinner recipe for tonight?", expects: [veg]}\n'
        '  - {id: 2, domain: travel, query: "How should I get to Berlin next week?", expects: [fly]}\n'
        'unrelated:\n  - "What is the capital of Australia?"\n'
    )
    out = tmp_path / "implicit.json"
    result = run("implicit.py", "--cases", str(cases), "--workdir", str(tmp_path / "w"), "--json", str(out))
    figures = json.loads(out.read_text())
    assert set(figures["surfaces"]) == {"api", "selfhosted", "v3", "mem0"}
    for name, surface in figures["surfaces"].items():
        for half in ("tune", "held-out", "all"):
            assert surface[half]["cases"] == (2 if half == "all" else 1)
            assert all(fraction(surface[half][k]) for k in ("hit@3", ">=0.1", ">=0.5")), (name, surface)
        assert fraction(surface["unrelated"]["best_below_0.2"])
    # The three doors of one engine answer alike (the figures are deterministic).
    assert (
        figures["surfaces"]["api"]["all"]
        == figures["surfaces"]["selfhosted"]["all"]
        == figures["surfaces"]["v3"]["all"]
    )
    assert "2 cases in 2 domains" in result.stdout


@pytest.mark.parametrize("adds", ["6"])
def test_search_stages_on_a_fresh_locomo_store(tmp_path: Path, adds: str) -> None:
    data = tmp_path / "locomo"
    write_conversation(data)
    write_conversation(data, "conv-tiny2")
    out = tmp_path / "stages.json"
    result = run(
        "search_stages.py", "--locomo", str(data), "--limit", "2", "--adds", adds, "--queries", "4",
        "--data-dir", str(tmp_path / "store"), "--json", str(out),
    )  # fmt: skip
    figures = json.loads(out.read_text())
    for stage in ("embed", "graph", "keyword", "vector", "fetch", "search"):
        assert figures["search"][stage]["p50_ms"] > 0, stage
    ingest = figures["ingest"]
    for stage in ("extract", "embed", "dup_text", "dup_near", "prepare", "vector_write", "commit", "hooks", "add"):
        assert ingest[stage]["samples"] > 0 and ingest[stage]["p50_ms"] >= 0, stage
        assert stage in result.stdout
    assert ingest["add_turns_per_s"] > 0
    assert "critical path" in result.stdout


def test_agent_loop_takes_each_add_in_place(tmp_path: Path) -> None:
    """Adds and searches alternating on one user: no search after this process's own add
    reloads the scope (the snapshot and its graph grow in place)."""
    data = tmp_path / "locomo"
    write_conversation(data)
    out = tmp_path / "loop.json"
    result = run(
        "agent_loop.py", "--data", str(data), "--conversation", "conv-tiny", "--load", "8", "--rounds", "4",
        "--json", str(out),
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert figures["rounds"] == 4 and figures["loaded"] == 8
    assert 0 < figures["search_p50_ms"] <= figures["search_p95_ms"]
    assert 0 < figures["add_p50_ms"] <= figures["add_p95_ms"]
    assert figures["scope_loads"] == 0 and figures["graph_loads"] == 0
    assert f"search p50 {figures['search_p50_ms']} ms" in result.stdout


def test_agent_loop_with_adds_from_another_engine_catches_up_without_reloads(tmp_path: Path) -> None:
    """Every search follows another process's add: the snapshot and its graph take the added
    memories through the additions log, never reloading."""
    data = tmp_path / "locomo"
    write_conversation(data)
    out = tmp_path / "loop.json"
    result = run(
        "agent_loop.py", "--data", str(data), "--conversation", "conv-tiny", "--load", "8", "--rounds", "4",
        "--writer", "other", "--json", str(out),
    )  # fmt: skip
    figures = json.loads(out.read_text())
    assert figures["writer"] == "other" and figures["rounds"] == 4
    assert (figures["scope_loads"], figures["graph_loads"], figures["catch_ups"]) == (0, 0, 4)
    assert "catch-ups 4 (adds by another engine)" in result.stdout


def test_footprint_reports_worker_and_node_memory(tmp_path: Path) -> None:
    out = tmp_path / "footprint.json"
    result = run(
        "footprint.py", "--embedder", "hashing", "--sizes", "300", "--users", "10", "--requests", "20,60",
        "--probe", "4", "--workdir", str(tmp_path / "work"), "--json", str(out),
    )  # fmt: skip
    figures = json.loads(out.read_text())
    labels = [step["label"] for step in figures["steps"]]
    assert labels[:2] == ["start (empty store)", "warm (4 searches)"]
    assert [s.get("memories") for s in figures["steps"]] == [None, None, 300, None, None]
    assert [s.get("requests") for s in figures["steps"]][-2:] == [20, 60]
    for step in figures["steps"]:
        assert len(step["workers"]) == 2
        assert 0 < step["worker_rss_mb"] < step["node_rss_mb"]
        assert step["node_rss_mb"] == pytest.approx(
            step["master"]["rss_mb"] + sum(w["rss_mb"] for w in step["workers"]), abs=0.5
        )
        assert step["label"] in result.stdout
    assert set(figures["growth_per_1000_requests_mb"]) == {"worker_rss", "node_rss", "node_pss"}


def test_embedding_graphs_compares_the_plain_and_the_fused_export(tmp_path: Path) -> None:
    data = tmp_path / "locomo"
    write_conversation(data)
    result = run("embedding_graphs.py", "--data", str(data), "--turns", "12", "--questions", "5", "--rounds", "1")
    lines = result.stdout.splitlines()
    plain, fused = (int(n) for n in re.findall(r"plain (\d+), fused (\d+)", lines[0])[0])
    assert fused < plain / 4  # the fused kernels replace most of the exported graph
    assert float(re.findall(r"turns: (\S+)", lines[1])[0]) < 1e-4  # and give the same vectors
    assert sum("one turn at a time (12)" in line for line in lines) == 1
    assert sum("one question at a time (5)" in line for line in lines) == 1
    assert sum(line.count("texts/s") == 2 for line in lines) == 2


def test_embedding_batches_compares_the_ways_texts_are_fed(tmp_path: Path) -> None:
    data = tmp_path / "locomo"
    write_conversation(data)
    result = run("embedding_batches.py", "--data", str(data), "--turns", "8", "--call", "4", "--rounds", "1")
    lines = result.stdout.splitlines()
    header = r"\d+ turns, tokens p10 \d+ median \d+ p90 \d+ max \d+; calls of 4, batch_size 32$"
    assert re.match(header, lines[0]), lines
    rates = {line.split("  ", 1)[1].rsplit(" ", 2)[0].strip(): float(line.split()[-2]) for line in lines[1:]}
    assert set(rates) == {
        "one per call",
        "calls, batches cut by token count",
        "calls, fixed batches (before)",
        "one text repeated (no padding)",
    }
    assert all(value > 0 for value in rates.values())


def test_embedding_precision_compares_float_and_both_int8_copies(tmp_path: Path) -> None:
    """The per-channel int8 copy that ``quantize: int8`` runs is nearer the float vectors than
    the one-scale-per-matrix copy it replaced."""
    data = tmp_path / "locomo"
    write_conversation(data)
    result = run("embedding_precision.py", "--data", str(data), "--turns", "12", "--single", "4", "--rounds", "1")
    rows = {line[:28].strip(): [float(x) for x in line[28:].split()] for line in result.stdout.splitlines()[2:]}
    assert set(rows) == {"float", "int8, one scale per matrix", "int8, per channel"}, result.stdout
    assert max(rows["float"][:2]) < 1e-5
    assert 0 < rows["int8, per channel"][0] < rows["int8, one scale per matrix"][0]
    assert all(len(row) == 4 and min(row[2:]) > 0 for row in rows.values())


def test_scale_keeps_a_store_and_says_when_a_reuse_asks_for_more_queries_than_it_kept(tmp_path: Path) -> None:
    """A kept store holds the exact answers of the queries it was loaded with; a reuse asking
    more used to end in an IndexError deep in a child process."""
    common = ("--sizes", "300", "--stores", "lancedb", "--index", "none", "--embedder", "hashing")
    common += ("--http-queries", "0", "--warmup", "0", "--ingest-adds", "0", "--workdir", str(tmp_path))
    out = tmp_path / "kept.json"
    run("scale.py", *common, "--queries", "5", "--keep", "--json", str(out))
    assert [(r["store"], r["size"]) for r in json.loads(out.read_text())["results"]] == [("lancedb", 300)]
    again = run("scale.py", *common, "--queries", "5", "--reuse")
    assert "reusing the store loaded by an earlier run" in again.stdout
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIST_")}
    env.update(HF_HUB_OFFLINE="1", PYTHONPATH=os.pathsep.join(sys.path))
    more = subprocess.run(
        [sys.executable, str(BENCH / "scale.py"), *common, "--queries", "8", "--reuse"],
        env=env, capture_output=True, text=True, timeout=240, cwd=ROOT,
    )  # fmt: skip
    assert more.returncode != 0
    assert "exact answers cover 5 queries; reuse it with --queries 5 or fewer" in more.stderr


def test_ingest_stages_times_each_stage_of_an_add_and_spreads_adds_over_users(tmp_path: Path) -> None:
    """benchmarks/ingest_stages.py: the stage table, single adds then add_many; with ``--spread``
    the turns go to many users and the scope loads are a stage of their own."""
    data = tmp_path / "locomo"
    write_conversation(data)
    plain = run("ingest_stages.py", "--data", str(data), "--turns", "8", "--batch", "4").stdout
    assert re.search(r"^single: +[\d.]+ turns/s \(8 turns, \d+ memories", plain, re.M), plain
    assert re.search(r"^add_many: +[\d.]+ turns/s \(8 turns", plain, re.M), plain
    for stage in ("extract", "embed", "relational", "other"):
        assert re.search(rf"^  {stage} +-?[\d.]+ ms/add$", plain, re.M), (stage, plain)
    spread = run("ingest_stages.py", "--data", str(data), "--turns", "8", "--spread", "4").stdout
    assert re.search(r"^  scope load +[\d.]+ ms/add$", spread, re.M), spread
    single = re.search(r"^single: .*, (\d+) memories", spread, re.M)
    bulk = re.search(r"^add_many: .*, (\d+) memories", spread, re.M)
    assert single and bulk and single.group(1) == bulk.group(1), spread  # the same adds, the same users


def test_add_cpu_prints_each_piece_of_an_add_by_cpu_and_wall_time(tmp_path: Path) -> None:
    """benchmarks/add_cpu.py: the adding thread's CPU outside the embedding, and a line per piece
    of the add pipeline with its wall and CPU time and how often it ran."""
    data = tmp_path / "locomo"
    write_conversation(data)
    out = run("add_cpu.py", "--data", str(data), "--turns", "8").stdout
    head = re.search(
        r"^[\d.]+ turns/s, [\d.]+ ms an add; the adding thread's CPU ([\d.]+) ms an add, (-?[\d.]+) outside", out
    )
    assert head and float(head.group(1)) > 0, out
    for piece in ("embed", "commit", "entity links", "open_intent", "written", "hooks"):
        assert re.search(rf"^  {piece} +[\d.]+ +[\d.]+  \d+$", out, re.M), (piece, out)
    assert re.search(r"^  extracted +[\d.]+ +[\d.]+  8$", out, re.M), out  # one extraction per turn


def test_first_users_ranks_the_answer_in_small_scopes(tmp_path: Path) -> None:
    out = tmp_path / "first.json"
    result = run("first_users.py", "--json", str(out))
    names = ["first users", "retention, about the user", "retention, first person"]
    for line, name in zip(result.stdout.splitlines(), names, strict=True):
        assert re.match(rf"{name}: \d+ questions, MRR [01]\.\d{{4}}, ranked first [01]\.\d{{3}}$", line), line
    figures = json.loads(out.read_text())
    assert list(figures) == names
    for figure in figures.values():
        assert figure["questions"] > 20 and 0 < figure["mrr"] <= 1
        assert all(position != 1 for _, _, position in figure["missed"])


def test_index_terms_times_per_clause_detection_against_english_terms(tmp_path: Path) -> None:
    data = tmp_path / "locomo"
    data.mkdir()
    write_conversation(data)
    result = run("index_terms.py", "--data", str(data), "--rounds", "1")
    lines = result.stdout.splitlines()
    assert "LoCoMo turns" in lines[0], result.stdout
    assert [line.split()[0] for line in lines[1:]] == ["index_terms", "terms"]
    assert all(float(line.split()[-4]) > 0 for line in lines[1:])


def test_the_request_costs_benchmark_prints_each_refusal() -> None:
    """``benchmarks/request_costs.py`` (what one request may cost, tests/routes/test_request_costs.py)
    at its smallest: each refusal printed with its status and the limit it names."""
    result = run("request_costs.py", "--messages", "5", "--metadata-mb", "0.1", timeout=300)
    lines = {line.split("  ")[0].strip(): line for line in result.stdout.splitlines()}
    assert " 413 in " in lines["metadata-heavy add x5"] and "MAX_METADATA_BYTES" in lines["metadata-heavy add x5"]
    assert " 400 in " in lines["filter 200 OR x 300 in"] and "MAX_FILTER_VALUES" in lines["filter 200 OR x 300 in"]
    assert " 200 in " in lines["filter 4 OR x 250 in"]
