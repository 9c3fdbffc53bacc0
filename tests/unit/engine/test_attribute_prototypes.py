"""A fact's single-valued attribute read by meaning (:mod:`memorist.engine.attribute_prototypes`).

The mechanism is checked with a small embedder whose vectors are plain word counts (the
nearest prototype, the floor, the margin, the ``open`` kinds); the supersession it feeds is
checked end to end with the default embedder (all-MiniLM-L6-v2 on ONNX, installed from the
registry), since the prototypes are sentences only a real embedder reads as one topic.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from memorist.config.settings import load_settings
from memorist.engine.attribute_prototypes import AttributeReader, prototypes
from memorist.python.engine import Engine

VOCABULARY = ("job", "nurse", "teacher", "city", "live", "guitar", "play", "morning", "late")


def _counts(texts: list[str]) -> np.ndarray:
    return np.array(
        [[text.lower().split().count(w) for w in VOCABULARY] for text in texts], dtype=np.float32
    ) + np.float32(1e-3)


ROWS = [
    ("occupation", "job nurse"),
    ("occupation", "job teacher"),
    ("residence", "live city"),
    ("open", "play guitar"),
]


def test_the_nearest_prototype_names_the_attribute() -> None:
    reader = AttributeReader(_counts, ROWS)
    assert reader.of(["new job teacher", "live city now"]) == ["occupation", "residence"]


def test_a_kind_held_many_at_once_names_none() -> None:
    assert AttributeReader(_counts, ROWS).attribute_of("play guitar often") is None


def test_two_attributes_about_as_near_name_none() -> None:
    # As near to a job as to a city: the margin keeps it unread.
    assert AttributeReader(_counts, ROWS).attribute_of("job city") is None


def test_far_from_every_prototype_names_none() -> None:
    assert AttributeReader(_counts, ROWS).attribute_of("morning late") is None


def test_prototypes_embed_once_and_texts_are_remembered() -> None:
    calls: list[int] = []

    def counted(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return _counts(texts)

    reader = AttributeReader(counted, ROWS)
    reader.of(["job nurse", "live city"])
    reader.of(["job nurse"])
    assert calls == [len(ROWS), 2]


def test_readers_of_one_embedder_embed_the_prototypes_once() -> None:
    """An engine rebuilt over the same embedder (a reconfigured server) reads with the
    prototype vectors already made; another embedder, or a reader that names none, embeds its own."""
    calls: list[int] = []

    def counted(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return _counts(texts)

    identity = f"counts:{id(calls)}"  # unique to this test: no earlier reader shares it
    first = AttributeReader(counted, ROWS, identity=identity)
    assert first.of(["new job teacher"]) == ["occupation"]
    again = AttributeReader(counted, ROWS, identity=identity)
    assert again.of(["live city now"]) == ["residence"]
    assert calls == [len(ROWS), 1, 1]  # the prototypes once, then each reader's own text
    AttributeReader(counted, ROWS, identity=f"{identity}:other").of(["job nurse"])
    AttributeReader(counted, ROWS).of(["job nurse"])
    AttributeReader(counted, ROWS[:3], identity=identity).of(["job nurse"])
    assert calls == [len(ROWS), 1, 1, len(ROWS), 1, len(ROWS), 1, 3, 1]


def test_the_lexicons_hold_prototypes_for_the_attributes() -> None:
    kinds = {kind for kind, _ in prototypes()}
    assert {"occupation", "residence", "schedule", "open"} <= kinds


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    data = tmp_path_factory.mktemp("prototypes")
    engine = Engine.from_settings(load_settings(None, {"data_dir": str(data), "request_log": {"enabled": False}}))
    yield engine
    engine.close()


def _current(memory: Engine, user: str, adds: list[str]) -> list[int]:
    ids = []
    for day, text in enumerate(adds, start=2):
        ids.append([r.id for r in memory.add(text, user_id=user, timestamp=f"2026-03-{day:02d}T09:00:00Z")])
    shown = {r.id for r in memory.list(user_id=user, latest_only=True, page_size=50).records}
    return [i for i, stored in enumerate(ids) if stored and set(stored) <= shown]


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        # A change of schedule told in words the older fact does not hold.
        (["I'm always up at dawn, I love early mornings.", "These days I'm a total night person."], [1]),
        # A career change: no employer word in common, far in meaning.
        (["I sell insurance for a living.", "I changed careers and I'm a nurse now."], [1]),
        # Kinds held many at once stay current together.
        (["I play the cello.", "I've started learning to paint too."], [0, 1]),
        (["I work at a bakery.", "I also coach a swim team on Saturdays."], [0, 1]),
        # Another language's facts: no false link between two hobbies.
        (["The user: Ich spiele Fußball.", "The user: Ich koche gern."], [0, 1]),
        (["Juego al ajedrez.", "Me gusta nadar en verano."], [0, 1]),
    ],
)
def test_a_change_of_one_attribute_replaces_it(memory: Engine, adds: list[str], current: list[int]) -> None:
    assert _current(memory, f"u{abs(hash(adds[0]))}", adds) == current
