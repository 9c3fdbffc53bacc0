"""With a chat model configured, the model judges which stored memory a new fact replaces.

Through the real engine: the OpenAI-compatible language model against the local protocol
server (:mod:`tests.fake_openai`), which extracts what each test scripts and answers the
judge's request as the test's model would, from the facts and candidates the request shows.
The rule (:mod:`memorist.engine.supersession_rule`) decides only when the model does not:
the option is off, the call failed, or the model is the offline heuristic one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest
from memorist.engine.supersession_judge import judge
from memorist.errors import ProviderError
from memorist.plugin.contracts import ProviderContext
from memorist.plugin.manager import load_plugins
from memorist.python.engine import Engine
from memorist.python.memory import Memory
from memorist.records import CandidateMemory, FactWithCandidates, MemoryRecord, utcnow
from memorist_heuristic.extractor import HeuristicExtractor

from tests.conftest import fast_settings
from tests.fake_openai import FakeOpenAI, Reply, fake_openai_server
from tests.plugins import hashing

MONDAY = "2026-03-02T09:00:00Z"
FRIDAY = "2026-03-06T09:00:00Z"

#: A change the rule reads by its words: a move, and the old city after it.
LISBON, PORTO = "The user lives in Lisbon.", "The user moved to Porto."
#: A change the rule misses (a car traded in names neither "car" nor a change word it knows).
TOYOTA, HONDA = "The user drives a Toyota.", "The user traded the Toyota in for a Honda."
#: The same move in Japanese, which the rule misses under this embedder.
OSAKA, FUKUOKA = "ユーザーは大阪に住んでいる。", "ユーザーは先月福岡に引っ越した。"

Judge = Callable[[list[dict[str, Any]]], str | Reply]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with fake_openai_server() as fake:
        yield fake


def open_engine(server: FakeOpenAI, data: Path, **options: Any) -> Engine:
    """The engine with the OpenAI-compatible model at ``server`` and the hashing embedder."""
    language_model = {
        "provider": "openai",
        "options": {"base_url": server.base_url, "max_retries": 1, "backoff_seconds": 0, **options},
    }
    return Engine.from_config(
        fast_settings(data, language_model=language_model), plugins=load_plugins({}, extra=[hashing])
    )


@pytest.fixture
def engine(server: FakeOpenAI, tmp_path: Path) -> Iterator[Engine]:
    engine = open_engine(server, tmp_path)
    yield engine
    engine.close()


def say(engine: Engine, server: FakeOpenAI, text: str, when: str, user: str = "ana", speaker: str | None = None) -> str:
    """Add ``text`` (said by ``speaker``), the model extracting it as one memory; the stored
    memory's id."""
    memory = {"text": text, "source_message": 0, "attributed_to": "user"}
    server.script_chat(json.dumps({"memories": [memory]}))
    message = {"role": "user", "content": text, **({"name": speaker} if speaker else {})}
    stored = engine.add([message], user_id=user, timestamp=when)
    assert [r.text for r in stored] == [text]
    return stored[0].id


def replacing(*olds: str) -> Judge:
    """A model that says each fact replaces its candidates whose text is one of ``olds``."""

    def answer(facts: list[dict[str, Any]]) -> str:
        verdicts = [
            {"fact": f["fact"], "replaces": [c["label"] for c in f["candidates"] if c["text"] in olds]} for f in facts
        ]
        return json.dumps({"verdicts": verdicts})

    return answer


def nothing_replaced(facts: list[dict[str, Any]]) -> str:
    return json.dumps({"verdicts": [{"fact": f["fact"], "replaces": []} for f in facts]})


def shown(engine: Engine, memory_id: str) -> dict[str, Any]:
    """The memory as ``get`` shows it (with ``linked_memory_ids`` and ``superseded_by``)."""
    found = Memory(engine=engine).get(memory_id)
    assert found is not None, memory_id
    return found


def current(engine: Engine, user: str = "ana") -> set[str]:
    return {r.text for r in engine.list(user_id=user, latest_only=True).records}


def test_the_models_replaces_hides_the_older_memory_and_links_the_newer(engine: Engine, server: FakeOpenAI) -> None:
    server.judge = replacing(TOYOTA)
    old = say(engine, server, TOYOTA, MONDAY)
    assert server.judge_requests == []  # nothing stored yet: nothing to ask
    new = say(engine, server, HONDA, FRIDAY)
    (asked,) = server.judge_requests
    assert [(f["text"], [c["text"] for c in f["candidates"]]) for f in asked] == [(HONDA, [TOYOTA])]
    assert current(engine) == {HONDA}
    assert {r.text for r in engine.list(user_id="ana").records} == {TOYOTA, HONDA}  # ADD-only
    assert shown(engine, new)["linked_memory_ids"] == [old]
    assert shown(engine, old)["superseded_by"] == new


