"""``Memory.add_many``: a batch answers exactly what the same adds one after another answer.

The retention suite's statements (facts, exact and paraphrased repeats, skips) are added
once one by one and once as a batch, to two users of one store, with a second user's
adds interleaved (scopes stay apart) and small chunks (duplicates across chunk borders);
stored, merged and skipped must match item for item, merged memories naming the same text.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.config.settings import load_settings
from memorist.engine import memory as engine_memory
from memorist.engine.add_request import AddRequest
from memorist.engine.outcome import AddOutcome
from memorist.python.engine import Engine

from tests.retention.suite import load_cases

CASES = load_cases()


def shape(outcome: AddOutcome, text_of: dict[str, str]) -> dict[str, Any]:
    """An outcome without ids: what was stored, merged with which text, skipped and why."""
    return {
        "stored": [(r.text, r.attributed_to, r.source_message) for r in outcome.stored],
        "merged": [
            (m.text, text_of.get(m.memory_id, m.matched_memory), m.reason, m.source_message, round(m.similarity, 4))
            for m in outcome.merged
        ],
        "skipped": [(s.text, s.reason, s.source_message) for s in outcome.skipped],
    }


def requests_for(memory: Engine, user: str, other: str) -> list[AddRequest]:
    """Every case for ``user``; every third also for ``other`` (said right after it)."""
    out = []
    for n, case in enumerate(CASES):
        out.append(memory.add_request(case.messages, user_id=user))
        if n % 3 == 0:
            out.append(memory.add_request(case.messages, user_id=other, metadata={"n": n}))
    out.append(memory.add_request("I like tea. I like tea!", user_id=user, infer=False))
    out.append(memory.add_request([{"role": "system", "content": "be brief"}], user_id=user))
    return out


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Any:
    data_dir = tmp_path_factory.mktemp("add-many")
    memory = Engine.from_settings(load_settings(None, {"data_dir": str(data_dir)}))
    yield memory
    memory.close()


def test_a_batch_answers_what_one_add_after_another_answers(memory: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    one_by_one = [memory.add_outcome(r) for r in requests_for(memory, "seq", "seq-other")]
    added: list[str] = []
    emit = memory.emit

    def counting(hook: str, **kwargs: Any) -> None:
        if hook == "memory_added":
            added.append(kwargs["memory"].id)
        emit(hook, **kwargs)

    monkeypatch.setattr(memory, "emit", counting)
    monkeypatch.setattr(engine_memory, "ADD_MANY_CHUNK", 16)  # repeats cross chunk borders
    batched = memory.add_many(requests_for(memory, "bulk", "bulk-other"))
    assert len(batched) == len(one_by_one)

    def texts(user: str) -> dict[str, str]:
        return {r.id: r.text for r in memory.list(user_id=user, page_size=1000).records}

    seq_text = texts("seq") | texts("seq-other")
    bulk_text = texts("bulk") | texts("bulk-other")
    for n, (alone, together) in enumerate(zip(one_by_one, batched, strict=True)):
        assert shape(together, bulk_text) == shape(alone, seq_text), f"request {n}"
    stored = [r.id for o in batched for r in o.stored]
    assert added == stored  # one hook per stored memory, in order
    assert sum(1 for o in batched for m in o.merged if m.reason == "paraphrase") >= 5
    # "The user is allergic to peanuts" told again after "... to shellfish" replaced it is
    # stored anew, in a batch as one add after another: current again, no same-text merge.
    assert sum(1 for o in batched for m in o.merged if m.reason == "same_text") >= 11


def test_a_batch_is_stored_once_with_its_history_and_found_at_once(memory: Engine) -> None:
    requests = [
        memory.add_request(f"My locker number at the pool is {n}0{n}.", user_id="fresh", infer=False) for n in range(5)
    ]
    outcomes = memory.add_many(requests)
    ids = [r.id for o in outcomes for r in o.stored]
    assert len(ids) == 5
    assert memory.list(user_id="fresh").total == 5
    for record_id in ids:  # each later locker number replaces the one before (SUPERSEDED, derived)
        assert [h["event"] for h in memory.history(record_id) if h["event"] != "SUPERSEDED"] == ["ADD"]
    hits = memory.search("locker number 303", user_id="fresh", top_k=1)
    assert hits and hits[0].record.text == "My locker number at the pool is 303."
    counts = {(c.entity_type, c.entity_id): c.total for c in memory.counts.list("default", "default")}
    assert counts[("user", "fresh")] == 5


def test_an_empty_batch_answers_nothing(memory: Engine) -> None:
    assert memory.add_many([]) == []


def test_a_failing_request_stores_nothing_of_its_chunk(memory: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    good = memory.add_request("I keep bees on the roof.", user_id="failing", infer=False)
    bad = memory.add_request("This one breaks the extractor.", user_id="failing")

    def broken(request: Any) -> Any:
        raise RuntimeError("extractor down")

    monkeypatch.setattr(memory.components.language_model, "extract_detailed", broken)
    with pytest.raises(RuntimeError, match="extractor down"):
        memory.add_many([good, bad])
    assert memory.list(user_id="failing").total == 0


def test_a_batch_ranks_its_own_records_as_one_search_over_them_would() -> None:
    """The nearest of a batch's earlier records: the best k by cosine, ties by id, whatever
    how many of the scope's records the batch holds (only the best become hits)."""
    import numpy as np
    from memorist.engine.batch import BatchStored
    from memorist.records import MemoryRecord, Scope, utcnow

    now = utcnow()
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(40, 8)).astype(np.float32)
    vectors[[5, 17, 30]] = vectors[9]  # a four-way tie
    records = [
        MemoryRecord(
            id=f"m{i:02d}", text=str(i), hash=str(i), user_id="u", observed_at=now, created_at=now, updated_at=now
        )
        for i in range(40)
    ]
    batch = BatchStored()
    batch.add(records, vectors)
    for query in (vectors[9] + 0.01, rng.normal(size=8).astype(np.float32)):
        for k in (1, 2, 3, 5, 40, 60):
            unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
            cosine = unit @ (query / np.linalg.norm(query))
            expected = sorted(range(40), key=lambda i: (-float(cosine[i]), records[i].id))[:k]
            got = batch.nearest([], query, k, Scope(user_id="u"))
            assert [h.record.id for h in got] == [records[i].id for i in expected]
    assert batch.nearest([], vectors[0], 3, Scope(user_id="other")) == []
