"""An agent's turn finds the fact it needs (issue 35, parts 2-3), in several languages.

Agent frameworks built on mem0's clients search with the user's latest message ("Can you
suggest a dinner recipe for tonight?"), not with a question about a fact. With the default
embedded configuration (real MiniLM, real LanceDB, the heuristic extractor), the fact the
user stated earlier must come back in the top 3 above the v3 default threshold 0.1, and a
request nothing stored answers must not look like an answer (its best hit below 0.2 on the
calibrated scale, see ``memorist.engine.calibration``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from memorist import Engine as Memory

#: What one user said, per language: the same five facts, each in one message.
SAID = {
    "en": (
        "I'm vegetarian.",
        "I work night shifts as a nurse.",
        "My brother lives in Toronto.",
        "I'm afraid of flying.",
        "I go to the gym on Tuesdays.",
    ),
    "es": (
        "No como carne, soy vegetariana.",
        "Trabajo de noche como enfermera.",
        "Mi hermano vive en Toronto.",
        "Me da miedo volar.",
        "Voy al gimnasio los martes.",
    ),
    "de": (
        "Ich bin Vegetarierin.",
        "Ich arbeite nachts als Krankenschwester.",
        "Mein Bruder wohnt in Toronto.",
        "Ich habe Flugangst.",
        "Dienstags gehe ich ins Fitnessstudio.",
    ),
    "ja": (
        "私はベジタリアンです。",
        "私は夜勤の看護師です。",
        "兄はトロントに住んでいます。",
        "飛行機が怖いです。",
        "火曜日はジムに行きます。",
    ),
}

#: (language, the agent's turn, the index in SAID of the fact it needs).
TURNS = [
    ("en", "Can you suggest a dinner recipe for tonight?", 0),
    ("en", "What should I get my brother for his birthday?", 2),
    ("en", "Help me plan a trip to Rome next month.", 3),
    ("es", "Ayúdame a planear un viaje a Roma, sin volar.", 3),
    ("es", "¿Qué le regalo a mi hermano por su cumpleaños?", 2),
    ("es", "¿Me sugieres una receta para cenar esta noche?", 0),
    ("de", "Kannst du mir ein Rezept fürs Abendessen vorschlagen? Bitte vegetarisch.", 0),
    ("de", "Was soll ich meinem Bruder zum Geburtstag schenken?", 2),
    ("de", "Wann passt mir ein Training im Fitnessstudio?", 4),
    ("ja", "兄の誕生日プレゼントは何がいいですか？", 2),
    ("ja", "ジムに行く日を決めたい。", 4),
]


@pytest.fixture(scope="module")
def memories(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Memory, list[str]]]]:
    """One default engine holding each language's user (her memories' ids, in SAID's order)."""
    memory = Memory.from_config({"data_dir": str(tmp_path_factory.mktemp("agent-turns"))})
    stored: dict[str, tuple[Memory, list[str]]] = {}
    try:
        for language, statements in SAID.items():
            ids = []
            for text in statements:
                added = memory.add([{"role": "user", "content": text}], user_id=f"user-{language}")
                assert len(added) == 1, (text, [r.text for r in added])
                ids.append(added[0].id)
            stored[language] = (memory, ids)
        yield stored
    finally:
        memory.close()


@pytest.mark.parametrize(("language", "turn", "needed"), TURNS)
def test_an_agents_turn_finds_the_stated_fact_above_the_default_threshold(
    memories: dict[str, tuple[Memory, list[str]]], language: str, turn: str, needed: int
) -> None:
    memory, ids = memories[language]
    hits = memory.search(turn, user_id=f"user-{language}", top_k=3, threshold=0.1)
    assert ids[needed] in [h.record.id for h in hits], [(h.record.text, round(h.score, 3)) for h in hits]


def test_the_scopes_are_apart(memories: dict[str, tuple[Memory, list[str]]]) -> None:
    """Each language's user sees only her own memories (the turns above are not helped by another's)."""
    memory, ids = memories["en"]
    found = {h.record.id for h in memory.search("vegetarian", user_id="user-en", top_k=20, threshold=0.0)}
    assert found <= set(ids)


@pytest.mark.parametrize("request_text", ["What's the capital of Australia?", "How tall is Mount Everest?"])
def test_a_request_nothing_answers_scores_below_related(
    memories: dict[str, tuple[Memory, list[str]]], request_text: str
) -> None:
    memory, _ = memories["en"]
    best = memory.search(request_text, user_id="user-en", top_k=1, threshold=0.0)
    assert best and best[0].score < 0.2, [(h.record.text, h.score) for h in best]
    # ... while the answer to a question about a stored fact is on the "answers" side of the scale.
    answer = memory.search("Where does my brother live?", user_id="user-en", top_k=1)
    assert answer[0].record.text == "The user's brother lives in Toronto." and answer[0].score >= 0.5
