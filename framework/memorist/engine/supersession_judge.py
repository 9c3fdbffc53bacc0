"""A configured language model as the judge of which stored memories an add's facts replace.

The rule (:mod:`.supersession_rule`) reads words and cosines, and knows the languages and
phrasings its word lists hold; a chat model reads any. So when the configured language model
judges (:meth:`~memorist.plugin.contracts.LanguageModel.replaced_memories` answers), its
answer decides which older memories each new fact replaces, and the rule decides only when
it does not (the default, the offline heuristic model, a failed call).

What stays the engine's either way: the model is shown only the candidates the rule's own
guards let a fact replace (:func:`.supersession_rule.may_supersede`: one speaker, observed no
later, the user's and the assistant's facts apart unless both are about the user), and an id
it answers that is not one of them is dropped, so a wrong or invented answer cannot reach
beyond what the rule itself could have linked.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..observability import metrics
from ..observability.stages import stage
from ..plugin.contracts import LanguageModel
from ..records import CandidateMemory, FactWithCandidates, MemoryRecord
from .supersession_rule import may_supersede

log = logging.getLogger(__name__)


def candidates_of(newer: MemoryRecord, near: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The stored memories near ``newer`` (nearest first) it may replace at all."""
    seen: set[str] = set()
    out = []
    for older in near:
        if older.id not in seen and may_supersede(newer, older):
            seen.add(older.id)
            out.append(older)
    return out


def _as_candidate(record: MemoryRecord) -> CandidateMemory:
    return CandidateMemory(
        id=record.id,
        text=record.text,
        observed_at=record.observed_at,
        attributed_to=record.attributed_to,
        speaker=record.speaker,
    )


def _as_fact(record: MemoryRecord, candidates: Sequence[MemoryRecord]) -> FactWithCandidates:
    return FactWithCandidates(
        text=record.text,
        observed_at=record.observed_at,
        attributed_to=record.attributed_to,
        speaker=record.speaker,
        candidates=tuple(_as_candidate(c) for c in candidates),
    )


def judge(
    language_model: LanguageModel, records: Sequence[MemoryRecord], near: Sequence[Sequence[MemoryRecord]]
) -> list[list[MemoryRecord]] | None:
    """Ask ``language_model`` once which of each new record's ``near`` memories it replaces:
    the older memories of each record, in order.

    None when it does not judge (the rule decides then), when no record has a candidate (there
    is nothing to ask), or when its answer is unusable (not one list per fact, or it raised:
    the contract says a failed call answers None, and an add never fails because of a judge).
    """
    if type(language_model).replaced_memories is LanguageModel.replaced_memories:
        return None  # the default's None, without building the question on every add
    candidates = [candidates_of(record, hits) for record, hits in zip(records, near, strict=True)]
    if not any(candidates):
        return None
    facts = [_as_fact(record, found) for record, found in zip(records, candidates, strict=True)]
    try:
        with stage("add", "judge"):
            answer = language_model.replaced_memories(facts)
    except Exception:  # a third-party model's failure: the rule decides, the add goes on
        log.exception("language model %s failed to judge supersession; the rule decides", language_model.describe())
        metrics.supersession_judged("unusable")
        return None
    if answer is None:
        metrics.supersession_judged("declined")
        return None
    if len(answer) != len(facts):
        metrics.supersession_judged("unusable")
        log.warning(
            "language model %s judged %d facts of %d; the rule decides",
            language_model.describe(),
            len(answer),
            len(facts),
        )
        return None
    metrics.supersession_judged("judged")
    replaced = []
    for found, ids in zip(candidates, answer, strict=True):
        by_id = {c.id: c for c in found}
        picked = dict.fromkeys(i for i in ids if i in by_id)
        replaced.append([by_id[i] for i in picked])
    return replaced
