"""A memory read within its exchange (memorist.engine.neighbour_vectors), with the real embedder.

"Honestly it was the best time, they loved catching fish!" answers "What did Lena do with
her kids at the lake?" only next to the turns before it; alone, MiniLM puts a turn about
another lake, in another conversation, closer to the question. With
``engine.neighbour_weight`` on, the turn's semantic signal is also read from its vector
blended with its session neighbours', and the exchange's turns rank first (in German,
which the English MiniLM reads less well, the turn climbs from 11th to 6th). The session
pass and the context signal (which read the exchange through scores) are off here, so the
test sees this mechanism alone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from memorist import Engine
from memorist.config.settings import load_settings
from memorist.engine.neighbour_vectors import neighbour_matrix
from memorist.engine.scope_snapshot import Pinned, Snapshot
from memorist.records import MemoryRecord

#: (question, sessions of "speaker: turn", the chatty turn that answers in its exchange,
#: the first turn of its exchange, a distractor from another session) per language.
CASES: dict[str, tuple[str, list[list[str]], str, str]] = {
    "en": (
        "What did Lena do with her kids at the lake?",
        [
            [
                "Lena: We spent the whole weekend at the lake with the kids.",
                "Lena: We rented a little boat and went out every morning.",
                "Lena: Honestly it was the best time, they loved catching fish!",
                "Omar: That sounds wonderful.",
            ],
            [
                "Lena: My new job at the bank starts on Monday.",
                "Omar: Congratulations, you earned it!",
                "Lena: The commute is only twenty minutes by train.",
            ],
            [
                "Omar: I finally fixed the old bike in the garage.",
                "Lena: Nice, was it hard?",
                "Omar: Not really, the chain just needed oil.",
            ],
            [
                "Omar: The lake near my parents' house freezes every winter.",
                "Lena: Do your kids skate on it?",
                "Omar: Sometimes, when the ice is thick enough.",
            ],
        ],
        "Honestly it was the best time, they loved catching fish!",
        "We spent the whole weekend at the lake with the kids.",
    ),
    "de": (
        "Was hat Lena mit ihren Kindern am See gemacht?",
        [
            [
                "Lena: Wir waren das ganze Wochenende mit den Kindern am See.",
                "Lena: Wir haben ein kleines Boot gemietet und sind jeden Morgen rausgefahren.",
                "Lena: Ehrlich, es war die schönste Zeit, sie haben so gern Fische gefangen!",
                "Omar: Das klingt wunderbar.",
            ],
            [
                "Lena: Meine neue Stelle bei der Bank fängt am Montag an.",
                "Omar: Glückwunsch, das hast du dir verdient!",
                "Lena: Mit dem Zug brauche ich nur zwanzig Minuten.",
            ],
            [
                "Omar: Ich habe endlich das alte Fahrrad in der Garage repariert.",
                "Lena: Schön, war es schwer?",
                "Omar: Nicht wirklich, die Kette brauchte nur Öl.",
            ],
            [
                "Omar: Der See bei meinen Eltern friert jeden Winter zu.",
                "Lena: Laufen deine Kinder dort Schlittschuh?",
                "Omar: Manchmal, wenn das Eis dick genug ist.",
            ],
        ],
        "Ehrlich, es war die schönste Zeit, sie haben so gern Fische gefangen!",
        "Wir waren das ganze Wochenende mit den Kindern am See.",
    ),
}


def _engine(tmp_path: Path, **engine: Any) -> Engine:
    """The default embedded configuration, the passes that read the exchange by score off."""
    settings = {"session_weight": 0.0, "context_weight": 0.0, **engine}
    return Engine.from_settings(load_settings(None, {"data_dir": str(tmp_path), "engine": settings}))


def _store(memory: Engine, sessions: list[list[str]]) -> None:
    """Each session a month apart, its turns a minute apart, one add per turn."""
    start = datetime(2024, 3, 2, 10, tzinfo=UTC)
    for s, turns in enumerate(sessions):
        for t, line in enumerate(turns):
            speaker, said = line.split(": ", 1)
            memory.add(
                [{"role": "user", "content": said, "name": speaker}],
                user_id="lena",
                infer=False,
                timestamp=start + timedelta(days=31 * s, minutes=t),
            )


def _ranking(memory: Engine, question: str) -> list[tuple[str, float]]:
    hits = memory.search(question, user_id="lena", top_k=50, threshold=0.0, explain=True)
    return [(h.record.text, h.details["semantic"]) for h in hits]  # type: ignore[index]


@pytest.fixture(params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> tuple[str, list[list[str]], str, str]:
    return CASES[request.param]


def test_a_turn_that_answers_in_its_exchange_ranks_with_it(
    tmp_path: Path, case: tuple[str, list[list[str]], str, str]
) -> None:
    question, sessions, chatty, opener = case
    plain, read = _engine(tmp_path / "plain"), _engine(tmp_path / "read", neighbour_weight=0.5)
    try:
        _store(plain, sessions)
        _store(read, sessions)
        before, after = _ranking(plain, question), _ranking(read, question)
        texts_before, texts_after = [t for t, _ in before], [t for t, _ in after]
        # Alone, the chatty turn ranks below turns about another lake in another session;
        # read within its exchange it climbs past them, the exchange's opener staying first.
        assert chatty not in texts_before[:3]
        assert texts_after.index(chatty) < texts_before.index(chatty)
        assert texts_after[0] == opener == texts_before[0]
        if question.startswith("What"):  # in the embedder's own language: among the first three
            assert chatty in texts_after[:3]
        semantic_before, semantic_after = dict(before), dict(after)
        assert semantic_after[chatty] > semantic_before[chatty]
        # Never lowered: the exchange can only lift a turn.
        assert all(semantic_after[t] >= semantic_before[t] - 1e-6 for t in semantic_before)
    finally:
        plain.close()
        read.close()


def test_off_by_default_the_ranking_is_the_plain_one(tmp_path: Path) -> None:
    question, sessions, _, _ = CASES["en"]
    default, off = _engine(tmp_path / "default"), _engine(tmp_path / "off", neighbour_weight=0.0)
    try:
        _store(default, sessions)
        _store(off, sessions)
        assert _ranking(default, question) == _ranking(off, question)
    finally:
        default.close()
        off.close()


def test_a_turn_added_after_the_scope_was_loaded_is_read_in_its_exchange(tmp_path: Path) -> None:
    """Read-your-writes: the next search's snapshot holds the new turns and their vectors."""
    question, sessions, chatty, _ = CASES["en"]
    memory = _engine(tmp_path, neighbour_weight=0.5)
    try:
        _store(memory, sessions[1:])
        assert chatty not in [t for t, _ in _ranking(memory, question)]  # loads the snapshot
        start = datetime(2024, 7, 2, 10, tzinfo=UTC)
        for t, line in enumerate(sessions[0]):
            speaker, said = line.split(": ", 1)
            memory.add(
                [{"role": "user", "content": said, "name": speaker}],
                user_id="lena",
                infer=False,
                timestamp=start + timedelta(minutes=t),
            )
        assert chatty in [t for t, _ in _ranking(memory, question)][:3]
    finally:
        memory.close()


