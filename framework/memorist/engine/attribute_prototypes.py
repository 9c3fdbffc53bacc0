"""Which single-valued attribute a short fact is about, read by meaning.

The word lists of :mod:`.supersession_lexicon` name an attribute when a fact holds one of
its words ("lives", "job"). A change is often told in words no list holds and far in
meaning from the older value: "is a morning person" / "has turned into a night owl"
(cosine 0.44), "does marketing for a shoe brand" / "is a software developer now" (0.26).
Both facts are still about one attribute a person holds one value of at a time (when they
sleep, what they do for a living), and each is close to a plain sentence about that
attribute. So the lexicons hold a few such sentences per attribute
(``attribute_prototypes``; the words are data) and a fact's attribute is the one whose
sentence is nearest to it by the embedder's cosine, when that is at least
:data:`FLOOR` and ahead of every other attribute's nearest by :data:`MARGIN`. The
``open`` rows are kinds a person holds many of (hobbies, trips, things owned): a fact
nearest one of them names no attribute, so "plays the violin" is not an occupation.

A person holds many tastes, but one of a kind told as a change replaces the older of that
kind ("listens to a lot of pop music" / "lately really into jazz": music). The lexicons'
``taste_prototypes`` name the kinds (food, drink, music, ...); a fact that names no
attribute is read for its kind of taste the same way, labelled :data:`TASTE` + kind, and the
rule links two facts of one kind only when one of them states a taste.

The prototypes are embedded once per process and embedder identity (its class and
:meth:`describe`, as :mod:`.chance_cosine` keys its levels): a server that rebuilds its
engine on a configuration change, or a process holding several engines, does not embed
them again. A reader given no identity embeds its own. Each fact's text is embedded once
per reader (a bounded cache).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from threading import Lock

import numpy as np

from ..language import languages, lexicon
from .chance_cosine import ChanceCosine

#: A fact names an attribute only when its nearest prototype is at least this close.
FLOOR = 0.45
#: ... and the nearest prototype of any other attribute (or of an ``open`` kind) is at least
#: this much farther.
MARGIN = 0.12
#: The label of the kinds a person holds many of.
OPEN = "open"
#: The label prefix of a kind of taste ("taste:music").
TASTE = "taste:"
#: A fact is of a kind of taste when its nearest taste prototype is at least this close ...
TASTE_FLOOR = 0.45
#: ... and the nearest of every other kind at least this much farther. The kinds are close
#: to one another (every sentence states a taste), so what tells them apart is a smaller gap
#: than :data:`MARGIN`: "fav drink: flat white" is 0.57 from drink, 0.32 from food.
TASTE_MARGIN = 0.1
#: Fact texts whose attribute a reader remembers.
CACHE_SIZE = 8_192

Embed = Callable[[list[str]], np.ndarray]

#: Prototype matrices by (embedder identity, rows): the same sentences under the same
#: embedder embed to the same vectors.
_MATRICES: dict[tuple[str, tuple[tuple[str, str], ...]], np.ndarray] = {}
_MATRICES_LOCK = Lock()


def prototypes() -> list[tuple[str, str]]:
    """Every language's ``attribute_prototypes`` as (attribute, sentence), then its
    ``taste_prototypes`` as (:data:`TASTE` + kind, sentence)."""
    out: list[tuple[str, str]] = []
    for name, prefix in (("attribute_prototypes", ""), ("taste_prototypes", TASTE)):
        for code in languages():
            rows = lexicon(code).get(name) or {}
            for attribute, sentences in rows.items():
                out.extend((f"{prefix}{attribute}", str(s)) for s in sentences or ())
    return out


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1.0, norms), dtype=np.float32)


class AttributeReader:
    """Reads a fact's single-valued attribute with one embedder."""

    def __init__(
        self,
        embed: Embed,
        rows: Sequence[tuple[str, str]] | None = None,
        *,
        chance: ChanceCosine | None = None,
        identity: str | None = None,
    ) -> None:
        self._embed = embed
        #: Names ``embed``'s vector space: readers of one identity share the prototypes' vectors.
        self._identity = identity
        #: Reads a text's prototype cosines against its language's chance level (None: as they are).
        self._chance = chance
        self._rows = list(prototypes() if rows is None else rows)
        self._labels = np.array([label for label, _ in self._rows])
        self._matrix: np.ndarray | None = None
        self._seen: OrderedDict[str, tuple[str | None, str | None]] = OrderedDict()
        #: Guards the cache only: concurrent adds embed their texts in parallel.
        self._lock = Lock()
        #: Held while the prototypes embed, once per reader.
        self._preparing = Lock()

    def _prototypes(self) -> np.ndarray:
        with self._preparing:
            if self._matrix is None:
                key = (self._identity, tuple(self._rows)) if self._identity is not None else None
                with _MATRICES_LOCK:
                    self._matrix = _MATRICES.get(key) if key is not None else None
                if self._matrix is None:
                    self._matrix = _unit(np.asarray(self._embed([s for _, s in self._rows])))
                    if key is not None:
                        with _MATRICES_LOCK:
                            _MATRICES[key] = self._matrix
        return self._matrix

    def of(self, texts: Sequence[str], above_chance: bool = False) -> list[str | None]:
        """Each text's attribute, or None (no prototype close enough, an ``open`` kind, or two
        attributes about as near); with ``above_chance``, read from the prototype cosines as far
        as they are above the text's language's chance level (:mod:`.chance_cosine`)."""
        if not self._rows:
            return [None] * len(texts)
        with self._lock:
            known = {t: self._seen[t] for t in dict.fromkeys(texts) if t in self._seen}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            protos = self._prototypes()
            scores = _unit(np.asarray(self._embed(missing))) @ protos.T
            # A language's chance level is measured (embedded) on first need: outside the lock.
            read = self._chance.on_english_scale if self._chance is not None else None
            labels = [
                (self._label(row), self._label(read(row, text)) if read is not None else self._label(row))
                for text, row in zip(missing, scores, strict=True)
            ]
            with self._lock:
                for text, pair in zip(missing, labels, strict=True):
                    known[text] = self._seen[text] = pair
                    if len(self._seen) > CACHE_SIZE:
                        self._seen.popitem(last=False)
        return [known[t][1 if above_chance else 0] for t in texts]

    def attribute_of(self, text: str) -> str | None:
        """One text's attribute (see :meth:`of`)."""
        return self.of([text])[0]

    def attribute_above_chance(self, text: str) -> str | None:
        """One text's attribute read from its cosines above chance (see :meth:`of`)."""
        return self.of([text], above_chance=True)[0]

    def _label(self, row: np.ndarray) -> str | None:
        best: dict[str, float] = {}
        for label, score in zip(self._labels, row, strict=True):
            best[str(label)] = max(best.get(str(label), -1.0), float(score))
        attributes = {k: v for k, v in best.items() if not k.startswith(TASTE)}
        found = _nearest(attributes, FLOOR, MARGIN)
        if found is not None:
            return found
        return _nearest({k: v for k, v in best.items() if k.startswith(TASTE)}, TASTE_FLOOR, TASTE_MARGIN)


def _nearest(best: dict[str, float], floor: float, margin: float) -> str | None:
    """The label nearest ahead of the others by ``margin`` and at least ``floor`` close (never
    :data:`OPEN`)."""
    ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
    if not ranked or ranked[0][0] == OPEN or ranked[0][1] < floor:
        return None
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < margin:
        return None
    return ranked[0][0]