def test_a_change_told_in_japanese_is_judged_by_the_model(engine: Engine, server: FakeOpenAI) -> None:
    server.judge = replacing(OSAKA)
    old = say(engine, server, OSAKA, MONDAY)
    new = say(engine, server, FUKUOKA, FRIDAY)
    assert current(engine) == {FUKUOKA}
    assert shown(engine, new)["linked_memory_ids"] == [old]
    # The prompt carries the texts as written, not as escapes.
    judged = server.chat_requests[-1]["messages"][-1]["content"]
    assert "大阪" in judged and "福岡" in judged


def test_when_the_model_says_nothing_is_replaced_both_stay_current(engine: Engine, server: FakeOpenAI) -> None:
    """The rule would link this pair (a move, and another city); the model's answer wins."""
    server.judge = nothing_replaced
    say(engine, server, LISBON, MONDAY)
    new = say(engine, server, PORTO, FRIDAY)
    assert len(server.judge_requests) == 1
    assert current(engine) == {LISBON, PORTO}
    assert shown(engine, new)["linked_memory_ids"] == []


def test_when_the_model_fails_the_rule_decides_and_the_add_succeeds(engine: Engine, server: FakeOpenAI) -> None:
    server.judge = lambda facts: Reply(status=500)
    old = say(engine, server, LISBON, MONDAY)
    new = say(engine, server, PORTO, FRIDAY)
    assert len(server.judge_requests) == 2  # the first attempt and the one retry
    assert current(engine) == {PORTO}
    assert shown(engine, new)["linked_memory_ids"] == [old]
    assert engine.components.language_model.judge_failures == 1  # type: ignore[attr-defined]


def test_a_reply_that_is_not_a_verdict_leaves_the_rule_to_decide(engine: Engine, server: FakeOpenAI) -> None:
    server.judge = lambda facts: "I think the user moved, so yes."
    old = say(engine, server, LISBON, MONDAY)
    new = say(engine, server, PORTO, FRIDAY)
    assert shown(engine, new)["linked_memory_ids"] == [old]
    assert engine.components.language_model.judge_failures == 1  # type: ignore[attr-defined]


def test_ids_the_model_invents_are_ignored(engine: Engine, server: FakeOpenAI) -> None:
    """Only a label the request showed for that fact counts: not another label, not another
    user's memory id, not an id made up."""
    elsewhere = say(engine, server, "The user lives in Madrid.", MONDAY, user="bo")
    old = say(engine, server, TOYOTA, MONDAY)

    def answer(facts: list[dict[str, Any]]) -> str:
        (fact,) = facts
        shown = [c["label"] for c in fact["candidates"] if c["text"] == TOYOTA]
        invented = ["m9", elsewhere, "3f1c2b9e-0000-4000-8000-000000000000"]
        return json.dumps({"verdicts": [{"fact": 0, "replaces": shown + invented}, {"fact": 7, "replaces": ["m1"]}]})

    server.judge = answer
    new = say(engine, server, HONDA, FRIDAY)
    assert shown(engine, new)["linked_memory_ids"] == [old]
    assert current(engine, "bo") == {"The user lives in Madrid."}
    assert shown(engine, elsewhere)["superseded_by"] is None


def test_a_later_memory_or_another_speakers_is_never_shown_to_the_model(engine: Engine, server: FakeOpenAI) -> None:
    """The rule's guards hold for the model too: a fact told with an earlier timestamp never
    replaces a memory observed after it, nor does one speaker's fact replace another's."""
    server.judge = replacing(TOYOTA, "Kim drives a Toyota.")
    say(engine, server, TOYOTA, FRIDAY)
    say(engine, server, HONDA, MONDAY)  # told with an earlier date: the Toyota is the later fact
    assert server.judge_requests == []
    say(engine, server, "Kim drives a Toyota.", MONDAY, user="kim-and-lee", speaker="Kim")
    say(engine, server, "Lee drives a Fiat.", MONDAY, user="kim-and-lee", speaker="Lee")
    say(engine, server, "Lee traded the Toyota in for a Honda.", FRIDAY, user="kim-and-lee", speaker="Lee")
    ((fact,),) = server.judge_requests  # Lee's change is shown Lee's own memory alone
    assert [c["text"] for c in fact["candidates"]] == ["Lee drives a Fiat."]
    assert current(engine) == {TOYOTA, HONDA}
    assert "Kim drives a Toyota." in current(engine, "kim-and-lee")


def test_one_judge_call_covers_every_fact_of_an_add(engine: Engine, server: FakeOpenAI) -> None:
    server.judge = replacing(TOYOTA, LISBON)
    say(engine, server, TOYOTA, MONDAY)
    say(engine, server, LISBON, MONDAY)
    facts = [{"text": t, "source_message": 0, "attributed_to": "user"} for t in (HONDA, "The user lives in Porto now.")]
    server.script_chat(json.dumps({"memories": facts}))
    before = len(server.judge_requests)  # the Lisbon add asked once (the Toyota was its candidate)
    engine.add("I swapped my Toyota for a Honda and I live in Porto now.", user_id="ana", timestamp=FRIDAY)
    (asked,) = server.judge_requests[before:]
    assert [f["text"] for f in asked] == [HONDA, "The user lives in Porto now."]
    assert current(engine) == {HONDA, "The user lives in Porto now."}