# --- the matrix alone ------------------------------------------------------------------------------


def _snapshot(minutes: list[int], speakers: list[str] | None = None) -> Snapshot:
    """One memory per entry, observed that many minutes after a start, stored in that order,
    said by ``speakers`` (by default two, taking turns)."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    voices = speakers or ["Ana" if i % 2 == 0 else "Ben" for i in range(len(minutes))]
    records = [
        MemoryRecord(
            id=f"m{i:03d}",
            text=f"turn {i}",
            hash=f"h{i}",
            user_id="u",
            attributed_to="user",
            speaker=voices[i],
            created_at=start + timedelta(seconds=i),
            updated_at=start + timedelta(seconds=i),
            observed_at=start + timedelta(minutes=m),
        )
        for i, m in enumerate(minutes)
    ]
    vectors = np.eye(len(minutes), 8, dtype=np.float32)  # orthogonal: each row's blend is visible
    return Snapshot.build(Pinned("o", "p", "user_id", "u"), (1, 1), records, vectors)


def test_the_blend_reaches_the_window_within_one_session_and_is_kept_with_the_snapshot() -> None:
    # Rows 0-3 one session; row 4 three hours later (another session); row 5 alone after it.
    snap = _snapshot([0, 1, 2, 3, 180, 600])
    matrix = neighbour_matrix(snap, 1, 1.0)
    # Row 1: itself plus the mean of rows 0 and 2, normalized.
    expected = np.zeros(8, dtype=np.float32)
    expected[1], expected[0], expected[2] = 1.0, 0.5, 0.5
    assert np.allclose(matrix[1], expected / np.linalg.norm(expected))
    # Row 3's next row is in another session: only row 2 counts.
    assert matrix[3][4] == 0.0 and matrix[3][2] > 0
    # A memory alone in its session keeps its own vector.
    assert np.allclose(matrix[5], snap.vectors[5])
    # Window 2 reaches one row further, within the session only.
    wider = neighbour_matrix(snap, 2, 1.0)
    assert wider[1][3] > 0 and wider[3][4] == 0.0
    # Computed once per snapshot and setting.
    assert neighbour_matrix(snap, 1, 1.0) is matrix
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0)


def test_one_voice_stating_facts_in_a_row_is_no_exchange() -> None:
    """A user's facts stated one after another keep their own vectors; a dialogue's turns blend."""
    alone = _snapshot([0, 1, 2, 3], ["Ana", "Ana", "Ana", "Ana"])
    assert np.allclose(neighbour_matrix(alone, 2, 1.0), alone.vectors)
    # One reply in the window makes the turns around it an exchange.
    answered = _snapshot([0, 1, 2, 3], ["Ana", "Ana", "Ana", "Ben"])
    matrix = neighbour_matrix(answered, 2, 1.0)
    assert not np.allclose(matrix[1], answered.vectors[1]) and not np.allclose(matrix[3], answered.vectors[3])
    assert np.allclose(matrix[0], answered.vectors[0])  # Ben's reply is three turns away


def test_facts_a_user_states_one_by_one_rank_as_without_it(tmp_path: Path) -> None:
    """An agent's user states her facts one add at a time: each one's neighbours are other
    facts, not its exchange, and the ranking stays the plain one."""
    facts = [
        "I'm vegetarian.",
        "I'm allergic to peanuts.",
        "My sister Noor lives in Utrecht.",
        "I work night shifts at the hospital.",
        "I'm training for a half marathon in October.",
        "My daughter starts school in September.",
    ]
    plain, read = _engine(tmp_path / "plain"), _engine(tmp_path / "read", neighbour_weight=1.0)
    try:
        for memory in (plain, read):
            for text in facts:
                memory.add([{"role": "user", "content": text}], user_id="lena", infer=False)
        for question in ("Can you suggest a dinner recipe for tonight?", "When could I visit my family?"):
            assert _ranking(read, question) == _ranking(plain, question)
    finally:
        plain.close()
        read.close()


@pytest.mark.parametrize(
    ("field", "value"), [("neighbour_weight", 1.5), ("neighbour_weight", -0.1), ("neighbour_window", 21)]
)
def test_a_setting_out_of_range_is_refused_by_name(field: str, value: float) -> None:
    from memorist.config.engine_settings import EngineSettings
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=field):
        EngineSettings(**{field: value})
