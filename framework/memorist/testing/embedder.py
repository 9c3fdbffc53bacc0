"""The contract every ``Embedder`` must meet, as a pytest suite a plugin's tests subclass.

Why: the engine relies on more than the abstract methods say. It compares vectors by dot
product (so they must be unit length), embeds adds in batches and queries alone (so a
text's vector must not depend on its batch), stores the probe sentences' vectors to notice
a changed model (so vectors must be deterministic), and sends any language the users
write. A subclass provides one fixture, ``embedder`` (a built provider), and gets every
check below::

    from memorist.testing.embedder import EmbedderContract

    class TestMyEmbedder(EmbedderContract):
        @pytest.fixture(scope="class")
        def embedder(self):
            return MyEmbedder(MyEmbedder.Options(), ProviderContext(data_dir=Path("/tmp")))

Set ``checks_meaning = False`` for an embedder that does not model meaning (a test
double); the paraphrase check is then left out.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pydantic
import pytest

from ..plugin.contracts import Embedder

#: Texts in several languages and scripts, short and long, with punctuation and emoji.
TEXTS = [
    "My name is Ada and I live in Lisbon.",
    "Where does Ada live?",
    "Eu moro em Lisboa desde 2019 e trabalho como engenheira.",
    "Ich heiße Jürgen und wohne in München.",
    "私の名前はアダです。リスボンに住んでいます。",
    "ok",
    "Loved the concert 🎸🔥 — see you next week!",
    "A much longer text about camping trips, pottery classes, adoption agencies and the books "
    "someone read last summer, long enough that a batch pads every shorter text beside it.",
]
#: (text, its paraphrase, an unrelated text): the paraphrase must be the nearer one.
PARAPHRASES = [
    ("The cat is sleeping on the sofa.", "A cat naps on the couch.", "Quarterly tax returns are due in April."),
    ("I moved to Berlin last year.", "Last year I relocated to Berlin.", "The recipe needs two eggs and flour."),
]
TOLERANCE = 1e-5


class EmbedderContract:
    """Subclass it in a test module and provide the ``embedder`` fixture."""

    #: False for an embedder that does not model meaning (the paraphrase check is skipped then).
    checks_meaning: ClassVar[bool] = True

    @pytest.fixture
    def embedder(self) -> Embedder[Any]:
        raise NotImplementedError("provide an `embedder` fixture returning a built Embedder")

    def test_is_an_embedder_with_a_name(self, embedder: Embedder[Any]) -> None:
        assert isinstance(embedder, Embedder)
        assert isinstance(type(embedder).name, str) and type(embedder).name
        label = embedder.describe()
        assert isinstance(label, str) and type(embedder).name in label

    def test_dimension_is_a_positive_int(self, embedder: Embedder[Any]) -> None:
        assert isinstance(embedder.dimension, int) and embedder.dimension > 0

    def test_vectors_are_float32_unit_rows_in_order(self, embedder: Embedder[Any]) -> None:
        vectors = embedder.embed(TEXTS)
        assert isinstance(vectors, np.ndarray) and vectors.dtype == np.float32
        assert vectors.shape == (len(TEXTS), embedder.dimension)
        assert np.isfinite(vectors).all()
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
        assert len({row.tobytes() for row in vectors}) == len(TEXTS)  # each text its own vector

    def test_no_texts_give_an_empty_array_of_the_right_width(self, embedder: Embedder[Any]) -> None:
        for purpose in ("document", "query"):
            empty = embedder.embed([], purpose)  # type: ignore[arg-type]
            assert empty.shape == (0, embedder.dimension)

    def test_a_text_gets_the_same_vector_alone_in_a_batch_and_again(self, embedder: Embedder[Any]) -> None:
        batch = embedder.embed(TEXTS)
        alone = np.vstack([embedder.embed([text]) for text in TEXTS])
        np.testing.assert_allclose(alone, batch, atol=TOLERANCE)
        np.testing.assert_allclose(embedder.embed(list(reversed(TEXTS)))[::-1], batch, atol=TOLERANCE)

    def test_queries_are_unit_vectors_of_the_same_space(self, embedder: Embedder[Any]) -> None:
        queries = embedder.embed(["Where does Ada live?"], "query")
        assert queries.shape == (1, embedder.dimension) and queries.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-4)

    def test_a_very_long_text_is_embedded_not_refused(self, embedder: Embedder[Any]) -> None:
        long = " ".join(["memory"] * 5000)
        vector = embedder.embed([long])
        assert vector.shape == (1, embedder.dimension) and np.isfinite(vector).all()

    def test_a_paraphrase_is_nearer_than_an_unrelated_text(self, embedder: Embedder[Any]) -> None:
        if not self.checks_meaning:
            return
        for text, paraphrase, unrelated in PARAPHRASES:
            vectors = embedder.embed([text, paraphrase, unrelated])
            assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2], (text, paraphrase, unrelated)

    def test_languages_are_every_language_or_a_set_of_codes(self, embedder: Embedder[Any]) -> None:
        """``languages``: None (every language) or a non-empty set of lower-case ISO 639-1 codes,
        as :func:`memorist.language.language_of` names a query's language."""
        languages = embedder.languages
        if languages is None:
            return
        assert isinstance(languages, frozenset) and languages
        assert all(isinstance(code, str) and code == code.lower() and 2 <= len(code) <= 3 for code in languages)

    def test_options_refuse_unknown_keys(self, embedder: Embedder[Any]) -> None:
        with pytest.raises(pydantic.ValidationError):
            type(embedder).Options.model_validate({"no_such_option_anywhere": 1})