def test_with_the_option_off_no_judge_request_is_sent_and_the_rule_decides(server: FakeOpenAI, tmp_path: Path) -> None:
    server.judge = nothing_replaced
    engine = open_engine(server, tmp_path, judge_supersession=False)
    try:
        old = say(engine, server, LISBON, MONDAY)
        new = say(engine, server, PORTO, FRIDAY)
        assert server.judge_requests == []
        assert len(server.chat_requests) == 2  # the two extractions only
        assert shown(engine, new)["linked_memory_ids"] == [old]
    finally:
        engine.close()


def test_the_offline_heuristic_model_does_not_judge_and_the_rule_decides(tmp_path: Path) -> None:
    engine = Engine.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing]))
    try:
        candidate = CandidateMemory(id="m", text=LISBON, observed_at=utcnow())
        asked = [FactWithCandidates(text=PORTO, observed_at=utcnow(), candidates=(candidate,))]
        assert engine.components.language_model.replaced_memories(asked) is None
        engine.add("I live in Lisbon.", user_id="ana", timestamp=MONDAY)
        engine.add("I moved to Porto.", user_id="ana", timestamp=FRIDAY)
        (now,) = engine.list(user_id="ana", latest_only=True).records
        assert "Porto" in now.text
    finally:
        engine.close()


class ScriptedJudge(HeuristicExtractor):
    """A third-party model whose judgment is whatever the test sets (or an exception)."""

    name: ClassVar[str] = "scripted-judge"
    answer: list[list[str]] | None | Exception = None

    def replaced_memories(self, facts: Sequence[FactWithCandidates]) -> list[list[str]] | None:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def record(text: str, when: datetime, speaker: str | None = None) -> MemoryRecord:
    return MemoryRecord(
        id=text, text=text, hash=text, observed_at=when, created_at=when, updated_at=when, speaker=speaker
    )


@pytest.mark.parametrize(
    ("answer", "judged"),
    [
        ([["Lisbon", "Madrid", "invented"]], [["Lisbon"]]),  # only the fact's own candidates
        ([[]], [[]]),
        ([["Lisbon"], ["Lisbon"]], None),  # not one list per fact: the rule decides
        (None, None),
        (ProviderError("the model is down"), None),  # a model that raises: the rule decides
    ],
)
def test_the_engine_holds_any_models_answer_to_the_candidates_it_showed(
    tmp_path: Path, answer: Any, judged: list[list[str]] | None
) -> None:
    model = ScriptedJudge(ScriptedJudge.Options(), ProviderContext(data_dir=tmp_path))
    model.answer = answer
    monday, friday = datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 6, tzinfo=UTC)
    newer = record("Porto", friday)
    near = [record("Lisbon", monday), record("Madrid", friday.replace(day=7)), record("Kim's", monday, "Kim")]
    found = judge(model, [newer], [near])
    assert (None if found is None else [[r.id for r in gone] for gone in found]) == judged


def _judgments(outcome: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("memorist_supersession_judgments_total", {"outcome": outcome}) or 0.0


def test_each_judgment_is_counted_by_its_outcome(engine: Engine, server: FakeOpenAI) -> None:
    """An operator sees how often the model decided and how often the rule stood in for it."""
    before = {outcome: _judgments(outcome) for outcome in ("judged", "declined")}
    server.judge = replacing(LISBON)
    say(engine, server, LISBON, MONDAY)  # nothing stored yet: no question, nothing counted
    say(engine, server, PORTO, FRIDAY)
    assert _judgments("judged") == before["judged"] + 1
    server.judge = lambda facts: Reply(status=500)
    say(engine, server, "The user moved to Braga.", "2026-03-09T09:00:00Z")
    assert _judgments("declined") == before["declined"] + 1  # the plugin's failure: None, the rule decided


def test_a_batched_add_is_judged_as_a_single_add_is(engine: Engine, server: FakeOpenAI) -> None:
    """``add_many`` (bulk import) stores through the same judge: the model's answer wins there too."""
    server.judge = nothing_replaced
    say(engine, server, LISBON, MONDAY)
    server.script_chat(json.dumps({"memories": [{"text": PORTO, "source_message": 0, "attributed_to": "user"}]}))
    request = engine.add_request([{"role": "user", "content": PORTO}], user_id="ana", timestamp=FRIDAY)
    (outcome,) = engine.add_many([request])
    assert [r.text for r in outcome.stored] == [PORTO]
    assert len(server.judge_requests) == 1
    assert current(engine) == {LISBON, PORTO}  # the rule would have linked the move
