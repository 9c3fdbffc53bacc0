"""Which embedder's vectors a store holds: recorded once, checked whenever an engine is built.

Each vector store refuses an embedder of another *dimension* (a 384-wide table
cannot take 768-wide vectors). Two models of the same dimension pass that check,
yet their vectors live in unrelated spaces: after such a switch (a new model in
the YAML, ``POST /configure``, one node of a fleet configured differently) every
search compares new query vectors with old memory vectors and answers noise,
with no error anywhere. So the database records the space the store's vectors
belong to (key ``vector_space`` in ``kv_settings``, shared by every node): the
embedder's label, its dimension, and the vectors it gives a few fixed probe
sentences.

Building an engine then settles the record:

- no record yet: this embedder's space is recorded (a store filled before this
  check is assumed to hold this embedder's vectors: nothing else is known);
- the same label (``Provider.describe``) as recorded: the same space, nothing is embedded;
- another label: the probes are embedded and compared with the recorded ones. A
  mean cosine of at least :data:`SAME_SPACE` is the same space under another name
  (the int8 copy of the model: ~0.95-0.99; another path to the same files: 1.0)
  and is accepted; anything lower is another space;
- another space over a store that holds no memory (new, or after ``/reset``): the
  new space is recorded; over a store with memories: :class:`VectorSpaceMismatchError`
  (409), naming both embedders, before anything is swapped or written.

A probe that cannot be embedded (a hosted embedder unreachable at startup) is
logged and the check skipped, as before it existed: an unreachable provider fails
the first add or search with its own clear error.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from ..db import Database
from ..db.schema import kv
from ..errors import MemoristError
from ..plugin.contracts import Embedder, VectorStore
from ..records import utcnow

log = logging.getLogger("memorist.engine")

KEY = "vector_space"
#: Plain sentences of the kind memories hold; any model maps each to a stable vector.
PROBES = (
    "The user's name is Ada and she lives in Lisbon.",
    "Remind me to call the dentist on Friday morning.",
    "My favourite food is spicy ramen with extra egg.",
)
#: Mean cosine between two embedders' probe vectors above which they share one space.
#: The same model quantized to int8 scores ~0.95-0.99; unrelated models of one dimension ~0-0.3.
SAME_SPACE = 0.8


class VectorSpaceMismatchError(MemoristError):
    """The store holds vectors of another embedder, of the same dimension."""

    status = 409


def settle(db: Database, embedder: Embedder, store: VectorStore, key: str = KEY) -> None:
    """Record or check the space of the store's vectors (see the module doc); raises
    :class:`VectorSpaceMismatchError` when ``embedder`` would mix with another model's vectors.

    ``key`` names the record: each vector space (``memorist.spaces``) has its own store and record."""
    label = embedder.describe()
    recorded = _read(db, key)
    if recorded is not None and recorded.get("label") == label and recorded.get("dimension") == embedder.dimension:
        return
    probes = _probe(embedder)
    if probes is None:
        return
    if recorded is None:
        if _create(db, label, embedder.dimension, probes, key):
            return
        recorded = _read(db, key)  # another process recorded it first: check against theirs
        if recorded is None:
            return
    similarity = _similarity(recorded, probes)
    if similarity >= SAME_SPACE:
        return
    if not store.list(None, offset=0, limit=1):
        log.info("embedder: the store is empty; its vectors now come from %s", label)
        _replace(db, label, embedder.dimension, probes, key)
        return
    raise VectorSpaceMismatchError(
        f"embedder: the store holds vectors made by '{recorded.get('label')}' "
        f"({recorded.get('dimension')} dimensions); '{label}' makes vectors in another space "
        f"(probe similarity {similarity:.2f}), so searches would compare unrelated vectors. "
        f"Keep the embedder '{recorded.get('label')}', or re-embed the stored memories with the new one "
        "(set a new vector_store.options.table, then `memorist reembed --from-table <the old table>`), "
        "or use a new data directory (or database) for the new one and add the memories again there, "
        "or empty this store first (POST /reset)."
    )


def _probe(embedder: Embedder) -> np.ndarray | None:
    try:
        vectors = np.asarray(embedder.embed(list(PROBES), "document"), dtype=np.float32)
    except Exception as exc:  # a hosted embedder offline at startup: its first real use reports it
        log.warning("embedder: could not embed the vector-space probes (%s); not checked", exc)
        return None
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return unit


def _similarity(recorded: dict[str, Any], probes: np.ndarray) -> float:
    stored = np.asarray(recorded.get("probes") or [], dtype=np.float32)
    if stored.shape != probes.shape:  # another dimension (or a damaged record): another space
        return 0.0
    return float(np.mean(np.sum(stored * probes, axis=1)))


def _read(db: Database, key: str = KEY) -> dict[str, Any] | None:
    with db.connect() as conn:
        value = conn.execute(select(kv.c.value).where(kv.c.key == key)).scalar()
    return dict(value) if isinstance(value, dict) else None


def record(db: Database, embedder: Embedder, key: str = KEY) -> None:
    """Record ``embedder`` as the maker of the store's vectors, whatever was recorded
    (``memorist reembed``, once every memory has a vector of it)."""
    probes = _probe(embedder)
    if probes is None:
        raise MemoristError(f"embedder: could not embed the vector-space probes with '{embedder.describe()}'")
    if not _create(db, embedder.describe(), embedder.dimension, probes, key):
        _replace(db, embedder.describe(), embedder.dimension, probes, key)


def recorded_label(db: Database, key: str = KEY) -> str | None:
    """The label of the embedder recorded for ``key``'s space; None before any."""
    value = _read(db, key)
    return str(value.get("label")) if value else None


def _record(label: str, dimension: int, probes: np.ndarray) -> dict[str, Any]:
    return {"label": label, "dimension": dimension, "probes": np.round(probes, 6).tolist()}


def _create(db: Database, label: str, dimension: int, probes: np.ndarray, key: str = KEY) -> bool:
    """Record the first space; False when another process recorded one meanwhile."""
    try:
        with db.begin() as conn:
            conn.execute(insert(kv).values(key=key, value=_record(label, dimension, probes), updated_at=utcnow()))
    except IntegrityError:
        return False
    log.info("embedder: the store's vectors come from %s", label)
    return True


def _replace(db: Database, label: str, dimension: int, probes: np.ndarray, key: str = KEY) -> None:
    with db.begin() as conn:
        conn.execute(
            update(kv).where(kv.c.key == key).values(value=_record(label, dimension, probes), updated_at=utcnow())
        )
