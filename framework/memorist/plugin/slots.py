"""The one table of provider slots: what the five kinds are, and everything derived from them.

Each row names a slot (its settings section and registry kind), the contract a
provider must subclass, the hook that registers providers of the kind, the
provider a fresh install uses, and the slots whose built provider it needs (a
vector store needs the embedder's dimension; a reranker may ask the language
model). Settings defaults, the registry's hooks, the contract map, the build
order, what ``POST /configure`` may change and what ``memorist plugins`` lists
all derive from this table. It imports nothing heavy, so settings can read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    kind: str
    #: Name of the contract class in :mod:`memorist.plugin.contracts`.
    contract: str
    #: The hookspec that registers providers of this kind.
    hook: str
    #: The provider of a fresh install (``configs/default.yaml`` says the same).
    default: str
    #: Slots built before this one whose provider it receives (and with which it is rebuilt).
    depends_on: tuple[str, ...] = ()


SLOTS: tuple[Slot, ...] = (
    Slot("language_model", "LanguageModel", "register_language_models", "heuristic"),
    Slot("embedder", "Embedder", "register_embedders", "sentence-transformers"),
    Slot("vector_store", "VectorStore", "register_vector_stores", "lancedb", ("embedder",)),
    Slot("reranker", "Reranker", "register_rerankers", "mmr", ("language_model",)),
    Slot("entity_extractor", "EntityExtractor", "register_entity_extractors", "rules"),
)
#: Slot names in the order they are listed, configured and shown.
SLOT_NAMES: tuple[str, ...] = tuple(slot.kind for slot in SLOTS)
BY_KIND = {slot.kind: slot for slot in SLOTS}


def build_order() -> list[Slot]:
    """Slots with every dependency before its dependants (the table's order otherwise)."""
    done: list[Slot] = []
    pending = list(SLOTS)
    while pending:
        ready = next(s for s in pending if all(d in {x.kind for x in done} for d in s.depends_on))
        done.append(ready)
        pending.remove(ready)
    return done
