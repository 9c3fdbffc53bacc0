"""The memory engine through the Python API, on LanceDB and SQLite files."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memorist import Engine as Memory
from memorist.errors import InvalidFilterError, NotFoundError, ValidationError
from memorist.plugin.manager import load_plugins

from tests.conftest import fast_settings
from tests.plugins import hashing, recorder

OBSERVED = "2023-05-08T13:56:00+00:00"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    recorder.EVENTS.clear()
    mem = Memory.from_config(fast_settings(tmp_path), plugins=load_plugins({}, extra=[hashing, recorder]))
    yield mem
    mem.close()


def say(memory: Memory, text: str, speaker: str = "Caroline", user: str = "u1", **kwargs: object) -> list:
    kwargs.setdefault("timestamp", OBSERVED)
    return memory.add([{"role": "user", "content": text, "name": speaker}], user_id=user, **kwargs)


def test_add_extracts_standalone_memories_with_resolved_dates(memory: Memory) -> None:
    stored = say(memory, "Hey Mel! I went to a LGBTQ support group yesterday. How are you?")
    assert [r.text for r in stored] == ["Caroline went to a LGBTQ support group yesterday (7 May 2023)."]
    record = stored[0]
    assert record.speaker == "Caroline" and record.attributed_to == "user"
    assert record.source_message == 0
    assert record.observed_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_assistant_facts_are_stored_with_attribution(memory: Memory) -> None:
    stored = memory.add(
        [
            {"role": "user", "content": "What should I read next?"},
            {
                "role": "assistant",
                "content": "I recommend Dune by Frank Herbert; it fits your love of epic worlds.",
            },
        ],
        user_id="u1",
    )
    assert len(stored) == 1
    assert stored[0].attributed_to == "assistant" and stored[0].source_message == 1
    assert "Dune" in stored[0].text
    assert memory.search("Did the assistant recommend Dune?", user_id="u1")[0].record.id == stored[0].id


def test_add_only_a_changed_fact_is_kept_beside_the_old_one(memory: Memory) -> None:
    old = say(memory, "I live in Boston with my partner.", timestamp="2023-01-01")
    new = say(memory, "I moved to Denver last month for a new job.", timestamp="2023-06-01")
    texts = {r.text for r in memory.list(user_id="u1").records}
    assert old[0].text in texts and new[0].text in texts
    assert memory.get(old[0].id).text == old[0].text  # never rewritten by extraction
    # Kept, and marked as replaced by the newer fact (docs/memory-rules.md, "Facts over time").
    assert [h["event"] for h in memory.history(old[0].id)] == ["ADD", "SUPERSEDED"]


def test_exact_duplicates_are_not_stored_twice(memory: Memory) -> None:
    assert len(say(memory, "I adopted a puppy named Rex.")) == 1
    assert say(memory, "I  adopted a PUPPY named rex") == []  # case, spaces, final punctuation
    assert say(memory, "I adopted a puppy named Rex.", user="u2")  # another scope: stored
    assert memory.list(user_id="u1").total == 1


def test_near_duplicates_in_one_scope_are_not_stored_twice(memory: Memory) -> None:
    say(memory, "I adopted a puppy named Rex last spring.")
    # Same words, other punctuation: a new hash but cosine 1.0 with the hashing embedder.
    assert say(memory, "I adopted, last spring, a puppy named Rex!") == []
    assert say(memory, "I adopted a kitten named Tom.") != []


def test_duplicates_within_one_add_are_stored_once(memory: Memory) -> None:
    stored = memory.add(["I love green tea.", "I love green tea."], user_id="u1", infer=False)
    assert len(stored) == 1


def test_add_inherits_metadata_and_expiration(memory: Memory) -> None:
    stored = say(
        memory,
        "I run every morning before work.",
        metadata={"dia_id": "D1:3", "source": "chat"},
        expiration_date="2099-01-01",
    )
    assert stored[0].metadata == {"dia_id": "D1:3", "source": "chat"}
    assert stored[0].expires_at is not None and stored[0].expires_at.year == 2099


def test_expired_memories_are_hidden_unless_asked(memory: Memory) -> None:
    past = (datetime.now(UTC) - timedelta(days=2)).isoformat()
    say(memory, "I am visiting Lisbon this week for a conference.", expiration_date=past)
    say(memory, "I play the violin in a community orchestra.")
    assert memory.list(user_id="u1").total == 1
    assert memory.list(user_id="u1", show_expired=True).total == 2
    assert all("Lisbon" not in h.record.text for h in memory.search("Lisbon conference", user_id="u1", threshold=0))
    assert any("Lisbon" in h.record.text for h in memory.search("Lisbon conference", user_id="u1", show_expired=True))


def test_infer_false_stores_messages_verbatim(memory: Memory) -> None:
    stored = memory.add(
        [
            {"role": "system", "content": "be nice"},
            {"role": "user", "content": "hi there, I'm Sam"},
        ],
        user_id="u1",
        infer=False,
    )
    assert [r.text for r in stored] == ["hi there, I'm Sam"]


def test_custom_categories_and_exclusions_reach_the_extractor(memory: Memory) -> None:
    stored = say(
        memory,
        "I started a pottery class on Tuesdays. My doctor says my blood pressure is high.",
        custom_categories=[
            {"crafts": "pottery, knitting and other handmade work"},
            {"medical": "doctor visits"},
        ],
        excludes="blood pressure",
    )
    assert len(stored) == 1
    assert "pottery" in stored[0].text and "blood" not in stored[0].text
    assert stored[0].categories == ["crafts"]


def test_default_categories_by_keyword(memory: Memory) -> None:
    stored = say(memory, "My sister and I went hiking in the mountains on our trip.")
    assert {"family", "sports", "travel"} <= set(stored[0].categories)


def test_an_identifier_is_required(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        memory.add("I like tea.")


def test_search_scores_are_in_range_and_deterministic(memory: Memory) -> None:
    for text in [
        "I love hiking in the Alps.",
        "I work as a nurse in Denver.",
        "My dog Rex loves the beach.",
    ]:
        say(memory, text)
    first = memory.search("Where does Caroline work?", user_id="u1", threshold=0.0, explain=True)
    second = memory.search("Where does Caroline work?", user_id="u1", threshold=0.0, explain=True)
    assert [(h.record.id, h.score) for h in first] == [(h.record.id, h.score) for h in second]
    assert all(0.0 <= h.score <= 1.0 for h in first)
    assert "nurse" in first[0].record.text


def test_a_memory_deleted_while_a_search_ranks_is_left_out_and_the_next_fills_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The store path, which reads the winners' records after ranking (the scope index holds
    # them in its snapshot: a search that began before a delete answers as of its start).
    settings = fast_settings(tmp_path, engine={"scope_index": False})
    memory = Memory.from_config(settings, plugins=load_plugins({}, extra=[hashing, recorder]))
    for text in ["I work as a nurse in Denver.", "I love hiking in the Alps.", "My dog Rex loves the beach."]:
        say(memory, text)
    before = memory.search("Where does Caroline work?", user_id="u1", top_k=2, threshold=0.0)
    store = memory.components.vector_store
    fetch = store.fetch

    def delete_then_fetch(matches: list) -> dict:
        # Another request deletes the best hit after the retrievers saw it, before its record is read.
        if before[0].record.id in {m.id for m in matches}:
            store.delete([before[0].record.id])
        return fetch(matches)

    monkeypatch.setattr(store, "fetch", delete_then_fetch)
    try:
        after = memory.search("Where does Caroline work?", user_id="u1", top_k=2, threshold=0.0)
    finally:
        memory.close()
    assert [h.record.id for h in after][:1] == [before[1].record.id]
    assert len(after) == 2 and before[0].record.id not in {h.record.id for h in after}


def test_explain_returns_every_signal(memory: Memory) -> None:
    say(memory, "I ran a charity race for mental health.", speaker="Melanie")
    hit = memory.search("Did Melanie run a charity race?", user_id="u1", explain=True)[0]
    details = hit.details
    assert details is not None
    assert set(details) >= {"semantic", "keyword", "keyword_bm25", "entity", "temporal", "score"}
    assert details["keyword"] > 0 and details["entity"] > 0
    assert details["score"] == pytest.approx(hit.score, abs=1e-6)
    assert "charity race" in details["matched_entities"]
    assert memory.search("Did Melanie run a charity race?", user_id="u1")[0].details is None


def test_entity_signal_finds_memories_by_a_rare_entity(memory: Memory) -> None:
    say(memory, "I visited Zanzibar with my cousin.")
    for i in range(20):
        say(memory, f"I went grocery shopping on day number {i} and bought apples {i}.")
    hit = memory.search("Zanzibar", user_id="u1", explain=True)[0]
    assert "Zanzibar" in hit.record.text and hit.details["entity"] == pytest.approx(1.0)


def test_entity_variants_are_merged(memory: Memory) -> None:
    say(memory, "I baked bread with Melanie on Sunday.")
    say(memory, "Mel and I went to the   new york  museum.")
    say(memory, "I love the New York skyline.")
    graph = memory.graph
    mel = graph.match([_mention("Mel")], None)
    melanie = graph.match([_mention("Melanie")], None)
    assert mel and melanie and mel[0].entity_id == melanie[0].entity_id
    ny = graph.match([_mention("NEW YORK", "noun_phrase")], None)
    assert len(ny) == 1


def test_entity_graph_is_per_user(memory: Memory) -> None:
    say(memory, "I met Gertrude at the library.", user="u1")
    say(memory, "I met Gertrude at the gym.", user="u2")
    from memorist.engine.entities import scope_key
    from memorist.records import Scope

    for user in ("u1", "u2"):
        matches = memory.graph.match([_mention("Gertrude")], [scope_key(Scope(user_id=user))])
        assert len(matches) == 1
    hits = memory.search("Gertrude", user_id="u2", threshold=0)
    assert all(h.record.user_id == "u2" for h in hits)


def _mention(text: str, kind: str = "proper_noun"):  # type: ignore[no-untyped-def]
    from memorist.records import EntityMention

    return EntityMention(text=text, kind=kind)  # type: ignore[arg-type]


def test_temporal_signal_favours_memories_of_the_named_period(memory: Memory) -> None:
    say(memory, "I went camping with the kids.", timestamp="2023-05-20")
    say(memory, "I went camping with friends.", timestamp="2023-09-02")
    hits = memory.search("camping in September 2023", user_id="u1", explain=True, threshold=0)
    assert "friends" in hits[0].record.text
    assert hits[0].details["temporal"] == 1.0 and hits[1].details["temporal"] < 0.1


@pytest.mark.parametrize("top_k", [0, 1001, -5])
def test_top_k_bounds(memory: Memory, top_k: int) -> None:
    with pytest.raises(ValidationError, match="top_k"):
        memory.search("anything", user_id="u1", top_k=top_k)


def test_top_k_limits_and_threshold_filters(memory: Memory) -> None:
    for i in range(15):
        memory.add(f"note {i} about gardening tomatoes", user_id="u1", infer=False)
    assert len(memory.search("gardening tomatoes", user_id="u1", top_k=1)) == 1
    assert len(memory.search("gardening tomatoes", user_id="u1", top_k=1000, threshold=0)) == 15
    assert memory.search("quantum chromodynamics", user_id="u1", threshold=0.5) == []
    with pytest.raises(ValidationError, match="threshold"):
        memory.search("x", user_id="u1", threshold=1.5)


def test_rerank_uses_the_configured_reranker(memory: Memory) -> None:
    for text in ["I love green tea.", "I love green tea a lot!", "I love hiking."]:
        memory.add(text, user_id="u1", infer=False)
    hits = memory.search("green tea", user_id="u1", rerank=True, top_k=2, threshold=0, explain=True)
    assert len(hits) == 2 and all("reranked_score" in h.details for h in hits)


FILTER_CASES = [
    ({"user_id": "u1"}, {"a", "b", "c"}),
    ({"user_id": "*"}, {"a", "b", "c", "d"}),
    ({"agent_id": "*"}, {"d"}),
    ({"metadata.topic": "food"}, {"a", "d"}),
    ({"metadata": {"topic": "food"}}, {"a", "d"}),
    ({"metadata.rank": {"gt": 1}}, {"b", "c"}),
    ({"metadata.rank": {"gte": 2, "lt": 3}}, {"b"}),
    ({"metadata.rank": {"lte": 1}}, {"a", "d"}),
    ({"metadata.topic": {"ne": "food"}}, {"b", "c"}),
    ({"metadata.topic": {"in": ["work", "sport"]}}, {"b", "c"}),
    ({"metadata.topic": {"nin": ["work", "sport"]}}, {"a", "d"}),
    ({"metadata.note": {"contains": "Blue"}}, {"a"}),
    ({"metadata.note": {"icontains": "blue"}}, {"a", "b"}),
    ({"categories": {"contains": "hob"}}, {"c"}),
    ({"categories": {"in": ["food"]}}, {"a", "d"}),
    ({"AND": [{"user_id": "u1"}, {"metadata.rank": {"gt": 1}}]}, {"b", "c"}),
    ({"OR": [{"metadata.topic": "sport"}, {"agent_id": "bot"}]}, {"c", "d"}),
    ({"NOT": {"metadata.topic": "food"}}, {"b", "c"}),
    (
        {
            "AND": [
                {"OR": [{"user_id": "u1"}, {"agent_id": "bot"}]},
                {"NOT": {"metadata.rank": {"in": [1, 3]}}},
            ]
        },
        {"b"},
    ),
    ({"created_at": {"gte": "2000-01-01T00:00:00Z"}}, {"a", "b", "c", "d"}),
    ({"created_at": {"lt": "2000-01-01"}}, set()),
]


@pytest.fixture(scope="module")
def filter_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Memory, dict[str, str]]]:
    """An engine holding four memories across scopes, metadata and categories, and their names
    by id: built once for the filter cases, which only list and search it."""
    data_dir = tmp_path_factory.mktemp("filters")
    memory = Memory.from_config(fast_settings(data_dir), plugins=load_plugins({}, extra=[hashing]))
    try:
        yield memory, _fill_filter_memory(memory)
    finally:
        memory.close()


def _fill_filter_memory(memory: Memory) -> dict[str, str]:
    ids = {}
    rows = [
        ("a", dict(user_id="u1"), {"topic": "food", "rank": 1, "note": "Blue cheese"}, ["food"]),
        ("b", dict(user_id="u1"), {"topic": "work", "rank": 2, "note": "BLUE sky"}, ["work"]),
        ("c", dict(user_id="u1"), {"topic": "sport", "rank": 3, "note": "green"}, ["hobbies"]),
        (
            "d",
            dict(user_id="u9", agent_id="bot"),
            {"topic": "food", "rank": 1, "note": "red"},
            ["food"],
        ),
    ]
    for name, scope, meta, cats in rows:
        stored = memory.add(f"memory {name} text", infer=False, metadata=meta, custom_categories=cats, **scope)
        memory.update(stored[0].id, metadata=meta)
        ids[stored[0].id] = name
    # Categories are set explicitly for verbatim adds through update of the record.
    for memory_id, name in ids.items():
        record = memory.get(memory_id)
        cats = {"a": ["food"], "b": ["work"], "c": ["hobbies"], "d": ["food"]}[name]
        memory.components.vector_store.upsert(
            [record.model_copy(update={"categories": cats})],
            memory.components.embedder.embed([record.text]),
        )
    return ids


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES)
def test_filters_on_list_and_search(
    filter_memory: tuple[Memory, dict[str, str]], filters: dict, expected: set[str]
) -> None:
    memory, names = filter_memory
    listed = {names[r.id] for r in memory.list(filters).records}
    assert listed == expected
    searched = {names[h.record.id] for h in memory.search("memory text", filters=filters, top_k=50, threshold=0)}
    assert searched == expected


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"colour": "red"}, "unknown filter field 'colour'"),
        ({"user_id": {"like": "u%"}}, "unknown operator 'like'"),
        ({"metadata.rank": {"in": 3}}, "needs a list"),
        ({"OR": []}, "non-empty list"),
    ],
)
def test_bad_filters_are_clear_errors(memory: Memory, filters: dict, message: str) -> None:
    with pytest.raises(InvalidFilterError, match=message):
        memory.list(filters)


def test_list_is_paginated_newest_first(memory: Memory) -> None:
    for i in range(7):
        memory.add(f"fact number {i}", user_id="u1", infer=False)
    page1 = memory.list(user_id="u1", page=1, page_size=3)
    page3 = memory.list(user_id="u1", page=3, page_size=3)
    assert page1.total == 7 and [r.text for r in page1.records] == [
        "fact number 6",
        "fact number 5",
        "fact number 4",
    ]
    assert [r.text for r in page3.records] == ["fact number 0"]


def test_update_delete_and_history(memory: Memory) -> None:
    record = say(memory, "I work at a bakery downtown.")[0]
    updated = memory.update(record.id, text="Caroline works at a bookstore downtown.", metadata={"checked": True})
    assert memory.get(record.id).text == updated.text and updated.metadata == {"checked": True}
    memory.delete(record.id)
    with pytest.raises(NotFoundError):
        memory.get(record.id)
    events = memory.history(record.id)
    assert [e["event"] for e in events] == ["ADD", "UPDATE", "DELETE"]
    assert events[1]["old_memory"] == record.text and events[1]["new_memory"] == updated.text
    assert [e[0] for e in recorder.EVENTS] == ["added", "updated", "deleted"]
    assert recorder.EVENTS[1][2] == record.text


def test_unknown_memory_is_not_found(memory: Memory) -> None:
    for call in (memory.get, memory.delete, memory.history):
        with pytest.raises(NotFoundError):
            call("no-such-id")
    with pytest.raises(NotFoundError):
        memory.update("no-such-id", text="x")


def test_delete_all_is_never_capped_and_keeps_other_scopes(memory: Memory) -> None:
    memory.add([f"item {i}" for i in range(1200)], user_id="big", infer=False)
    memory.add("other user's item", user_id="small", infer=False)
    assert memory.delete_all(user_id="big") == 1200
    assert memory.list(user_id="big").total == 0
    assert memory.list(user_id="small").total == 1
    with pytest.raises(ValidationError):
        memory.delete_all()


def test_other_projects_are_invisible(memory: Memory) -> None:
    mine = memory.add("secret plan", user_id="u1", infer=False, org_id="o1", project_id="p1")[0]
    assert memory.list(user_id="u1").total == 0
    assert memory.search("secret plan", user_id="u1", threshold=0) == []
    with pytest.raises(NotFoundError):
        memory.get(mine.id)
    assert memory.get(mine.id, org_id="o1", project_id="p1").text == "secret plan"


def test_reset_deletes_everything(memory: Memory) -> None:
    say(memory, "I collect vintage stamps from Norway.")
    memory.reset()
    assert memory.list(user_id="u1").total == 0
    assert memory.graph.match([_mention("Norway")], None) == []
    assert say(memory, "I collect vintage stamps from Norway.")  # store still usable


def test_memories_persist_across_restarts(tmp_path: Path) -> None:
    plugins = load_plugins({}, extra=[hashing])
    first = Memory.from_config(fast_settings(tmp_path), plugins=plugins)
    stored = first.add("I speak Portuguese fluently.", user_id="u1", infer=False)
    first.close()
    second = Memory.from_config(fast_settings(tmp_path), plugins=plugins)
    assert second.get(stored[0].id).text == "I speak Portuguese fluently."
    assert second.history(stored[0].id)[0]["event"] == "ADD"


def test_entity_counts_follow_adds_and_deletes(memory: Memory) -> None:
    first = memory.add(["fact one", "fact two"], user_id="u1", infer=False)
    memory.add("agent fact", user_id="u1", agent_id="bot", infer=False)
    counts = {(c.entity_type, c.entity_id): c.total for c in memory.counts.list("default", "default")}
    assert counts == {("user", "u1"): 3, ("agent", "bot"): 1}
    memory.delete(first[0].id)
    memory.delete_all(agent_id="bot")
    counts = {(c.entity_type, c.entity_id): c.total for c in memory.counts.list("default", "default")}
    assert counts == {("user", "u1"): 1}


def test_overlong_identifiers_are_refused_on_every_database(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        memory.add("too long", user_id="u" * 300, infer=False)


def test_one_add_naming_several_new_people_reads_the_scopes_names_once(memory: Memory) -> None:
    """Every unknown proper noun of an add is matched against the scope's known ones: read once per
    add (a memory naming three new people read them three times), yet a name that extends one the
    same add created ("Melanie Smith" after "Melanie") still joins it, as across adds."""
    from memorist.engine.entities import scope_key
    from memorist.records import MemoryRecord, Scope
    from sqlalchemy import event, text

    say(memory, "I baked bread with Gertrude on Sunday.")
    now = datetime.now(UTC)
    record = MemoryRecord(
        id="m-names", text="-", hash="-", user_id="u1", observed_at=now, created_at=now, updated_at=now
    )
    mentions = [_mention("Melanie"), _mention("Oscar"), _mention("Melanie Smith"), _mention("Gert"), _mention("Priya")]
    reads: list[str] = []

    def count(conn, cursor, statement, params, context, executemany):  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("SELECT") and "proper_noun" in str(params) + statement:
            reads.append(statement)

    engine = memory.db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        with memory.db.begin() as conn:
            linked = memory.graph.link(record, mentions, conn)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(reads) == 1
    key = scope_key(Scope(user_id="u1"))
    gertrude = memory.graph.match([_mention("Gertrude")], [key])[0].entity_id
    melanie = memory.graph.match([_mention("Melanie")], [key])[0].entity_id
    assert memory.graph.match([_mention("Melanie Smith")], [key])[0].entity_id == melanie
    assert len(linked) == 4 and gertrude in linked and melanie in linked  # Melanie, Oscar, Gertrude, Priya
    with memory.db.connect() as conn:
        names = {str(i): str(n) for i, n in conn.execute(text("SELECT id, name FROM entities"))}
    assert names[melanie] == "Melanie Smith"


def test_in_a_scope_with_no_names_yet_a_longer_name_joins_the_one_the_same_add_created(memory: Memory) -> None:
    """The first names of a scope: "Melanie Smith" after "Melanie" in one add is one person, as across adds."""
    from memorist.engine.entities import scope_key
    from memorist.records import MemoryRecord, Scope

    now = datetime.now(UTC)
    record = MemoryRecord(
        id="m-first", text="-", hash="-", user_id="fresh", observed_at=now, created_at=now, updated_at=now
    )
    with memory.db.begin() as conn:
        linked = memory.graph.link(record, [_mention("Melanie"), _mention("Melanie Smith")], conn)
    key = scope_key(Scope(user_id="fresh"))
    melanie = memory.graph.match([_mention("Melanie")], [key])[0].entity_id
    assert linked == [melanie]
    assert memory.graph.match([_mention("Melanie Smith")], [key])[0].entity_id == melanie
