"""Where an add's time goes: each stage of ``Memory.add`` timed alone, then whole adds.

The stages are the calls ``memorist.engine.add.AddPipeline`` makes, with the
same arguments:

- ``extract``: the language-model plugin's ``extract_detailed`` (the heuristic extractor by default);
- ``embed``: the document embedding of the add's new facts (one batch);
- ``dup_text``: the first duplicate lookup, stored records of the scope with the same normalized text;
- ``dup_near``: the second, the nearest stored neighbours of each new fact (paraphrases); both
  where the engine asks (the scope index's snapshot when it holds the scope, else the store),
  and, when that is the index, the store's answer too (``dup_text_store``, ``dup_near_store``);
- ``prepare``: the engine's whole read half (the four above, as it runs them);
- ``vector_write``: ``VectorStore.upsert`` of the new records;
- ``commit``: the relational transaction (history rows, scope counts, entity links, and the
  entity extraction the links need), committed;
- ``entities``: that entity extraction alone (part of ``commit``);
- ``index_update``: this process's scope index taking the new records (``AddPipeline.written``);
- ``hooks``: the ``memory_added`` hook of each stored record (plugins such as webhooks);
- ``add``: ``Memory.add`` end to end, on turns none of the above added.

The read-only stages run first, each over the same turns on the same store.
Then each turn is added stage by stage (prepare, write, commit, hooks: what
``Memory.add`` does, split so each part has its own clock), so the store ends
as ``Memory.add`` would leave it. The whole adds then take the other turns.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from harness import percentile
from memorist.engine.duplicate_rule import NEAR_CANDIDATES
from memorist.engine.scope import exact_scope
from memorist.filters import And, Condition
from memorist.records import ExtractionRequest, normalized_hash, utcnow

WARMUP = 2


def report(label: str, samples: Sequence[float]) -> dict[str, float]:
    if not samples:
        print(f"{label:<14} (no samples)", flush=True)
        return {"p50_ms": float("nan"), "p95_ms": float("nan"), "samples": 0}
    result = {
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(percentile(samples, 0.95), 2),
        "samples": len(samples),
    }
    print(f"{label:<14} p50 {result['p50_ms']:7.2f} ms   p95 {result['p95_ms']:7.2f} ms   n {len(samples)}", flush=True)
    return result


def clock(call: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    began = time.perf_counter()
    value = call(*args)
    return (time.perf_counter() - began) * 1000, value


def ingest_stages(memory: Any, turns: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Stages on the first half of ``turns`` (``Memory.add_request`` arguments), whole adds on the second."""
    c = memory.components
    store, adder = c.vector_store, memory.adder
    half = max(len(turns) // 2, WARMUP + 1)
    staged = [memory.add_request(**kwargs) for kwargs in turns[:half]]
    whole = [memory.add_request(**kwargs) for kwargs in turns[half:]]

    def extraction(request: Any) -> Any:
        return c.language_model.extract_detailed(
            ExtractionRequest(messages=request.messages, observed_at=request.observed_at or utcnow())
        )

    def view_of(request: Any) -> Any:
        """The scope's in-memory snapshot the engine's lookups would use (None: they go to the store)."""
        view = getattr(getattr(adder, "rule", None), "view", None)
        return view(request.scope) if view is not None else None

    def near(source: Any, vectors: Any, scope: Any) -> list[Any]:
        return [source.search_vector(v, NEAR_CANDIDATES, scope) for v in vectors]

    def same_text(source: Any, where: Any, n: int) -> Any:
        return source.list(where, 0, n) if source is store else source.list(where, n)

    def commit(request: Any, records: list[Any]) -> Any:
        with memory.db.begin() as conn:
            return adder.commit(request, records, conn)

    def index_update(records: list[Any], vectors: Any, bumped: Any) -> None:
        if hasattr(adder, "written"):
            adder.written(records, vectors, bumped)

    def entities(records: list[Any]) -> list[Any]:
        return [c.entity_extractor.extract(r.text) for r in records]

    def hooks(records: list[Any]) -> None:
        for record in records:
            memory.emit("memory_added", memory=record)

    facts = [[f.text.strip() for f in extraction(r).facts if f.text.strip()] for r in staged]
    samples: dict[str, list[float]] = {name: [] for name in ("extract", "embed", "dup_text", "dup_near")}
    for i, (request, texts) in enumerate(zip(staged, facts, strict=True)):
        scope = exact_scope(request.scope)
        hashes = tuple({normalized_hash(t) for t in texts})
        where = And((scope, Condition("hash", "in", hashes)))
        source = view_of(request) or store
        times = {"extract": clock(extraction, request)[0]}
        if texts:
            times["embed"], vectors = clock(c.embedder.embed, texts, "document")
            times["dup_text"] = clock(same_text, source, where, len(hashes))[0]
            times["dup_near"] = clock(near, source, vectors, scope)[0]
            if source is not store:
                times["dup_text_store"] = clock(same_text, store, where, len(hashes))[0]
                times["dup_near_store"] = clock(near, store, vectors, scope)[0]
        if i >= WARMUP:
            for name, ms in times.items():
                samples.setdefault(name, []).append(ms)

    for name in ("prepare", "vector_write", "commit", "index_update", "entities", "hooks"):
        samples[name] = []
    stored = 0
    for i, request in enumerate(staged):
        times = {}
        times["prepare"], prepared = clock(adder.prepare, request)
        records = prepared.records
        if records:
            times["vector_write"] = clock(store.upsert, records, prepared.vectors)[0]
            times["commit"], bumped = clock(commit, request, records)
            times["index_update"] = clock(index_update, records, prepared.vectors, bumped)[0]
            times["entities"] = clock(entities, records)[0]
            times["hooks"] = clock(hooks, records)[0]
            stored += len(records)
        if i >= WARMUP:
            for name, ms in times.items():
                samples[name].append(ms)

    whole_ms = [clock(memory.add_outcome, r)[0] for r in whole]
    samples["add"] = whole_ms[WARMUP:] if len(whole_ms) > 2 * WARMUP else whole_ms
    print(f"ingest stages: {len(staged)} turns stage by stage ({stored} memories stored), {len(whole)} whole adds")
    figures: dict[str, Any] = {name: report(name, values) for name, values in samples.items()}
    if figures["add"]["samples"]:
        figures["add_turns_per_s"] = round(1000 / statistics.mean(samples["add"]), 2)
        print(f"whole adds: {figures['add_turns_per_s']} turns/s (mean of one add at a time)")
    return figures
